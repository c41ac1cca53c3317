package api_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/ordolabs/ordo/internal/api"
	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/httpjson"
)

// routeRules is the rule every route of the node's API must have, by
// pattern. TestAccessEveryRoute walks the router's Routes(): a route
// registered without an entry here fails it, as does an entry whose route
// is gone. Add your engine's routes here (and its Routes to accessEnv's
// Engines).
var routeRules = map[string]string{
	// The sequencer.
	"POST /v1/transactions":        "need(submit)",
	"GET /v1/transactions":         "read",
	"GET /v1/transactions/{uid}":   "read",
	"GET /v1/queues":               "read",
	"GET /v1/queues/{name}":        "read",
	"GET /v1/senders":              "read",
	"GET /v1/changes":              "read",
	"GET /v1/session":              "read",
	"GET /v1/stats/history":        "read",
	"POST /v1/senders/{id}/cancel": "need(admin)",
	"GET /healthz":                 "public",
	"GET /readyz":                  "public",
	"GET /metrics":                 "read",
	"GET /openapi.json":            "read",
	"GET /openrpc.json":            "read",
	// The in-process devchain (api.DevchainRoutes).
	"GET /v1/head":               "read",
	"GET /v1/identity":           "read",
	"GET /v1/blocks":             "read",
	"GET /v1/blocks/subscribe":   "read",
	"GET /v1/tx/{hash}":          "read",
	"GET /v1/accounts/{address}": "read",
	"GET /v1/minfee":             "read",
	"GET /v1/events":             "read",
	"POST /v1/call":              "read",
	"POST /v1/tx":                "need(admin)",
	"GET /v1/faults":             "need(admin)",
	"PUT /v1/faults":             "need(admin)",
	"POST /v1/faucet":            "need(admin)",
	"GET /v1/dev/accounts":       "need(admin)",
	"POST /v1/dev/mine":          "need(admin)",
	// The processor (seed 002): an admin creates; the owner (or an admin)
	// changes, checked by the processor against the resource; anyone ticks
	// unless processor.openTick is off.
	"POST /v1/processors":                                       "need(admin)",
	"GET /v1/processors":                                        "read",
	"GET /v1/processors/{name}":                                 "read",
	"POST /v1/processors/{name}/batches":                        "authenticated",
	"POST /v1/processors/{name}/tick":                           "open",
	"POST /v1/processors/{name}/pause":                          "authenticated",
	"POST /v1/processors/{name}/resume":                         "authenticated",
	"DELETE /v1/processors/{name}/queues/{priority}/{position}": "authenticated",
	"GET /v1/processors/{name}/batches/{id}":                    "read",
	"GET /v1/processors/{name}/queues/{priority}":               "read",
	"GET /v1/processors/{name}/callbacks":                       "read",
	"POST /v1/processors/{name}/confirmations":                  "authenticated",
	// The leader (seed 001): reads need read; retrying a Dead event, admin.
	"GET /v1/leader/events":             "read",
	"GET /v1/leader/events/{id}":        "read",
	"GET /v1/leader/channels":           "read",
	"POST /v1/leader/events/{id}/retry": "need(admin)",
	// The ptx_ JSON-RPC API (issue 11): any principal; each method checks
	// its role (send: submit, reads: read).
	"POST /rpc": "authenticated",
	// The distributed sequencer's peers (issue 11).
	"GET /v1/peers":           "read",
	"GET /v1/distseq/intents": "read",
	// The state machine manager (issue 12): reads need read; a manual
	// sync, admin.
	"GET /v1/smm":                 "read",
	"GET /v1/queues/{name}/log":   "read",
	"GET /v1/smm/sets":            "read",
	"POST /v1/queues/{name}/sync": "need(admin)",
	// Add your engine's routes here.
}

// The principals of the access tests, one per role and one without any.
var (
	tokSubmitter = "submitter-token-0123456789"
	tokReader    = "reader-token-0123456789ab"
	tokAdmin     = "admin-token-0123456789abc"
	tokNobody    = "nobody-token-0123456789ab"
	tokUnknown   = "unknown-token-0123456789a"
	allTokens    = []string{tokSubmitter, tokReader, tokAdmin, tokNobody, tokUnknown}
	principals   = []auth.PrincipalConfig{
		{Principal: "submitter", Token: tokSubmitter, Roles: []auth.Role{auth.RoleSubmit}},
		{Principal: "reader", TokenSHA256: auth.TokenSHA256(tokReader), Roles: []auth.Role{auth.RoleRead}},
		{Principal: "admin", Token: tokAdmin, Roles: []auth.Role{auth.RoleAdmin}},
		{Principal: "nobody", Token: tokNobody},
	}
)

// syncBuffer is a log sink safe for the node's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// accessEnv is a node whose API knows the test principals; its logs go to
// logs.
func accessEnv(t *testing.T, o envOptions) (*env, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	o.Principals = principals
	o.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	o.NoRun = true
	return newEnv(t, o), logs
}

// samplePath makes a request path of a pattern's path.
func samplePath(pattern string) (method, path string) {
	method, path, _ = strings.Cut(pattern, " ")
	zero := strings.Repeat("0", 64)
	r := strings.NewReplacer("{uid}", "tx_none", "{name}", "q-none", "{hash}", zero, "{address}", zero)
	return method, r.Replace(path)
}

// sampleBody is a body a mutating route would act on.
func sampleBody(pattern string) []byte {
	switch pattern {
	case "POST /v1/transactions":
		return []byte(`{"queue":"access","type":"` + typ + `"}`)
	case "PUT /v1/faults":
		return []byte(`{"rejectProb":1}`)
	case "POST /v1/faucet":
		return []byte(`{"address":"` + strings.Repeat("0", 64) + `","amount":1}`)
	}
	return []byte(`{}`)
}

// call sends one request with an optional bearer token, in JSON.
func (e *env) call(t *testing.T, pattern, token string) response {
	t.Helper()
	method, _ := samplePath(pattern)
	var body []byte
	if method != http.MethodGet {
		body = sampleBody(pattern)
	}
	return e.callWith(t, pattern, token, []string{"application/json"}, body)
}

// callWith sends one request with an optional bearer token, the given
// Content-Type header values (nil: none) and body.
func (e *env) callWith(t *testing.T, pattern, token string, contentType []string, body []byte) response {
	t.Helper()
	method, path := samplePath(pattern)
	h := http.Header{}
	if contentType != nil {
		h["Content-Type"] = contentType
	}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	req.Header = h
	if pattern == "GET /v1/blocks/subscribe" || pattern == "GET /v1/changes" {
		// A stream: ended at once, so that it answers its headers and
		// returns.
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		req = req.WithContext(ctx)
	}
	rec := httptest.NewRecorder()
	e.handler.ServeHTTP(rec, req)
	return response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

// stateOf is what a refused request must leave as it was: the records, the
// chain's head and its fault knobs.
func (e *env) stateOf(t *testing.T) string {
	t.Helper()
	hd, err := e.Chain.Head(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join([]string{
		strings.Repeat("r", countRecords(t, e.store)),
		strings.Repeat("b", int(hd.Height)),
		e.call(t, "GET /v1/faults", tokAdmin).String(),
	}, "|")
}

func (r response) String() string { return string(r.body) }

func TestAccessEveryRoute(t *testing.T) {
	e, logs := accessEnv(t, envOptions{})
	seen := map[string]bool{}
	for _, ri := range e.Router.Routes() {
		want, ok := routeRules[ri.Pattern]
		if !ok {
			t.Errorf("route %s has no entry in routeRules: add it with its rule (%s)", ri.Pattern, ri.Rule)
			continue
		}
		seen[ri.Pattern] = true
		if got := ri.Rule.String(); got != want {
			t.Errorf("route %s has the rule %s, want %s", ri.Pattern, got, want)
			continue
		}
		t.Run(ri.Pattern, func(t *testing.T) { checkRoute(t, e, ri) })
	}
	for p := range routeRules {
		if !seen[p] {
			t.Errorf("routeRules lists %s, which the router does not have", p)
		}
	}
	for _, tok := range allTokens {
		if strings.Contains(logs.String(), tok) {
			t.Fatalf("the node's logs print a token: %s", logs.String())
		}
	}
}

// checkRoute checks one route against its rule: without a token and with
// an unknown one, 401; a principal without the role, 403; the right one,
// neither; and after a 401 or 403 nothing changed.
func checkRoute(t *testing.T, e *env, ri auth.RouteInfo) {
	method, _ := samplePath(ri.Pattern)
	refused := func(token string, status int, code string) {
		t.Helper()
		before := ""
		if method != http.MethodGet {
			before = e.stateOf(t)
		}
		r := e.call(t, ri.Pattern, token)
		if r.status != status || r.errCode() != code {
			t.Fatalf("token %q: %d %s, want %d %s", token, r.status, r.body, status, code)
		}
		if status == http.StatusUnauthorized && !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
			t.Fatalf("401 without WWW-Authenticate: Bearer: %v", r.header)
		}
		for _, tok := range allTokens {
			if strings.Contains(string(r.body), tok) {
				t.Fatalf("the answer quotes a token: %s", r.body)
			}
		}
		if method != http.MethodGet {
			if after := e.stateOf(t); after != before {
				t.Fatalf("a refused %s changed the node: %s → %s", ri.Pattern, before, after)
			}
		}
	}
	allowed := func(token string) {
		t.Helper()
		if r := e.call(t, ri.Pattern, token); r.status == http.StatusUnauthorized || r.status == http.StatusForbidden && r.errCode() == api.CodeForbidden {
			t.Fatalf("token %q: %d %s, want the route's own answer", token, r.status, r.body)
		}
	}
	if method != http.MethodGet {
		checkJSONOnly(t, e, ri)
	}
	switch ri.Rule.String() {
	case "public", "open":
		allowed("")
		allowed(tokUnknown)
		return
	case "authenticated":
		refused("", http.StatusUnauthorized, api.CodeUnauthenticated)
		refused(tokUnknown, http.StatusUnauthorized, api.CodeUnauthenticated)
		allowed(tokNobody) // the handler decides from the resource
		return
	}
	role := ri.Rule.Role()
	if role == "" {
		t.Fatalf("rule %s: the test does not know it", ri.Rule)
	}
	refused("", http.StatusUnauthorized, api.CodeUnauthenticated)
	refused(tokUnknown, http.StatusUnauthorized, api.CodeUnauthenticated)
	refused(tokNobody, http.StatusForbidden, api.CodeForbidden)
	holder := map[auth.Role]string{auth.RoleSubmit: tokSubmitter, auth.RoleRead: tokReader, auth.RoleAdmin: tokAdmin}[role]
	for r, tok := range map[auth.Role]string{auth.RoleSubmit: tokSubmitter, auth.RoleRead: tokReader} {
		if r != role && role != "" {
			refused(tok, http.StatusForbidden, api.CodeForbidden)
		}
	}
	if holder != "" {
		allowed(holder)
	}
	allowed(tokAdmin) // admin holds every role
}

func TestAccessOpenReads(t *testing.T) {
	e, _ := accessEnv(t, envOptions{OpenReads: true})
	for _, ri := range e.Router.Routes() {
		r := e.call(t, ri.Pattern, "")
		switch ri.Rule.String() {
		case "read", "public", "open":
			if r.status == http.StatusUnauthorized || r.status == http.StatusForbidden {
				t.Errorf("%s with open reads: %d %s", ri.Pattern, r.status, r.body)
			}
		default:
			if r.status != http.StatusUnauthorized {
				t.Errorf("%s with open reads, no token: %d, want 401", ri.Pattern, r.status)
			}
		}
	}
}

func TestTypeRoles(t *testing.T) {
	e, _ := accessEnv(t, envOptions{})
	post := func(token, typ string) response {
		return e.serveWith("POST", "/v1/transactions", []byte(`{"queue":"q","type":"`+typ+`"}`),
			http.Header{"Authorization": {"Bearer " + token}, "Content-Type": {"application/json"}})
	}
	for _, tok := range []string{tokSubmitter, tokAdmin} {
		before := countRecords(t, e.store)
		r := post(tok, api.CallType)
		if r.status != http.StatusForbidden || r.errCode() != api.CodeTypeForbidden || !strings.Contains(r.errMessage(), "intake.typeRoles") {
			t.Fatalf("call by default: %d %s", r.status, r.body)
		}
		if countRecords(t, e.store) != before {
			t.Fatal("a type_forbidden intent was stored")
		}
	}
	if r := post(tokSubmitter, typ); r.status != http.StatusCreated {
		t.Fatalf("an unlisted type: %d %s", r.status, r.body)
	}

	// An operator allows call for admin, and keeps a custom type from
	// submitters.
	e2, _ := accessEnv(t, envOptions{TypeRoles: map[string][]auth.Role{api.CallType: {auth.RoleAdmin}, typ: {"ops"}}})
	post2 := func(token, typ string) response {
		return e2.serveWith("POST", "/v1/transactions", []byte(`{"queue":"q","type":"`+typ+`"}`),
			http.Header{"Authorization": {"Bearer " + token}, "Content-Type": {"application/json"}})
	}
	if r := post2(tokAdmin, api.CallType); r.errCode() == api.CodeTypeForbidden {
		t.Fatalf("call allowed for admin: %d %s", r.status, r.body)
	}
	if r := post2(tokSubmitter, typ); r.status != http.StatusForbidden || r.errCode() != api.CodeTypeForbidden || !strings.Contains(r.errMessage(), "ops") {
		t.Fatalf("a type for ops by a submitter: %d %s", r.status, r.body)
	}
	if r := post2(tokAdmin, typ); r.status != http.StatusCreated {
		t.Fatalf("a type for ops by an admin: %d %s", r.status, r.body)
	}
}

// checkJSONOnly checks the Content-Type rule of a mutating route: a caller
// the route's rule lets through (an admin) that sends a form, text/plain,
// another type or none (with its body or none) is answered 415
// unsupported_media_type, and nothing changed. A route that skips the rule
// (registered so that its handler reads a body of any type) fails here.
func checkJSONOnly(t *testing.T, e *env, ri auth.RouteInfo) {
	t.Helper()
	body := sampleBody(ri.Pattern)
	for _, tc := range []struct {
		name string
		ct   []string
		body []byte
	}{
		{"no content type", nil, body},
		{"no content type, no body", nil, nil},
		{"text/plain", []string{"text/plain"}, body},
		{"text/plain with charset", []string{"text/plain;charset=UTF-8"}, body},
		{"form", []string{"application/x-www-form-urlencoded"}, []byte("a=1")},
		{"multipart form", []string{"multipart/form-data; boundary=x"}, body},
		{"empty content type", []string{""}, body},
		{"json in another charset", []string{"application/json; charset=iso-8859-1"}, body},
	} {
		before := e.stateOf(t)
		r := e.callWith(t, ri.Pattern, tokAdmin, tc.ct, tc.body)
		if r.status != http.StatusUnsupportedMediaType || r.errCode() != httpjson.CodeUnsupportedMediaType {
			t.Errorf("%s: %d %.300s, want 415 %s", tc.name, r.status, r.body, httpjson.CodeUnsupportedMediaType)
		}
		if after := e.stateOf(t); after != before {
			t.Errorf("%s: a refused %s changed the node: %s → %s", tc.name, ri.Pattern, before, after)
		}
	}
}
