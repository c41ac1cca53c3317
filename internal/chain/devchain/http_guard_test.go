package devchain_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
)

// Every POST and PUT route takes only Content-Type: application/json (the
// rule of the node's API, shared through httpjson): anything else is 415
// unsupported_media_type before the body is read, and changes nothing.
// Reads need no content type.
func TestHTTPMutatingRoutesNeedJSON(t *testing.T) {
	e := newEnv(t, devchain.Config{})
	tx := string(txJSON(t, deployTx(e.dev, 0, "ct")))
	faucet := `{"address":"` + string(e.dev) + `","amount":5}`
	routes := []struct {
		method, path, body string
		ok                 int // the status with Content-Type: application/json
	}{
		{"POST", "/v1/tx", tx, 200},
		{"POST", "/v1/call", `{"contract":"zkapp","method":"get","args":{"zkapp":"none"}}`, 422},
		{"PUT", "/v1/faults", `{"rejectProb":1}`, 200},
		{"POST", "/v1/faucet", faucet, 200},
		{"POST", "/v1/dev/mine", "", 200},
	}
	refused := []struct {
		name string
		ct   []string // nil: no Content-Type header
	}{
		{"none", nil},
		{"empty", []string{""}},
		{"text/plain (a fetch without preflight)", []string{"text/plain;charset=UTF-8"}},
		{"a form post", []string{"application/x-www-form-urlencoded"}},
		{"multipart form", []string{"multipart/form-data; boundary=x"}},
		{"text/json", []string{"text/json"}},
		{"a prefix of application/json", []string{"application/jsonx"}},
		{"another charset", []string{"application/json; charset=iso-8859-1"}},
		{"two headers", []string{"application/json", "text/plain"}},
	}
	for _, rt := range routes {
		for _, ct := range refused {
			t.Run(rt.method+" "+rt.path+", "+ct.name, func(t *testing.T) {
				before := e.snap(t)
				h := http.Header{}
				if ct.ct != nil {
					h["Content-Type"] = ct.ct
				}
				r := e.rawWith(t, rt.method, rt.path, []byte(rt.body), h)
				checkError(t, r, http.StatusUnsupportedMediaType, devchain.CodeUnsupportedMediaType)
				if !strings.Contains(string(r.body), "Content-Type: application/json") {
					t.Errorf("the message does not say what to send: %s", r.body)
				}
				if after := e.snap(t); after != before {
					t.Errorf("a 415 changed the chain:\nbefore %+v\n after %+v", before, after)
				}
			})
		}
	}
	// Accepted: application/json, in any case, with a utf-8 charset or
	// another parameter.
	for i, ct := range []string{"application/json", "Application/JSON; Charset=UTF-8", "application/json; v=1"} {
		rt := routes[len(routes)-1-i%2] // mine, faucet, mine
		t.Run("accepted "+ct+" "+rt.path, func(t *testing.T) {
			r := e.rawWith(t, rt.method, rt.path, []byte(rt.body), http.Header{"Content-Type": {ct}})
			if r.status != rt.ok {
				t.Fatalf("status %d, want %d: %s", r.status, rt.ok, r.body)
			}
		})
	}
	for _, rt := range routes {
		t.Run("json "+rt.method+" "+rt.path, func(t *testing.T) {
			r := e.raw(t, rt.method, rt.path, []byte(rt.body))
			if r.status != rt.ok {
				t.Fatalf("status %d, want %d: %s", r.status, rt.ok, r.body)
			}
		})
	}
	// Reads need none; an unknown route or a wrong method is still 404 or
	// 405, not 415.
	for _, tt := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/v1/head", 200},
		{"GET", "/v1/faults", 200},
		{"POST", "/v1/nope", 404},
		{"POST", "/v1/head", 405},
	} {
		r := e.rawWith(t, tt.method, tt.path, nil, http.Header{})
		if r.status != tt.status {
			t.Errorf("%s %s without a content type: %d %s, want %d", tt.method, tt.path, r.status, r.body, tt.status)
		}
	}
}

// A ReadOnly handler (what a node serves without dev mode) serves the read
// routes and answers every other 403 read_only naming the route and the
// reason, changing nothing.
func TestHTTPReadOnly(t *testing.T) {
	e := newEnv(t, devchain.Config{})
	const why = "turn it on with --dev-mode"
	ro := httptest.NewServer(devchain.NewHandler(e.chain, devchain.ReadOnly(why)))
	t.Cleanup(ro.Close)
	// A zkApp to read, through the full handler.
	if r := e.raw(t, "POST", "/v1/tx", txJSON(t, deployTx(e.dev, 0, "ro"))); r.status != 200 {
		t.Fatalf("deploy: %d %s", r.status, r.body)
	}
	if r := e.raw(t, "POST", "/v1/dev/mine", nil); r.status != 200 {
		t.Fatalf("mine: %d %s", r.status, r.body)
	}
	ctx := context.Background()
	hd, err := e.chain.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	bs, err := e.chain.Blocks(ctx, hd.Height, hd.Height)
	if err != nil || len(bs) != 1 || len(bs[0].Txs) != 1 {
		t.Fatalf("blocks %+v %v", bs, err)
	}
	hash := string(bs[0].Txs[0].Hash)
	roEnv := &env{chain: e.chain, srv: ro, dev: e.dev}

	tests := []struct {
		route, path, body string
		status            int
		code              string
	}{
		{"GET /v1/head", "/v1/head", "", 200, ""},
		{"GET /v1/identity", "/v1/identity", "", 200, ""},
		{"GET /v1/blocks", "/v1/blocks?from=1&to=2", "", 200, ""},
		{"GET /v1/tx/{hash}", "/v1/tx/" + hash, "", 200, ""},
		{"GET /v1/accounts/{address}", "/v1/accounts/" + string(e.dev), "", 200, ""},
		{"GET /v1/minfee", "/v1/minfee", "", 200, ""},
		{"GET /v1/events", "/v1/events?cursor=0", "", 200, ""},
		{"POST /v1/call", "/v1/call", `{"contract":"zkapp","method":"get","args":{"zkapp":"ro"}}`, 200, ""},

		{"POST /v1/tx", "/v1/tx", string(txJSON(t, deployTx(e.dev, 1, "ro2"))), 403, devchain.CodeReadOnly},
		{"GET /v1/faults", "/v1/faults", "", 403, devchain.CodeReadOnly},
		{"PUT /v1/faults", "/v1/faults", `{"rejectProb":1}`, 403, devchain.CodeReadOnly},
		{"POST /v1/faucet", "/v1/faucet", `{"address":"` + string(e.dev) + `","amount":5}`, 403, devchain.CodeReadOnly},
		{"GET /v1/dev/accounts", "/v1/dev/accounts", "", 403, devchain.CodeReadOnly},
		{"POST /v1/dev/mine", "/v1/dev/mine", "", 403, devchain.CodeReadOnly},
		// The rules of every route still hold.
		{"POST /v1/dev/mine", "/v1/dev/mine", "", 415, devchain.CodeUnsupportedMediaType},
		{"DELETE /v1/head", "/v1/head", "", 405, "method_not_allowed"},
	}
	served := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.route+" "+tt.code, func(t *testing.T) {
			before := e.snap(t)
			method, _, _ := strings.Cut(tt.route, " ")
			var r rawResponse
			if tt.code == devchain.CodeUnsupportedMediaType {
				r = roEnv.rawWith(t, method, tt.path, []byte(tt.body), http.Header{"Content-Type": {"text/plain"}})
			} else {
				r = roEnv.raw(t, method, tt.path, []byte(tt.body))
			}
			if tt.code == "" {
				if r.status != tt.status {
					t.Fatalf("status %d, want %d: %s", r.status, tt.status, r.body)
				}
				served[tt.route] = true
				return
			}
			checkError(t, r, tt.status, tt.code)
			if tt.code == devchain.CodeReadOnly && (!strings.Contains(string(r.body), tt.route) || !strings.Contains(string(r.body), why)) {
				t.Errorf("the message names neither the route nor why: %s", r.body)
			}
			if after := e.snap(t); after != before {
				t.Errorf("a refused request changed the chain:\nbefore %+v\n after %+v", before, after)
			}
		})
	}
	// The subscription is a read too.
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	heads, err := devchain.NewClient(ro.URL, nil).SubscribeHeads(sctx)
	if err != nil || heads == nil {
		t.Fatalf("subscribe through a read-only handler: %v", err)
	}
	served["GET /v1/blocks/subscribe"] = true
	for _, r := range devchain.ReadRoutes {
		if !served[r] {
			t.Errorf("read route %s not tried", r)
		}
	}
	if slices.Contains(devchain.ReadRoutes, "POST /v1/tx") {
		t.Errorf("POST /v1/tx is a read route")
	}
}

// The client sends Content-Type: application/json with every POST and PUT,
// a body or none (mine).
func TestClientSendsJSONContentType(t *testing.T) {
	e := newEnv(t, devchain.Config{})
	var mu sync.Mutex
	seen := map[string][]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Method+" "+r.URL.Path] = r.Header.Values("Content-Type")
		mu.Unlock()
		devchain.NewHandler(e.chain).ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	c := devchain.NewClient(srv.URL, nil)
	t.Cleanup(c.CloseIdleConnections)
	ctx := context.Background()
	if _, _, err := c.Mine(ctx); err != nil {
		t.Fatalf("mine: %v", err)
	}
	if _, err := c.SetFaults(ctx, devchain.FaultUpdate{RejectProb: ptr(0.0)}); err != nil {
		t.Fatalf("faults: %v", err)
	}
	if _, err := c.Faucet(ctx, e.dev, 1); err != nil {
		t.Fatalf("faucet: %v", err)
	}
	if _, err := c.SendTx(ctx, deployTx(e.dev, 0, "cl")); err != nil {
		t.Fatalf("send: %v", err)
	}
	if _, err := c.Call(ctx, "zkapp", "get", json.RawMessage(`{"zkapp":"cl"}`)); err != nil && chain.CodeOf(err) != chain.ErrCallFailed.Code {
		t.Fatalf("call: %v", err)
	}
	for _, route := range []string{"POST /v1/dev/mine", "PUT /v1/faults", "POST /v1/faucet", "POST /v1/tx", "POST /v1/call"} {
		if got := seen[route]; !slices.Equal(got, []string{"application/json"}) {
			t.Errorf("%s: Content-Type %q", route, got)
		}
	}
}
