package auth

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/httpjson"
)

// testRouter has one route per kind of rule; each handler counts its calls
// and reports the principal it sees.
func testRouter(t *testing.T, c Config, log *slog.Logger) (*Router, map[string]*int) {
	t.Helper()
	a, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	rt := NewRouter(a, httpjson.Options{Logger: log, Name: "test"})
	calls := map[string]*int{}
	for _, r := range []struct {
		pattern string
		rule    Rule
	}{
		{"GET /public", Public},
		{"GET /read", Read},
		{"POST /submit", Need(RoleSubmit)},
		{"POST /admin", Need(RoleAdmin)},
		{"POST /authn", Authenticated},
		{"POST /tick", OpenOr(true, Authenticated)},
		{"POST /tick-off", OpenOr(false, Need(RoleAdmin))},
	} {
		n := new(int)
		calls[r.pattern] = n
		rt.HandleJSON(r.pattern, r.rule, func(req *http.Request) (any, error) {
			*n++
			p, ok := PrincipalFrom(req.Context())
			if req.URL.Query().Get("fail") != "" {
				return nil, httpjson.Errorf("engine_busy", "busy")
			}
			if r.pattern == "POST /authn" {
				if err := CheckOwner(req, "alice", "thing t"); err != nil {
					return nil, err
				}
			}
			return map[string]any{"principal": p.Name, "ok": ok}, nil
		})
	}
	return rt, calls
}

func TestRouter(t *testing.T) {
	var logs bytes.Buffer
	rt, calls := testRouter(t, testConfig(), slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { slog.SetDefault(prev) })

	const none, unknown = "", "Bearer not-a-token-of-this-node"
	alice, bob, root := "Bearer "+tokAlice, "Bearer "+tokBob, "Bearer root-token-0123456789"
	for _, tc := range []struct {
		pattern, auth string
		status        int
		who           string
	}{
		{"GET /public", none, 200, ""},
		{"GET /public", unknown, 200, ""}, // never authenticates
		{"GET /read", none, 401, ""},
		{"GET /read", unknown, 401, ""},
		{"GET /read", alice, 200, "alice"},
		{"GET /read", bob, 200, "bob"},
		{"GET /read", root, 200, "root"},
		{"POST /submit", none, 401, ""},
		{"POST /submit", bob, 403, ""},
		{"POST /submit", alice, 200, "alice"},
		{"POST /submit", root, 200, "root"},
		{"POST /admin", alice, 403, ""},
		{"POST /admin", root, 200, "root"},
		{"POST /authn", none, 401, ""},
		{"POST /authn", bob, 403, ""}, // known, not the owner: the handler's 403
		{"POST /authn", alice, 200, "alice"},
		{"POST /authn", root, 200, "root"}, // an admin
		{"POST /tick", none, 200, ""},
		{"POST /tick-off", none, 401, ""},
		{"POST /tick-off", alice, 403, ""},
	} {
		method, path, _ := strings.Cut(tc.pattern, " ")
		before := *calls[tc.pattern]
		req := httptest.NewRequest(method, path, strings.NewReader("{}"))
		req.Header.Set("Content-Type", "application/json")
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		w := httptest.NewRecorder()
		rt.ServeHTTP(w, req)
		if w.Code != tc.status {
			t.Errorf("%s with %q: %d %s, want %d", tc.pattern, tc.auth, w.Code, w.Body, tc.status)
			continue
		}
		reached := *calls[tc.pattern] - before
		switch tc.status {
		case 200:
			var body struct{ Principal string }
			_ = json.Unmarshal(w.Body.Bytes(), &body)
			if body.Principal != tc.who {
				t.Errorf("%s with %q: the handler saw %q, want %q", tc.pattern, tc.auth, body.Principal, tc.who)
			}
		case 401:
			if reached != 0 {
				t.Errorf("%s: a 401 reached the handler", tc.pattern)
			}
			if !strings.HasPrefix(w.Header().Get("WWW-Authenticate"), "Bearer") || !strings.Contains(w.Body.String(), `"unauthenticated"`) {
				t.Errorf("%s: 401 without WWW-Authenticate or code: %v %s", tc.pattern, w.Header(), w.Body)
			}
		case 403:
			if !strings.Contains(w.Body.String(), `"forbidden"`) {
				t.Errorf("%s: 403 body %s", tc.pattern, w.Body)
			}
			if tc.pattern != "POST /authn" && reached != 0 {
				t.Errorf("%s: a 403 reached the handler", tc.pattern)
			}
			if tc.pattern == "POST /submit" && !strings.Contains(w.Body.String(), "needs the role submit") {
				t.Errorf("%s: the 403 does not name the role: %s", tc.pattern, w.Body)
			}
		}
		for _, tok := range []string{tokAlice, tokBob, "root-token-0123456789", "not-a-token-of-this-node"} {
			if strings.Contains(w.Body.String(), tok) {
				t.Fatalf("%s: the answer quotes a token: %s", tc.pattern, w.Body)
			}
		}
	}
	for _, tok := range []string{tokAlice, tokBob, "root-token-0123456789", "not-a-token-of-this-node"} {
		if strings.Contains(logs.String(), tok) {
			t.Fatalf("the logs print a token: %s", logs.String())
		}
	}

	got := map[string]string{}
	for _, ri := range rt.Routes() {
		got[ri.Pattern] = ri.Rule.String()
	}
	want := map[string]string{"GET /public": "public", "GET /read": "read", "POST /submit": "need(submit)", "POST /admin": "need(admin)",
		"POST /authn": "authenticated", "POST /tick": "open", "POST /tick-off": "need(admin)"}
	if len(got) != len(want) {
		t.Fatalf("Routes: %v", got)
	}
	for p, s := range want {
		if got[p] != s {
			t.Errorf("Routes: %s is %q, want %q", p, got[p], s)
		}
	}
}

func TestMapStatus(t *testing.T) {
	rt, _ := testRouter(t, Config{Open: true}, nil)
	rt.MapStatus("engine_busy", http.StatusConflict)
	w := httptest.NewRecorder()
	rt.ServeHTTP(w, httptest.NewRequest("GET", "/read?fail=1", nil))
	if w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), `"engine_busy"`) {
		t.Fatalf("an engine's code: %d %s", w.Code, w.Body)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("MapStatus took a code of package auth")
		}
	}()
	rt.MapStatus(CodeForbidden, http.StatusTeapot)
}

func TestRouterOpenModes(t *testing.T) {
	c := testConfig()
	c.OpenReads = true
	rt, _ := testRouter(t, c, nil)
	for _, tc := range []struct {
		pattern string
		status  int
	}{{"GET /read", 200}, {"POST /submit", 401}} {
		method, path, _ := strings.Cut(tc.pattern, " ")
		w := httptest.NewRecorder()
		rt.ServeHTTP(w, httptest.NewRequest(method, path, nil))
		if w.Code != tc.status {
			t.Errorf("openReads: %s answered %d, want %d", tc.pattern, w.Code, tc.status)
		}
	}

	dev, _ := testRouter(t, Config{Open: true}, nil)
	for _, p := range []string{"GET /read", "POST /submit", "POST /admin", "POST /authn"} {
		method, path, _ := strings.Cut(p, " ")
		w := httptest.NewRecorder()
		req := httptest.NewRequest(method, path, nil)
		req.Header.Set("Content-Type", "application/json")
		dev.ServeHTTP(w, req)
		if w.Code == 401 || w.Code == 403 {
			t.Errorf("dev mode: %s answered %d", p, w.Code)
		}
		if p != "POST /authn" && !strings.Contains(w.Body.String(), `"principal":"dev"`) {
			t.Errorf("dev mode: %s: %s", p, w.Body)
		}
	}
}

// Every mutating route of a Router takes only JSON, a route registered
// with a raw Handle too, in dev mode too: a form, text/plain, another type
// or none (also with no body) is answered 415 unsupported_media_type and
// never reaches the handler; a caller the rule refuses hears 401 or 403
// first; reads need no type.
func TestRouterJSONOnly(t *testing.T) {
	t.Parallel()
	for _, open := range []bool{false, true} {
		c := testConfig()
		if open {
			c = Config{Open: true}
		}
		a, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		rt := NewRouter(a, httpjson.Options{Logger: slog.New(slog.DiscardHandler)})
		calls := 0
		raw := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			calls++
			w.WriteHeader(http.StatusNoContent)
		})
		patterns := []string{"POST /raw", "PUT /raw", "PATCH /raw", "DELETE /raw", "GET /raw"}
		for _, p := range patterns {
			rt.Handle(p, Need(RoleSubmit), raw)
		}
		for _, p := range patterns {
			method, path, _ := strings.Cut(p, " ")
			for _, tc := range []struct {
				name   string
				auth   string
				ct     []string
				body   string
				status int
			}{
				{"no content type", "Bearer " + tokAlice, nil, "{}", 415},
				{"no content type, no body", "Bearer " + tokAlice, nil, "", 415},
				{"text/plain", "Bearer " + tokAlice, []string{"text/plain"}, "{}", 415},
				{"form", "Bearer " + tokAlice, []string{"application/x-www-form-urlencoded"}, "a=1", 415},
				{"multipart", "Bearer " + tokAlice, []string{"multipart/form-data; boundary=x"}, "{}", 415},
				{"json", "Bearer " + tokAlice, []string{"application/json"}, "{}", 204},
				{"json, no body", "Bearer " + tokAlice, []string{"application/json; charset=utf-8"}, "", 204},
				{"text/plain without a token", "", []string{"text/plain"}, "{}", 401},
				{"text/plain from a principal without the role", "Bearer " + tokBob, []string{"text/plain"}, "{}", 403},
			} {
				want := tc.status
				if open && (want == 401 || want == 403) {
					want = 415 // dev mode: every caller passes the rule
				}
				if method == http.MethodGet && want == 415 {
					want = 204
				}
				req := httptest.NewRequest(method, path, strings.NewReader(tc.body))
				if tc.ct != nil {
					req.Header["Content-Type"] = tc.ct
				}
				if tc.auth != "" {
					req.Header.Set("Authorization", tc.auth)
				}
				before := calls
				w := httptest.NewRecorder()
				rt.ServeHTTP(w, req)
				if w.Code != want {
					t.Errorf("open %v, %s, %s: %d %s, want %d", open, p, tc.name, w.Code, w.Body, want)
				}
				if want == 415 && !strings.Contains(w.Body.String(), `"`+httpjson.CodeUnsupportedMediaType+`"`) {
					t.Errorf("open %v, %s, %s: %s", open, p, tc.name, w.Body)
				}
				if reached := calls > before; reached != (want == 204) {
					t.Errorf("open %v, %s, %s: reached the handler %v with %d", open, p, tc.name, reached, w.Code)
				}
			}
		}
	}
}
