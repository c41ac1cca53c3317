package node

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/processor"
	"github.com/ordolabs/ordo/internal/store"
)

// TestEgressPolicyDefaults: loopback is allowed in dev mode only, unless
// the config says otherwise; private ranges only when allowed; a bad
// prefix is refused by Validate, naming the field.
func TestEgressPolicyDefaults(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	for _, tc := range []struct {
		name              string
		e                 EgressConfig
		dev               bool
		loopback, private bool
		allow             int
	}{
		{"default", EgressConfig{}, false, false, false, 0},
		{"dev mode", EgressConfig{}, true, true, false, 0},
		{"dev mode, loopback refused", EgressConfig{AllowLoopback: &no}, true, false, false, 0},
		{"loopback allowed", EgressConfig{AllowLoopback: &yes}, false, true, false, 0},
		{"private and a prefix", EgressConfig{AllowPrivate: true, Allow: []string{"10.1.0.0/16", "fd00::1"}}, false, false, true, 2},
	} {
		p, err := tc.e.policy(tc.dev)
		if err != nil || p.AllowLoopback != tc.loopback || p.AllowPrivate != tc.private || len(p.Allow) != tc.allow {
			t.Errorf("%s: %+v, %v", tc.name, p, err)
		}
	}
	ex, err := LoadConfig("../../docs/ordo.example.yaml")
	if err != nil || ex.Egress.AllowLoopback != nil || ex.Egress.AllowPrivate || len(ex.Egress.Allow) != 0 {
		t.Errorf("the example config's egress block is not the defaults: %+v, %v", ex.Egress, err)
	}
	c := Config{DevSenders: 1, Egress: EgressConfig{Allow: []string{"10.0.0.0/33"}}}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "egress.allow: [0]") {
		t.Errorf("Validate with a bad prefix: %v", err)
	}
}

// TestEgressCallbackRefused: a processor's callback URL on loopback is
// refused at the dial by a node outside dev mode (the callback stays
// pending, retried, its last error naming the egress policy, the receiver
// never reached); with egress.allowLoopback the same callback is
// delivered.
func TestEgressCallbackRefused(t *testing.T) {
	t.Parallel()
	for _, allow := range []bool{false, true} {
		t.Run(map[bool]string{false: "refused", true: "allowed"}[allow], func(t *testing.T) {
			t.Parallel()
			var hits atomic.Int32
			recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				hits.Add(1)
				w.WriteHeader(http.StatusNoContent)
			}))
			defer recv.Close()
			h := startITNode(t, func(c *Config) {
				c.Principals = append(c.Principals, auth.PrincipalConfig{Principal: "admin", Token: "egress-admin-token-0123", Roles: []auth.Role{auth.RoleAdmin}})
				c.Processor.BackoffMin = Duration(20 * time.Millisecond)
				c.Processor.BackoffMax = Duration(50 * time.Millisecond)
				if allow {
					c.Egress.AllowLoopback = &allow
				}
			})
			select {
			case <-h.n.Processor.Started():
			case <-time.After(10 * time.Second):
				t.Fatal("the processor did not start within 10s")
			}
			call := func(method, path, body string) []byte {
				t.Helper()
				req, _ := http.NewRequest(method, "http://"+h.addr+path, bytes.NewBufferString(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer egress-admin-token-0123")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
				}
				return b
			}
			call("POST", "/v1/processors", `{"name":"p","owner":"admin","callbackURL":"`+recv.URL+`/cb"}`)
			call("POST", "/v1/processors/p/batches", `{"id":"b1","priority":"high","msgs":[{"contract":"library","method":"ok"}],"actionsConfig":{"atomic":{"actions":[{}]}}}`)
			call("POST", "/v1/processors/p/tick", `{}`)
			deadline := time.Now().Add(30 * time.Second)
			for {
				var page processor.CallbacksPage
				if err := json.Unmarshal(call("GET", "/v1/processors/p/callbacks", ""), &page); err != nil {
					t.Fatal(err)
				}
				if len(page.Callbacks) == 1 {
					cb := page.Callbacks[0]
					if !allow && cb.State == store.CallbackDelivered {
						t.Fatalf("callback %+v delivered to loopback outside dev mode", cb)
					}
					if !allow && cb.Attempts >= 2 {
						if cb.State == store.CallbackDelivered || !strings.Contains(cb.LastError, "egress: refused to connect to 127.0.0.1: a loopback address") {
							t.Fatalf("callback %+v: want pending, refused by the egress policy", cb)
						}
						if n := hits.Load(); n != 0 {
							t.Fatalf("the receiver was reached %d times", n)
						}
						return
					}
					if allow && cb.State == store.CallbackDelivered {
						if hits.Load() != 1 {
							t.Fatalf("delivered, the receiver reached %d times", hits.Load())
						}
						return
					}
				}
				if time.Now().After(deadline) {
					t.Fatalf("callbacks after 30s: %+v", page.Callbacks)
				}
				time.Sleep(20 * time.Millisecond) // polling the node's API
			}
		})
	}
}
