package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/api"
)

// A mutating request without Content-Type: application/json is refused
// with 415 before it changes anything, on the sequencer's routes and on the
// devchain's routes served under the node's address.
func TestMutatingRoutesNeedJSON(t *testing.T) {
	e := newEnv(t, envOptions{NoRun: true})
	intent := []byte(`{"queue":"ct","type":"` + typ + `","data":{}}`)
	tests := []struct {
		name   string
		method string
		path   string
		body   string
		ct     []string // Content-Type header values; nil: none
		status int      // 415 or the status of an accepted request
	}{
		{"intent, no content type", "POST", "/v1/transactions", string(intent), nil, 415},
		{"intent, text/plain (a fetch without preflight)", "POST", "/v1/transactions", string(intent), []string{"text/plain"}, 415},
		{"intent, text/plain with charset", "POST", "/v1/transactions", string(intent), []string{"text/plain;charset=UTF-8"}, 415},
		{"intent, form (a form post)", "POST", "/v1/transactions", "queue=ct&type=" + typ, []string{"application/x-www-form-urlencoded"}, 415},
		{"intent, multipart form", "POST", "/v1/transactions", string(intent), []string{"multipart/form-data; boundary=x"}, 415},
		{"intent, text/json", "POST", "/v1/transactions", string(intent), []string{"text/json"}, 415},
		{"intent, a prefix of application/json", "POST", "/v1/transactions", string(intent), []string{"application/jsonx"}, 415},
		{"intent, a list of types", "POST", "/v1/transactions", string(intent), []string{"application/json, text/plain"}, 415},
		{"intent, two headers", "POST", "/v1/transactions", string(intent), []string{"application/json", "text/plain"}, 415},
		{"intent, another charset", "POST", "/v1/transactions", string(intent), []string{"application/json; charset=iso-8859-1"}, 415},
		{"intent, empty content type", "POST", "/v1/transactions", string(intent), []string{""}, 415},
		{"intent, json", "POST", "/v1/transactions", string(intent), []string{"application/json"}, 201},
		{"intent, json with charset", "POST", "/v1/transactions", string(intent), []string{"application/json; charset=utf-8"}, 201},
		{"intent, json in upper case", "POST", "/v1/transactions", string(intent), []string{"Application/JSON; Charset=UTF-8"}, 201},
		{"intent, json with another parameter", "POST", "/v1/transactions", string(intent), []string{"application/json; v=1"}, 201},

		{"devchain mine, no content type", "POST", "/v1/dev/mine", "", nil, 415},
		{"devchain mine, text/plain", "POST", "/v1/dev/mine", "{}", []string{"text/plain"}, 415},
		{"devchain faucet, form", "POST", "/v1/faucet", "address=x&amount=1", []string{"application/x-www-form-urlencoded"}, 415},
		{"devchain faults, text/plain", "PUT", "/v1/faults", `{"rejectProb":1}`, []string{"text/plain"}, 415},
		{"devchain tx, multipart", "POST", "/v1/tx", "{}", []string{"multipart/form-data; boundary=x"}, 415},
		{"devchain call, json (reaches the chain, which has no such zkApp)", "POST", "/v1/call", `{"contract":"zkapp","method":"get","args":{"zkapp":"none"}}`, []string{"application/json"}, 422},
		{"devchain mine, json", "POST", "/v1/dev/mine", "{}", []string{"application/json"}, 200},

		// Reads need no content type; a route without the method is still 405.
		{"read", "GET", "/v1/transactions", "", nil, 200},
		{"devchain read", "GET", "/v1/head", "", nil, 200},
		{"no such method", "POST", "/v1/queues", "", nil, 405},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := countRecords(t, e.store)
			head := decode[struct{ Height uint64 }](t, e.serve("GET", "/v1/head", nil))
			h := http.Header{}
			if tt.ct != nil {
				h["Content-Type"] = tt.ct
			}
			r := e.serveWith(tt.method, tt.path, []byte(tt.body), h)
			if r.status != tt.status {
				t.Fatalf("%d %s, want %d", r.status, r.body, tt.status)
			}
			if r.header.Get("Content-Type") != "application/json" || !isJSON(r.body) {
				t.Errorf("not a JSON answer: %q %s", r.header.Get("Content-Type"), r.body)
			}
			if tt.status != http.StatusUnsupportedMediaType {
				return
			}
			if r.errCode() != api.CodeUnsupportedMediaType || !strings.Contains(r.errMessage(), "Content-Type: application/json") {
				t.Errorf("error %s", r.body)
			}
			if after := countRecords(t, e.store); after != before {
				t.Errorf("records %d → %d after a 415", before, after)
			}
			if now := decode[struct{ Height uint64 }](t, e.serve("GET", "/v1/head", nil)); now.Height != head.Height {
				t.Errorf("head %d → %d after a 415", head.Height, now.Height)
			}
		})
	}
	// The faults were never changed by the refused PUT.
	if r := e.serve("GET", "/v1/faults", nil); strings.Contains(string(r.body), `"rejectProb":1`) {
		t.Fatalf("faults changed: %s", r.body)
	}
}

// A 415 quotes at most a prefix of an oversized Content-Type.
func TestUnsupportedMediaTypeExcerpt(t *testing.T) {
	e := newEnv(t, envOptions{NoRun: true})
	long := "text/" + strings.Repeat("x", 4096)
	r := e.serveWith("POST", "/v1/transactions", []byte(`{}`), http.Header{"Content-Type": {long}})
	if r.status != 415 || len(r.body) > 512 || !strings.Contains(r.errMessage(), "…") {
		t.Fatalf("%d %d bytes: %s", r.status, len(r.body), r.body)
	}
}

// corsHeaders are the response headers CORS may set.
var corsHeaders = []string{"Access-Control-Allow-Origin", "Access-Control-Allow-Methods", "Access-Control-Allow-Headers", "Access-Control-Max-Age", "Access-Control-Allow-Credentials"}

func TestCORS(t *testing.T) {
	e := newEnv(t, envOptions{NoRun: true})
	open, err := api.CORS(e.handler, []string{"https://App.Example.com:443", "http://localhost:3000/"})
	if err != nil {
		t.Fatal(err)
	}
	preflight := func(origin, method string) http.Header {
		return http.Header{"Origin": {origin}, "Access-Control-Request-Method": {method}, "Access-Control-Request-Headers": {"content-type"}}
	}
	tests := []struct {
		name       string
		h          http.Handler
		method     string
		path       string
		header     http.Header
		status     int
		allowed    string // the Access-Control-Allow-Origin wanted, "" for none
		preflight  bool   // the preflight headers are wanted
		varyOrigin bool
	}{
		// Without configured origins: no CORS header ever, and a preflight
		// fails (405), so a page cannot send JSON.
		{"none: preflight", e.handler, "OPTIONS", "/v1/transactions", preflight("https://evil.example", "POST"), 405, "", false, false},
		{"none: read with an origin", e.handler, "GET", "/v1/queues", http.Header{"Origin": {"https://evil.example"}}, 200, "", false, false},
		{"none: devchain preflight", e.handler, "OPTIONS", "/v1/faucet", preflight("https://evil.example", "POST"), 405, "", false, false},

		{"allowed: preflight", open, "OPTIONS", "/v1/transactions", preflight("https://app.example.com", "POST"), 204, "https://app.example.com", true, true},
		{"allowed: preflight of a devchain route", open, "OPTIONS", "/v1/faults", preflight("http://localhost:3000", "PUT"), 204, "http://localhost:3000", true, true},
		{"allowed: read", open, "GET", "/v1/queues", http.Header{"Origin": {"https://app.example.com"}}, 200, "https://app.example.com", false, true},
		{"allowed: write", open, "POST", "/v1/transactions", http.Header{"Origin": {"http://localhost:3000"}, "Content-Type": {"application/json"}}, 201, "http://localhost:3000", false, true},
		{"allowed origin, still JSON only", open, "POST", "/v1/transactions", http.Header{"Origin": {"http://localhost:3000"}, "Content-Type": {"text/plain"}}, 415, "http://localhost:3000", false, true},
		{"other origin: preflight", open, "OPTIONS", "/v1/transactions", preflight("https://evil.example", "POST"), 405, "", false, true},
		{"other port: preflight", open, "OPTIONS", "/v1/transactions", preflight("http://localhost:3001", "POST"), 405, "", false, true},
		{"other scheme: preflight", open, "OPTIONS", "/v1/transactions", preflight("http://app.example.com", "POST"), 405, "", false, true},
		{"null origin: preflight", open, "OPTIONS", "/v1/transactions", preflight("null", "POST"), 405, "", false, true},
		{"other origin: read", open, "GET", "/v1/queues", http.Header{"Origin": {"https://evil.example"}}, 200, "", false, true},
		{"no origin: read", open, "GET", "/v1/queues", nil, 200, "", false, true},
		{"OPTIONS that is not a preflight", open, "OPTIONS", "/v1/queues", http.Header{"Origin": {"https://app.example.com"}}, 405, "https://app.example.com", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := []byte(nil)
			if tt.method == "POST" {
				body = []byte(`{"queue":"cors","type":"` + typ + `"}`)
			}
			env := &env{handler: tt.h}
			r := env.serveWith(tt.method, tt.path, body, tt.header)
			if r.status != tt.status {
				t.Fatalf("%d %s, want %d", r.status, r.body, tt.status)
			}
			if got := r.header.Get("Access-Control-Allow-Origin"); got != tt.allowed {
				t.Errorf("Access-Control-Allow-Origin %q, want %q", got, tt.allowed)
			}
			for _, h := range corsHeaders[1:] {
				if got := r.header.Get(h); (got != "") != (tt.preflight && h != "Access-Control-Allow-Credentials") {
					t.Errorf("%s: %q", h, got)
				}
			}
			if tt.preflight && (!strings.Contains(r.header.Get("Access-Control-Allow-Methods"), "POST") || !strings.Contains(r.header.Get("Access-Control-Allow-Headers"), "Content-Type")) {
				t.Errorf("preflight headers %v", r.header)
			}
			if vary := strings.Join(r.header.Values("Vary"), ","); strings.Contains(vary, "Origin") != tt.varyOrigin {
				t.Errorf("Vary %q", vary)
			}
		})
	}
}

func TestCORSRefusesBadOrigins(t *testing.T) {
	for _, o := range []string{"*", "null", "", "app.example.com", "ftp://app.example.com", "https://", "https://app.example.com/path",
		"https://app.example.com?x=1", "https://app.example.com#f", "https://user@app.example.com", "https:app.example.com", "https://app.example.com/?"} {
		if _, err := api.CORS(http.NotFoundHandler(), []string{o}); err == nil {
			t.Errorf("origin %q accepted", o)
		}
		if _, err := api.NormalizeOrigin(o); err == nil {
			t.Errorf("NormalizeOrigin(%q) accepted it", o)
		}
	}
	for in, want := range map[string]string{
		"https://app.example.com":      "https://app.example.com",
		"HTTPS://App.Example.COM:443/": "https://app.example.com",
		"http://localhost:80":          "http://localhost",
		"http://localhost:8080":        "http://localhost:8080",
		"http://[::1]:3000":            "http://[::1]:3000",
		"https://[::1]":                "https://[::1]",
	} {
		if got, err := api.NormalizeOrigin(in); err != nil || got != want {
			t.Errorf("NormalizeOrigin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	// No origins: the handler itself, untouched.
	h := http.NotFoundHandler()
	if got, err := api.CORS(h, nil); err != nil || got == nil {
		t.Fatalf("CORS(h, nil) = %v, %v", got, err)
	}
}
