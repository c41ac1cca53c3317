package node

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/ordolabs/ordo/internal/auth"
)

// APITLSConfig makes the node's API serve HTTPS: both files set, or
// neither (plain HTTP). The files are read once, at start.
type APITLSConfig struct {
	// CertFile is the server's certificate chain, PEM (the leaf first).
	// Defaults to "" (no TLS).
	CertFile string `yaml:"certFile"`
	// KeyFile is the certificate's private key, PEM. Defaults to "" (no
	// TLS).
	KeyFile string `yaml:"keyFile"`
}

// Enabled reports whether the API serves TLS.
func (c APITLSConfig) Enabled() bool { return c.CertFile != "" || c.KeyFile != "" }

// ServerConfig loads the certificate and key into a server's TLS
// configuration (TLS 1.2 at least); nil when TLS is off.
func (c APITLSConfig) ServerConfig() (*tls.Config, error) {
	if !c.Enabled() {
		return nil, nil
	}
	if c.CertFile == "" || c.KeyFile == "" {
		return nil, errors.New("api.tls: certFile and keyFile go together: give both, or neither for plain HTTP")
	}
	cert, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("api.tls: loading %s and %s: %w", c.CertFile, c.KeyFile, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// DevModeOnPublicAddressFlag is the flag of `ordo serve` that lets a node in
// dev mode listen on an address other than loopback (config:
// api.devModeOnPublicAddress).
const DevModeOnPublicAddressFlag = "--dev-mode-on-public-address"

// ErrDevModePublic is the error of a node in dev mode whose API would
// listen on an address other than loopback without the operator's
// explicit switch (api.devModeOnPublicAddress).
var ErrDevModePublic = errors.New("dev mode on an address other than loopback")

// CheckDevModeAddress refuses (ErrDevModePublic) dev mode on a listen
// address whose host is not loopback: an IP of 127.0.0.0/8 or ::1, or the
// name localhost. An empty host or an unspecified one (0.0.0.0, ::) listens
// on every interface and is refused too; another name is refused since its
// addresses are not known here. The operator's switch
// api.devModeOnPublicAddress (--dev-mode-on-public-address) lets it
// through. Outside dev mode every address is accepted.
func (c Config) CheckDevModeAddress(listen string) error {
	if !c.DevMode || c.API.DevModeOnPublicAddress {
		return nil
	}
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("listen %q: %w", listen, err)
	}
	if strings.EqualFold(host, "localhost") {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return devModePublic(listen)
}

// checkDevModeListener is CheckDevModeAddress on the address a listener
// is bound to.
func (c Config) checkDevModeListener(addr net.Addr) error {
	if !c.DevMode || c.API.DevModeOnPublicAddress {
		return nil
	}
	if ta, ok := addr.(*net.TCPAddr); ok && ta.IP.IsLoopback() {
		return nil
	}
	return devModePublic(addr.String())
}

func devModePublic(addr string) error {
	return fmt.Errorf("%w: refusing to serve %s in dev mode (every caller would be an admin without a token, "+
		"and the in-process chain's faucet and raw transactions would be open to anyone who reaches it); "+
		"listen on loopback (--listen 127.0.0.1:7070), or run without --dev-mode with principals, "+
		"or, knowing this, pass %s (api.devModeOnPublicAddress: true in the config)", ErrDevModePublic, addr, DevModeOnPublicAddressFlag)
}

// IntakeLimitConfig limits each principal's intake rate (api.intakeLimit):
// a token bucket per principal, refilled at perSecond intents a second and
// holding up to burst. What counts: each intent of POST /v1/transactions
// (an array counts its intents), each batch added to a processor, and
// each ptx_sendTransaction and ptx_prepareTransaction call. Past it the
// request is answered 429 rate_limited with Retry-After (a ptx_ call, a
// JSON-RPC error with that code), and nothing is taken. Defaults to off.
type IntakeLimitConfig struct {
	// Limit is every principal's rate (perSecond, burst) unless it has its
	// own. perSecond defaults to 0: no limit; burst to perSecond rounded
	// up.
	auth.Limit `yaml:",inline"`
	// Principals are rates of their own, by principal name (each a
	// configured principal; perSecond 0 exempts it). Defaults to none.
	Principals map[string]auth.Limit `yaml:"principals"`
}

// Limiter is the limiter of this configuration on the clock now, nil when
// off.
func (c IntakeLimitConfig) Limiter(now func() time.Time) *auth.Limiter {
	return auth.NewLimiter(auth.LimiterConfig{Default: c.Limit, Principals: c.Principals}, now)
}

// validateAPI checks the fields of api: (TLS files, intake limits).
func (c Config) validateAPI() []error {
	var errs []error
	t := c.API.TLS
	switch {
	case t.Enabled() && (t.CertFile == "" || t.KeyFile == ""):
		errs = append(errs, errors.New("api.tls: certFile and keyFile go together: give both, or neither for plain HTTP"))
	case t.Enabled():
		for _, f := range []struct{ field, path string }{{"api.tls.certFile", t.CertFile}, {"api.tls.keyFile", t.KeyFile}} {
			if _, err := os.Stat(f.path); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", f.field, err))
			}
		}
	}
	l := c.API.IntakeLimit
	if err := l.Validate("api.intakeLimit"); err != nil {
		errs = append(errs, err)
	}
	names := make([]string, 0, len(l.Principals))
	for name := range l.Principals {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		field := "api.intakeLimit.principals." + name
		if err := l.Principals[name].Validate(field); err != nil {
			errs = append(errs, err)
		}
		if !c.DevMode && !slices.ContainsFunc(c.Principals, func(p auth.PrincipalConfig) bool { return p.Principal == name }) {
			errs = append(errs, fmt.Errorf("%s: names no principal of this node (principals:)", field))
		}
	}
	return errs
}

// serveAPI is the listener the API serves on ln: refused in dev mode on an
// address other than loopback without the operator's switch
// (checkDevModeListener), wrapped in TLS when api.tls is set. It returns
// the scheme served, http or https. On an error ln is returned as given.
func (c Config) serveAPI(ln net.Listener) (net.Listener, string, error) {
	if err := c.checkDevModeListener(ln.Addr()); err != nil {
		return ln, "", err
	}
	tc, err := c.API.TLS.ServerConfig()
	if err != nil || tc == nil {
		return ln, "http", err
	}
	return tls.NewListener(ln, tc), "https", nil
}
