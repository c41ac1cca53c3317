package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// Class is what an address is, as far as the policy cares.
type Class uint8

// The classes of addresses.
const (
	// Public: any address not in another class; always allowed.
	Public Class = iota
	// Loopback: 127.0.0.0/8, ::1, and the unspecified addresses 0.0.0.0/8
	// and :: (a dial to them reaches the local host).
	Loopback
	// Private: 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10
	// (carrier-grade NAT), fc00::/7 (unique local), fec0::/10 (site-local).
	Private
	// LinkLocal: 169.254.0.0/16, fe80::/10; always refused.
	LinkLocal
	// Metadata: a cloud metadata service (169.254.169.254, fd00:ec2::254,
	// 100.100.100.200); always refused.
	Metadata
	// Multicast: multicast and the broadcast address; always refused.
	Multicast
)

// String names the class.
func (c Class) String() string {
	switch c {
	case Public:
		return "public"
	case Loopback:
		return "loopback"
	case Private:
		return "private"
	case LinkLocal:
		return "link-local"
	case Metadata:
		return "cloud metadata"
	case Multicast:
		return "multicast"
	}
	return fmt.Sprintf("Class(%d)", c)
}

var (
	metadata = []netip.Addr{
		netip.MustParseAddr("169.254.169.254"), // AWS, GCP, Azure, OpenStack, ...
		netip.MustParseAddr("fd00:ec2::254"),   // AWS over IPv6
		netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
	}
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	thisNet   = netip.MustParsePrefix("0.0.0.0/8")
	cgnat     = netip.MustParsePrefix("100.64.0.0/10")
	siteLocal = netip.MustParsePrefix("fec0::/10")
	broadcast = netip.MustParseAddr("255.255.255.255")
)

// Classify says which class ip is in. An IPv4 address mapped into IPv6 or
// carried by the NAT64 prefix is classified as the IPv4 address.
func Classify(ip netip.Addr) Class {
	ip = ip.WithZone("")
	if ip.Is4In6() {
		ip = ip.Unmap()
	}
	if nat64.Contains(ip) {
		b := ip.As16()
		ip = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	for _, m := range metadata {
		if ip == m {
			return Metadata
		}
	}
	switch {
	case ip.IsLinkLocalUnicast():
		return LinkLocal
	case ip.IsMulticast() || ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() || ip == broadcast:
		return Multicast
	case ip.IsLoopback() || ip.IsUnspecified() || thisNet.Contains(ip):
		return Loopback
	case ip.IsPrivate() || cgnat.Contains(ip) || siteLocal.Contains(ip):
		return Private
	}
	return Public
}

// Policy says which addresses the node may dial for URLs it calls on
// others' say-so. The zero Policy allows public addresses only.
type Policy struct {
	// AllowPrivate allows the private ranges. Defaults to false.
	AllowPrivate bool
	// AllowLoopback allows loopback addresses. Defaults to false.
	AllowLoopback bool
	// Allow are prefixes allowed even when private or loopback (never
	// link-local or metadata addresses). Defaults to none.
	Allow []netip.Prefix
}

// ErrRefused is what every refusal of the policy is (errors.Is).
var ErrRefused = errors.New("egress: address refused")

// RefusedError is a dial the policy refused.
type RefusedError struct {
	// Addr is the address that was to be dialed, after name resolution.
	Addr netip.Addr
	// Class is the address's class.
	Class Class
}

// Error names the address, its class and what would allow it.
func (e *RefusedError) Error() string {
	switch e.Class {
	case Loopback:
		return fmt.Sprintf("egress: refused to connect to %s: a loopback address (allow it with egress.allowLoopback or egress.allow)", e.Addr)
	case Private:
		return fmt.Sprintf("egress: refused to connect to %s: a private address (allow it with egress.allowPrivate or egress.allow)", e.Addr)
	default: // link-local, metadata, multicast and the like: never allowed
	}
	return fmt.Sprintf("egress: refused to connect to %s: a %s address, never allowed", e.Addr, e.Class)
}

// Is makes errors.Is(err, ErrRefused) true.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// Check returns nil when ip may be dialed, else a *RefusedError.
func (p Policy) Check(ip netip.Addr) error {
	cl := Classify(ip)
	switch cl {
	case Public:
		return nil
	case Loopback, Private:
		if cl == Loopback && p.AllowLoopback || cl == Private && p.AllowPrivate || p.allowed(ip) {
			return nil
		}
	default: // link-local, metadata, multicast and the like: never allowed
	}
	return &RefusedError{Addr: ip.WithZone(""), Class: cl}
}

// allowed reports whether a prefix of Allow holds ip (as given, or as the
// IPv4 address it maps).
func (p Policy) allowed(ip netip.Addr) bool {
	ip = ip.WithZone("")
	for _, pre := range p.Allow {
		if pre.Contains(ip) || ip.Is4In6() && pre.Contains(ip.Unmap()) {
			return true
		}
	}
	return false
}

// Control is a net.Dialer Control hook: it checks the address being
// dialed, which is resolved already ("ip:port").
func (p Policy) Control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		// Not an IP address: nothing may be dialed that was not checked.
		return fmt.Errorf("%w: %q is not an IP address and port", ErrRefused, address)
	}
	return p.Check(ap.Addr())
}

// Dialer returns a copy of base (nil: a zero Dialer) whose control hook
// checks every address dialed, then runs base's own hook (ControlContext,
// or else Control).
func (p Policy) Dialer(base *net.Dialer) *net.Dialer {
	d := &net.Dialer{}
	if base != nil {
		*d = *base
	}
	next, nextCtx := d.Control, d.ControlContext
	d.Control = nil
	d.ControlContext = func(ctx context.Context, network, address string, c syscall.RawConn) error {
		if err := p.Control(network, address, c); err != nil {
			return err
		}
		switch {
		case nextCtx != nil:
			return nextCtx(ctx, network, address, c)
		case next != nil:
			return next(network, address, c)
		}
		return nil
	}
	return d
}

// DialContext dials through p.Dialer(nil) with a 30s connect timeout.
func (p Policy) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	return p.Dialer(&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext(ctx, network, address)
}

// Transport returns an HTTP transport, like http.DefaultTransport but
// without a proxy, that dials only what p allows.
func (p Policy) Transport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	t.DialContext = p.DialContext
	t.DialTLSContext = nil
	return t
}

// Client returns an HTTP client over p.Transport() with the given timeout
// (0: none but the request's context).
func (p Policy) Client(timeout time.Duration) *http.Client {
	return &http.Client{Transport: p.Transport(), Timeout: timeout}
}

// ParseAllow parses CIDR prefixes (a bare address is a /32 or /128); the
// error names the first that is not one.
func ParseAllow(cidrs []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for i, s := range cidrs {
		pre, err := netip.ParsePrefix(s)
		if err != nil {
			a, aErr := netip.ParseAddr(s)
			if aErr != nil {
				return nil, fmt.Errorf("[%d]: %q is not a CIDR prefix (like 10.1.0.0/16) or an IP address", i, s)
			}
			pre = netip.PrefixFrom(a, a.BitLen())
		}
		out = append(out, pre.Masked())
	}
	return out, nil
}
