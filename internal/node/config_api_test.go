package node

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/client"
	"github.com/ordolabs/ordo/internal/auth"
)

// Dev mode listens on loopback only, unless the operator passes the
// switch; outside dev mode every address is accepted.
func TestCheckDevModeAddress(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		listen string
		ok     bool
	}{
		{"127.0.0.1:7070", true},
		{"127.0.0.2:0", true},
		{"[::1]:7070", true},
		{"localhost:7070", true},
		{"LocalHost:7070", true},
		{"0.0.0.0:7070", false},
		{":7070", false},
		{"[::]:7070", false},
		{"192.168.1.5:7070", false},
		{"10.0.0.1:7070", false},
		{"node.example.com:7070", false},
		{"localhost.example.com:7070", false},
	} {
		dev := Config{DevMode: true}
		err := dev.CheckDevModeAddress(tc.listen)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrDevModePublic)) {
			t.Errorf("dev mode on %s: %v, want ok %v", tc.listen, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), DevModeOnPublicAddressFlag) {
			t.Errorf("the refusal does not name the switch: %v", err)
		}
		dev.API.DevModeOnPublicAddress = true
		if err := dev.CheckDevModeAddress(tc.listen); err != nil {
			t.Errorf("dev mode with the switch on %s: %v", tc.listen, err)
		}
		if err := (Config{}).CheckDevModeAddress(tc.listen); err != nil {
			t.Errorf("outside dev mode on %s: %v", tc.listen, err)
		}
	}
}

// A node in dev mode bound to every interface does not start without the
// switch (nothing is served), and starts with it.
func TestDevModeOnPublicAddressRefused(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	cfg := Config{DevMode: true, DevSenders: 1}
	_, err := StartLocal(context.Background(), cfg, Options{Logger: log}, "0.0.0.0:0")
	if !errors.Is(err, ErrDevModePublic) {
		t.Fatalf("dev mode on 0.0.0.0: %v, want ErrDevModePublic", err)
	}
	cfg.API.DevModeOnPublicAddress = true
	l, err := StartLocal(context.Background(), cfg, Options{Logger: log}, "0.0.0.0:0")
	if err != nil {
		t.Fatalf("dev mode on 0.0.0.0 with the switch: %v", err)
	}
	if err := l.Stop(); err != nil {
		t.Fatal(err)
	}
}

// selfSigned writes a self-signed certificate for 127.0.0.1 and its key
// as PEM files in dir.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ordo test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "api.crt"), filepath.Join(dir, "api.key")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

// With api.tls the node serves HTTPS: the Go client trusts its
// self-signed certificate through a CA file and sends an intent; a client
// that trusts only the system's CAs, and plain HTTP, are refused.
func TestAPIServesTLS(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := selfSigned(t, dir)
	const token = "tls-test-submit-token-0123"
	cfg := Config{DevSenders: 1, Principals: []auth.PrincipalConfig{{Principal: "app", Token: token, Roles: []auth.Role{auth.RoleSubmit, auth.RoleRead}}}}
	cfg.API.TLS = APITLSConfig{CertFile: certFile, KeyFile: keyFile}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	l, err := StartLocal(context.Background(), cfg, Options{Logger: slog.New(slog.DiscardHandler)}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Stop(); err != nil {
			t.Error(err)
		}
	})
	ctx := t.Context()
	c := client.New("https://"+l.Addr, nil, client.WithToken(token), client.WithCAFile(certFile))
	tx, created, err := c.Send(ctx, client.Intake{Queue: "tls", Type: "CREATE_CLAIM_VOTING_ACCOUNT", Data: []byte(`{}`)})
	if err != nil || !created || tx.UID == "" {
		t.Fatalf("Send over TLS: %+v %v %v", tx, created, err)
	}
	if _, _, err := c.Get(ctx, tx.UID); err != nil {
		t.Fatalf("Get over TLS: %v", err)
	}
	var ue x509.UnknownAuthorityError
	if _, err := client.New("https://"+l.Addr, nil, client.WithToken(token)).Senders(ctx); !errors.As(err, &ue) {
		t.Fatalf("a client trusting the system's CAs only: %v, want an unknown authority", err)
	}
	resp, err := http.Get("http://" + l.Addr + "/healthz")
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("plain HTTP to a TLS node: %d", resp.StatusCode)
		}
	}
	if _, err := client.New("https://"+l.Addr, nil, client.WithCAFile(filepath.Join(dir, "none.pem"))).Senders(ctx); err == nil || !strings.Contains(err.Error(), "CA file") {
		t.Fatalf("a missing CA file: %v", err)
	}
	// A TLS 1.1 client is refused.
	conn, err := tls.Dial("tcp", l.Addr, &tls.Config{MaxVersion: tls.VersionTLS11, InsecureSkipVerify: true}) //nolint:gosec // the point of the check
	if err == nil {
		conn.Close()
		t.Fatal("a TLS 1.1 handshake succeeded")
	}
}

// The api section's own mistakes are named by Validate.
func TestValidateAPI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	certFile, keyFile := selfSigned(t, dir)
	ps := []auth.PrincipalConfig{{Principal: "app", Token: "validate-api-token-0123456", Roles: []auth.Role{auth.RoleSubmit}}}
	for _, tc := range []struct {
		name string
		set  func(*Config)
		want string // "" for valid
	}{
		{"tls", func(c *Config) { c.API.TLS = APITLSConfig{CertFile: certFile, KeyFile: keyFile} }, ""},
		{"tls without a key", func(c *Config) { c.API.TLS = APITLSConfig{CertFile: certFile} }, "api.tls: certFile and keyFile go together"},
		{"tls, missing file", func(c *Config) { c.API.TLS = APITLSConfig{CertFile: certFile, KeyFile: dir + "/nope"} }, "api.tls.keyFile"},
		{"intake limit", func(c *Config) {
			c.API.IntakeLimit = IntakeLimitConfig{Limit: auth.Limit{PerSecond: 10, Burst: 20}, Principals: map[string]auth.Limit{"app": {}}}
		}, ""},
		{"negative rate", func(c *Config) { c.API.IntakeLimit.PerSecond = -1 }, "api.intakeLimit.perSecond"},
		{"negative burst", func(c *Config) { c.API.IntakeLimit.Burst = -1 }, "api.intakeLimit.burst"},
		{"limit of no principal", func(c *Config) { c.API.IntakeLimit.Principals = map[string]auth.Limit{"mallory": {PerSecond: 1}} },
			"api.intakeLimit.principals.mallory: names no principal"},
	} {
		c := Config{Principals: ps, DevSenders: 1}
		tc.set(&c)
		err := c.Validate()
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// In dev mode (every caller an admin, no token) every mutating route of
// the node, the in-process chain's, POST /rpc and the replicated queues'
// included, refuses a text/plain, form or untyped request with 415 and
// changes nothing: a page on another origin cannot post to it.
func TestDevModeMutatingRoutesTakeOnlyJSON(t *testing.T) {
	n, err := Build(context.Background(), Config{Data: t.TempDir(), DevSenders: 1, DevMode: true}, Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	srv := httptest.NewServer(n.Handler)
	t.Cleanup(srv.Close)
	mutating := 0
	for _, ri := range n.Router.Routes() {
		method, path, _ := strings.Cut(ri.Pattern, " ")
		if method == http.MethodGet {
			continue
		}
		mutating++
		path = strings.NewReplacer("{name}", "q", "{priority}", "high", "{position}", "0").Replace(path)
		for _, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded"} {
			before, _ := n.Devchain.Head(context.Background())
			h := http.Header{}
			if ct != "" {
				h.Set("Content-Type", ct)
			}
			a := call(t, srv.URL, method, path, `{"jsonrpc":"2.0","id":1,"method":"ptx_sendTransaction","params":[]}`, h)
			if a.status != http.StatusUnsupportedMediaType || a.code != "unsupported_media_type" {
				t.Errorf("%s with %q: %d %s, want 415", ri.Pattern, ct, a.status, a.msg)
			}
			if after, _ := n.Devchain.Head(context.Background()); after.Height != before.Height {
				t.Errorf("%s with %q moved the chain", ri.Pattern, ct)
			}
		}
	}
	if mutating < 10 {
		t.Fatalf("%d mutating routes; the node has more", mutating)
	}
}
