package egress

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		addr string
		want Class
	}{
		{"8.8.8.8", Public},
		{"1.1.1.1", Public},
		{"2606:4700:4700::1111", Public},
		{"172.32.0.1", Public},
		{"100.128.0.1", Public},
		{"127.0.0.1", Loopback},
		{"127.255.255.254", Loopback},
		{"::1", Loopback},
		{"0.0.0.0", Loopback},
		{"0.1.2.3", Loopback},
		{"::", Loopback},
		{"::ffff:127.0.0.1", Loopback},
		{"10.0.0.1", Private},
		{"172.16.0.1", Private},
		{"172.31.255.255", Private},
		{"192.168.1.1", Private},
		{"100.64.0.1", Private},
		{"fc00::1", Private},
		{"fd12:3456::1", Private},
		{"fec0::1", Private},
		{"::ffff:10.1.2.3", Private},
		{"64:ff9b::a01:203", Private}, // NAT64 of 10.1.2.3
		{"169.254.0.1", LinkLocal},
		{"169.254.170.2", LinkLocal}, // ECS task metadata: link-local anyway
		{"fe80::1", LinkLocal},
		{"fe80::1%eth0", LinkLocal},
		{"::ffff:169.254.1.1", LinkLocal},
		{"169.254.169.254", Metadata},
		{"::ffff:169.254.169.254", Metadata},
		{"64:ff9b::a9fe:a9fe", Metadata}, // NAT64 of 169.254.169.254
		{"fd00:ec2::254", Metadata},
		{"100.100.100.200", Metadata},
		{"224.0.0.1", Multicast},
		{"239.1.2.3", Multicast},
		{"255.255.255.255", Multicast},
		{"ff02::1", Multicast},
	} {
		if got := Classify(netip.MustParseAddr(tc.addr)); got != tc.want {
			t.Errorf("Classify(%s) = %s, want %s", tc.addr, got, tc.want)
		}
	}
}

func TestPolicyCheck(t *testing.T) {
	t.Parallel()
	allow := []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16"), netip.MustParsePrefix("127.0.0.2/32"),
		netip.MustParsePrefix("169.254.0.0/16"), netip.MustParsePrefix("0.0.0.0/0"), netip.MustParsePrefix("fd00::/8")}
	none := Policy{}
	priv := Policy{AllowPrivate: true}
	loop := Policy{AllowLoopback: true}
	both := Policy{AllowPrivate: true, AllowLoopback: true}
	list := Policy{Allow: allow[:2]}
	wide := Policy{Allow: allow}
	for _, tc := range []struct {
		addr string
		p    Policy
		ok   bool
	}{
		{"8.8.8.8", none, true},
		{"2606:4700:4700::1111", none, true},
		{"127.0.0.1", none, false},
		{"127.0.0.1", priv, false},
		{"127.0.0.1", loop, true},
		{"::1", loop, true},
		{"0.0.0.0", none, false},
		{"0.0.0.0", loop, true},
		{"10.0.0.1", none, false},
		{"10.0.0.1", loop, false},
		{"10.0.0.1", priv, true},
		{"fc00::1", priv, true},
		{"192.168.0.10", both, true},
		{"10.1.2.3", list, true},
		{"::ffff:10.1.2.3", list, true},
		{"10.2.0.1", list, false},
		{"127.0.0.2", list, true},
		{"127.0.0.1", list, false},
		// Never allowed, whatever the policy says.
		{"169.254.169.254", both, false},
		{"169.254.169.254", wide, false},
		{"169.254.1.1", wide, false},
		{"fe80::1", both, false},
		{"fd00:ec2::254", both, false},
		{"fd00:ec2::254", wide, false},
		{"100.100.100.200", both, false},
		{"100.100.100.200", wide, false},
		{"::ffff:169.254.169.254", wide, false},
		{"224.0.0.1", wide, false},
		// Allow opens what it holds among private and loopback.
		{"10.9.9.9", wide, true},
		{"127.0.0.1", wide, true},
	} {
		err := tc.p.Check(netip.MustParseAddr(tc.addr))
		if (err == nil) != tc.ok {
			t.Errorf("Check(%s) with %+v = %v, want allowed %v", tc.addr, tc.p, err, tc.ok)
		}
		if err != nil {
			var re *RefusedError
			if !errors.Is(err, ErrRefused) || !errors.As(err, &re) || re.Addr.String() == "" || !strings.Contains(err.Error(), "egress: refused") {
				t.Errorf("Check(%s): %v is not a *RefusedError naming the address", tc.addr, err)
			}
		}
	}
}

func TestControlRefusesWhatIsNotAnAddress(t *testing.T) {
	t.Parallel()
	for _, a := range []string{"localhost:80", "example.com:443", "10.0.0.1"} {
		if err := (Policy{AllowPrivate: true, AllowLoopback: true}).Control("tcp", a, nil); !errors.Is(err, ErrRefused) {
			t.Errorf("Control(%q) = %v, want refused", a, err)
		}
	}
	if err := (Policy{}).Control("tcp", "[fe80::1%lo]:80", nil); !errors.Is(err, ErrRefused) {
		t.Errorf("Control(link-local with zone) = %v, want refused", err)
	}
	if err := (Policy{}).Control("tcp", "93.184.215.14:443", nil); err != nil {
		t.Errorf("Control(public) = %v", err)
	}
}

func TestParseAllow(t *testing.T) {
	t.Parallel()
	got, err := ParseAllow([]string{"10.1.2.3/16", "192.168.1.5", "fd00::/8"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"10.1.0.0/16", "192.168.1.5/32", "fd00::/8"}
	for i, p := range got {
		if p.String() != want[i] {
			t.Errorf("prefix %d = %s, want %s", i, p, want[i])
		}
	}
	if _, err := ParseAllow([]string{"10.0.0.0/8", "nope"}); err == nil || !strings.Contains(err.Error(), `[1]: "nope"`) {
		t.Errorf("ParseAllow(nope) = %v", err)
	}
}

// TestClientRefusesAtDial: a hostname that resolves to a refused address
// is refused when dialed (the check is on the resolved address, not the
// URL's text), before any byte is sent; the same server is reached when
// the policy allows loopback.
func TestClientRefusesAtDial(t *testing.T) {
	t.Parallel()
	hit := make(chan struct{}, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hit <- struct{}{}
		_, _ = io.WriteString(w, "ok")
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	byName := "http://localhost:" + port + "/"
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, u := range []string{byName, srv.URL} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		resp, err := Policy{AllowPrivate: true}.Client(5 * time.Second).Do(req)
		if err == nil {
			resp.Body.Close()
			t.Fatalf("GET %s: answered %s, want refused at dial", u, resp.Status)
		}
		var re *RefusedError
		if !errors.As(err, &re) || re.Class != Loopback {
			t.Fatalf("GET %s: %v, want a *RefusedError for a loopback address", u, err)
		}
	}
	select {
	case <-hit:
		t.Fatal("the server was reached")
	default:
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, byName, nil)
	resp, err := Policy{AllowLoopback: true}.Client(5 * time.Second).Do(req)
	if err != nil {
		t.Fatalf("GET %s with loopback allowed: %v", byName, err)
	}
	resp.Body.Close()
}

// TestClientRefusesRedirectTarget: a redirect to a refused address is
// refused when the client dials it, though the first server was allowed.
func TestClientRefusesRedirectTarget(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no second loopback address here: %v", err)
	}
	reached := make(chan struct{}, 1)
	target := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		reached <- struct{}{}
	})}}
	target.Start()
	defer target.Close()
	front := httptest.NewServer(http.RedirectHandler(target.URL+"/", http.StatusFound))
	defer front.Close()
	p := Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, front.URL, nil)
	resp, err := p.Client(5 * time.Second).Do(req)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("answered %s, want the redirect refused", resp.Status)
	}
	var re *RefusedError
	if !errors.As(err, &re) || re.Addr != netip.MustParseAddr("127.0.0.2") {
		t.Fatalf("%v, want a *RefusedError for 127.0.0.2", err)
	}
	select {
	case <-reached:
		t.Fatal("the redirect's target was reached")
	default:
	}
}

// TestDialerKeepsBaseHook: the policy's check runs first, then the base
// dialer's own hook; a refused address never reaches it.
func TestDialerKeepsBaseHook(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	var called atomic.Int32
	base := &net.Dialer{ControlContext: func(context.Context, string, string, syscall.RawConn) error { called.Add(1); return nil }}
	ctx := context.Background()
	if _, err := (Policy{}).Dialer(base).DialContext(ctx, "tcp", ln.Addr().String()); !errors.Is(err, ErrRefused) || called.Load() != 0 {
		t.Fatalf("refused dial: %v, base hook called %d times", err, called.Load())
	}
	c, err := (Policy{AllowLoopback: true}).Dialer(base).DialContext(ctx, "tcp", ln.Addr().String())
	if err != nil || called.Load() != 1 {
		t.Fatalf("allowed dial: %v, base hook called %d times", err, called.Load())
	}
	c.Close()
}
