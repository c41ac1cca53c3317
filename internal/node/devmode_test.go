package node

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/testkit"
)

// devchainRoute is one route of the in-process devchain as a request, with
// whether it only reads the chain.
type devchainRoute struct {
	method, path, body string
	read               bool
}

func devchainRoutes(dev chain.Address) []devchainRoute {
	tx := `{"from":"` + string(dev) + `","nonce":0,"fee":1000,"contract":"zkapp","method":"deploy","args":{"zkapp":"dm"},"memo":"m"}`
	return []devchainRoute{
		{"GET", "/v1/head", "", true},
		{"GET", "/v1/blocks?from=1&to=1", "", true},
		{"GET", "/v1/accounts/" + string(dev), "", true},
		{"GET", "/v1/tx/" + strings.Repeat("ab", 32), "", true},
		{"GET", "/v1/minfee", "", true},
		{"GET", "/v1/events?cursor=0", "", true},
		{"POST", "/v1/call", `{"contract":"zkapp","method":"get","args":{"zkapp":"none"}}`, true},
		{"POST", "/v1/tx", tx, false},
		{"GET", "/v1/faults", "", false},
		{"PUT", "/v1/faults", `{"rejectProb":0}`, false},
		{"POST", "/v1/faucet", `{"address":"` + string(dev) + `","amount":1}`, false},
		{"GET", "/v1/dev/accounts", "", false},
		{"POST", "/v1/dev/mine", "", false},
	}
}

type answer struct {
	status int
	code   string
	msg    string
}

func call(t *testing.T, url, method, path, body string, h http.Header) answer {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, msg: string(b)}
	if resp.StatusCode >= 400 {
		var eb struct {
			Error struct{ Code, Message string }
		}
		_ = json.Unmarshal(b, &eb)
		a.code = eb.Error.Code
	}
	return a
}

// Dev mode is the one switch for the node's openness: with it, the
// in-process devchain's routes that change the chain are served on the
// node's address; without it (the default) only its reads are, and the
// others answer 403 read_only naming --dev-mode. Either way a mutating
// request needs Content-Type: application/json.
func TestDevModeServesTheChainsDevRoutes(t *testing.T) {
	for _, devMode := range []bool{false, true} {
		name := "off"
		if devMode {
			name = "on"
		}
		t.Run(name, func(t *testing.T) {
			// Outside dev mode the caller is an admin (by its token): the
			// chain's dev routes are still not served.
			const token = "devmode-test-admin-token"
			n, err := Build(context.Background(), Config{Data: t.TempDir(), DevSenders: 1, DevMode: devMode,
				Principals: []auth.PrincipalConfig{{Principal: "root", Token: token, Roles: []auth.Role{auth.RoleAdmin}}}}, Options{Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { n.Close() })
			srv := httptest.NewServer(n.Handler)
			t.Cleanup(srv.Close)
			devs, err := n.Devchain.DevAccounts(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, rt := range devchainRoutes(devs[0].Address) {
				t.Run(rt.method+" "+rt.path, func(t *testing.T) {
					before, _ := n.Devchain.Head(context.Background())
					hd := http.Header{"Content-Type": {"application/json"}}
					if !devMode {
						hd.Set("Authorization", "Bearer "+token)
					}
					a := call(t, srv.URL, rt.method, rt.path, rt.body, hd)
					switch {
					case rt.read || devMode:
						if a.status == http.StatusForbidden || a.status >= 500 {
							t.Fatalf("%d %s", a.status, a.msg)
						}
					default:
						if a.status != http.StatusForbidden || a.code != devchain.CodeReadOnly || !strings.Contains(a.msg, "--dev-mode") {
							t.Fatalf("%d %s; want 403 read_only naming --dev-mode", a.status, a.msg)
						}
						if after, _ := n.Devchain.Head(context.Background()); after.Height != before.Height {
							t.Errorf("a refused %s %s moved the head %d → %d", rt.method, rt.path, before.Height, after.Height)
						}
					}
					if rt.method != "GET" {
						hd.Set("Content-Type", "text/plain")
						a := call(t, srv.URL, rt.method, rt.path, rt.body, hd)
						if a.status != http.StatusUnsupportedMediaType || a.code != "unsupported_media_type" {
							t.Errorf("text/plain: %d %s, want 415", a.status, a.msg)
						}
					}
				})
			}
		})
	}
}

// A node in dev mode warns at start; one outside it says nothing of it.
func TestDevModeWarnsAtStart(t *testing.T) {
	for _, tt := range []struct {
		devMode bool
		warned  bool
	}{{false, false}, {true, true}} {
		var buf testkit.LogBuffer
		log := slog.New(slog.NewTextHandler(&buf, nil))
		l, err := StartLocal(context.Background(), Config{DevSenders: 1, DevMode: tt.devMode}, Options{Logger: log}, "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Stop(); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if got := strings.Contains(out, "level=WARN") && strings.Contains(out, "dev mode is on") && strings.Contains(out, "access is open: every caller is an admin"); got != tt.warned {
			t.Errorf("devMode %v: warned %v, want %v; log:\n%s", tt.devMode, got, tt.warned, out)
		}
	}
}

// --dev-senders on a chain without a faucet is refused with a sentence that
// names the chain's URL: a devchain started with --no-dev-mode answers the
// faucet not_dev_mode.
func TestDevSendersNeedAFaucet(t *testing.T) {
	c, err := devchain.New(devchain.Config{NoDevMode: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	srv := httptest.NewServer(devchain.NewHandler(c))
	t.Cleanup(srv.Close)
	n, err := Build(context.Background(), Config{Data: t.TempDir(), Chain: srv.URL, DevSenders: 2}, Options{Logger: slog.New(slog.DiscardHandler)})
	if err == nil {
		n.Close()
		t.Fatal("a node with dev senders started on a chain without a faucet")
	}
	for _, want := range []string{"devSenders", srv.URL, "--no-dev-mode", "not_dev_mode", "--dev-senders 0"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// noFaucetChain is a chain without a faucet; wrapped is one that wraps
// another (a metered chain, say).
type (
	noFaucetChain struct{ chain.Chain }
	wrapped       struct{ chain.Chain }
)

func (w wrapped) Unwrap() chain.Chain { return w.Chain }

func TestFaucetOf(t *testing.T) {
	dc, err := devchain.New(devchain.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dc.Close() })
	for _, tt := range []struct {
		name string
		c    chain.Chain
		want bool
	}{
		{"devchain", dc, true},
		{"its client", devchain.NewClient("http://127.0.0.1:1", nil), true},
		{"a wrapper of devchain", wrapped{dc}, true},
		{"a wrapper of a wrapper", wrapped{wrapped{dc}}, true},
		{"a chain without one", noFaucetChain{dc}, false},
		{"a wrapper of a chain without one", wrapped{noFaucetChain{dc}}, false},
		{"nil", nil, false},
	} {
		if got := faucetOf(tt.c) != nil; got != tt.want {
			t.Errorf("%s: faucet %v, want %v", tt.name, got, tt.want)
		}
	}
	// A node whose dev senders need funds and whose chain has no faucet is
	// refused, naming it.
	n := &Node{Config: Config{DevSenders: 3}, Chain: noFaucetChain{dc}}
	if err := n.noFaucet("has none"); !strings.Contains(err.Error(), "3 dev senders need funds from the chain's faucet, and the in-process devchain has none") {
		t.Errorf("error %q", err)
	}
}
