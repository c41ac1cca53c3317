package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/clock"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// newTestServer serves t behind an httptest server on a virtual clock.
func newTestServer(t *testing.T, tl Tool, opts ...Option) (*httptest.Server, *clock.Virtual) {
	t.Helper()
	vc := clock.NewVirtual(clock.Epoch)
	s, err := NewServer(tl, append([]Option{WithClock(vc), WithLogger(quiet)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv, vc
}

func TestServerArith(t *testing.T) {
	srv, vc := newTestServer(t, Arith{}, RequireLeader([]string{leaderAddr}))
	tests := []struct {
		name   string
		input  string
		key    bool
		want   string // output, or the error code
		status int
	}{
		{"add", `{"op":"add","a":2,"b":3}`, true, `{"result":5}`, 200},
		{"div", `{"op":"div","a":1,"b":4}`, true, `{"result":0.25}`, 200},
		{"div by zero", `{"op":"div","a":1,"b":0}`, true, CodeInvalidInput, 422},
		{"overflow", `{"op":"mul","a":1e308,"b":10}`, true, CodeInvalidInput, 422},
		{"unknown op (schema)", `{"op":"pow","a":1,"b":2}`, true, CodeInvalidInput, 422},
		{"missing b (schema)", `{"op":"add","a":1}`, true, CodeInvalidInput, 422},
		{"extra field (schema)", `{"op":"add","a":1,"b":2,"c":3}`, true, CodeInvalidInput, 422},
		{"a string number (schema)", `{"op":"add","a":"1","b":2}`, true, CodeInvalidInput, 422},
		{"not an object (schema)", `[1,2]`, true, CodeInvalidInput, 422},
		{"unsigned", `{"op":"add","a":2,"b":3}`, false, CodeUnsigned, 401},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			vc.Advance(time.Second) // a new second: no two signatures alike
			key := leaderKey
			if !tc.key {
				key = nil
			}
			out, err := Invoke(t.Context(), srv.URL, json.RawMessage(tc.input), key, vc.Now())
			if tc.status == 200 {
				if err != nil || string(out) != tc.want {
					t.Fatalf("case %d: output %s, %v; want %s", i, out, err, tc.want)
				}
				return
			}
			checkInvokeError(t, err, false, tc.status, tc.want)
		})
	}
}

func TestServerSchemaMessageNamesTheField(t *testing.T) {
	srv, _ := newTestServer(t, Arith{})
	_, err := Invoke(t.Context(), srv.URL, json.RawMessage(`{"op":"add","a":"x","b":2}`), nil, clock.Epoch)
	var ie *InvokeError
	if !errors.As(err, &ie) || !strings.Contains(ie.Message, `"input/a"`) {
		t.Fatalf("error %v does not name input/a", err)
	}
}

func TestServerSignatures(t *testing.T) {
	srv, vc := newTestServer(t, TextStats{}, RequireLeader([]string{leaderAddr}))
	in := json.RawMessage(`{"text":"a b a"}`)
	// Not an allowed leader: 403.
	_, err := Invoke(t.Context(), srv.URL, in, strangerKey, vc.Now())
	checkInvokeError(t, err, false, 403, CodeUnknownLeader)
	// An old timestamp: 401 stale.
	_, err = Invoke(t.Context(), srv.URL, in, leaderKey, vc.Now().Add(-time.Hour))
	checkInvokeError(t, err, false, 401, CodeStale)

	// The same signed request twice: the second is replayed (401, which the
	// client may retry with a new signature).
	post := func(body []byte, hdr http.Header) string {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL+"/invoke", bytes.NewReader(body))
		req.Header = hdr.Clone()
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		var eb struct{ Error struct{ Code string } }
		_ = json.Unmarshal(b, &eb)
		return strconv.Itoa(resp.StatusCode) + " " + eb.Error.Code
	}
	body := []byte(`{"input":{"text":"a b a"}}`)
	req := signedRequest(t, leaderKey, vc.Now(), string(body))
	req.Header.Set("Content-Type", "application/json")
	if st := post(body, req.Header); st != "200 " {
		t.Fatalf("first post: %s", st)
	}
	if st := post(body, req.Header); st != "401 replayed" {
		t.Fatalf("replayed post: %s, want 401 replayed", st)
	}
	// A tampered body under a fresh signature's headers.
	vc.Advance(time.Second)
	req = signedRequest(t, leaderKey, vc.Now(), string(body))
	req.Header.Set("Content-Type", "application/json")
	if st := post([]byte(`{"input":{"text":"b b b"}}`), req.Header); st != "401 bad_signature" {
		t.Fatalf("tampered post: %s, want 401 bad_signature", st)
	}
	// The client signing on the server's clock succeeds.
	out, err := Invoke(t.Context(), srv.URL, in, leaderKey, vc.Now().Add(time.Second))
	if err != nil || string(out) != `{"words":3,"chars":5,"lines":1,"topWord":"a"}` {
		t.Fatalf("signed invoke: %s, %v", out, err)
	}
}

func TestServerRoutes(t *testing.T) {
	srv, _ := newTestServer(t, TextStats{})
	c := srv.Client()
	m, err := DefaultClient.Meta(t.Context(), srv.URL)
	if err != nil || m.Name != "textstats" || m.Version == "" {
		t.Fatalf("Meta = %+v, %v", m, err)
	}
	if err := DefaultClient.Health(t.Context(), srv.URL); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		method, path, ctype, body string
		status                    int
		code                      string
	}{
		{"GET", "/nope", "", "", 404, "route_not_found"},
		{"GET", "/invoke", "", "", 405, "method_not_allowed"},
		{"POST", "/invoke", "text/plain", `{"input":{"text":""}}`, 415, "unsupported_media_type"},
		{"POST", "/invoke", "application/json", `{"input":{"text":""},"x":1}`, 400, "bad_json"},
		{"POST", "/invoke", "application/json", `{"Input":{"text":""}}`, 400, "bad_json"},
		{"POST", "/invoke", "application/json", `{}`, 400, "bad_json"},
		{"POST", "/invoke", "application/json", `{"input":{"text":""}} 1`, 400, "bad_json"},
		{"POST", "/invoke", "application/json", `{"input":{"text":"` + strings.Repeat("x", 2<<20) + `"}}`, 413, "too_large"},
		{"POST", "/invoke", "application/json", `{"input":{"text":""}}`, 200, ""},
	}
	for _, tc := range tests {
		req, _ := http.NewRequestWithContext(t.Context(), tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
		if tc.ctype != "" {
			req.Header.Set("Content-Type", tc.ctype)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != tc.status || (tc.code != "" && !strings.Contains(string(b), `"code":"`+tc.code+`"`)) {
			t.Errorf("%s %s %.40q: %d %s, want %d %s", tc.method, tc.path, tc.body, resp.StatusCode, b, tc.status, tc.code)
		}
	}
}

// liar is a tool whose outputs and failures the test chooses.
type liar struct {
	out     string
	err     error
	healthy error
}

func (l liar) Meta() Meta {
	return Meta{Name: "liar", Version: "0", InputSchema: json.RawMessage(`true`),
		OutputSchema: json.RawMessage(`{"type":"object","required":["ok"]}`)}
}

func (l liar) Invoke(context.Context, json.RawMessage) (json.RawMessage, error) {
	return json.RawMessage(l.out), l.err
}

func (l liar) Health(context.Context) error { return l.healthy }

func TestServerToolFailures(t *testing.T) {
	tests := []struct {
		name      string
		tool      liar
		retriable bool
		status    int
		code      string
	}{
		{"output against its schema", liar{out: `{"no":1}`}, true, 500, CodeBadOutput},
		{"output not JSON", liar{out: `{`}, true, 500, CodeBadOutput},
		{"a failure", liar{err: errors.New("disk full")}, true, 500, CodeToolFailed},
		{"a refusal", liar{err: ErrInvalidInput}, false, 422, CodeInvalidInput},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := newTestServer(t, tc.tool)
			_, err := Invoke(t.Context(), srv.URL, json.RawMessage(`null`), nil, clock.Epoch)
			checkInvokeError(t, err, tc.retriable, tc.status, tc.code)
		})
	}
	srv, _ := newTestServer(t, liar{healthy: errors.New("no database")})
	err := DefaultClient.Health(t.Context(), srv.URL)
	checkInvokeError(t, err, true, 503, CodeUnhealthy)
}

func TestNewServerRefuses(t *testing.T) {
	bad := liar{}
	tests := []struct {
		name string
		tool Tool
		opts []Option
	}{
		{"a leader that is not an address", Arith{}, []Option{RequireLeader([]string{"alice"})}},
		{"no leader", Arith{}, []Option{RequireLeader([]string{})}},
		{"no name", metaTool{Meta{InputSchema: json.RawMessage(`{}`), OutputSchema: json.RawMessage(`{}`)}, bad}, nil},
		{"a schema that does not compile", metaTool{Meta{Name: "x", InputSchema: json.RawMessage(`{"type":"nope"}`), OutputSchema: json.RawMessage(`{}`)}, bad}, nil},
	}
	for _, tc := range tests {
		if _, err := NewServer(tc.tool, tc.opts...); err == nil {
			t.Errorf("%s: NewServer succeeded", tc.name)
		}
	}
}

type metaTool struct {
	m Meta
	liar
}

func (m metaTool) Meta() Meta { return m.m }

func TestCheckSchema(t *testing.T) {
	m := Arith{}.Meta()
	if err := CheckSchema(m.OutputSchema, "output", json.RawMessage(`{"result":1}`)); err != nil {
		t.Fatal(err)
	}
	err := CheckSchema(m.OutputSchema, "output", json.RawMessage(`{"result":"1"}`))
	if err == nil || !strings.Contains(err.Error(), `"output/result"`) {
		t.Fatalf("CheckSchema = %v", err)
	}
	if err := CheckSchema(json.RawMessage(`{"type":1}`), "input", json.RawMessage(`1`)); err == nil {
		t.Fatal("a schema that does not compile was accepted")
	}
}

func TestSchemaRefusesExternalReferences(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.json"), []byte(`{"type":"string"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	raw := json.RawMessage(`{"$ref":"file://` + filepath.ToSlash(dir) + `/s.json"}`)
	if err := CheckSchema(raw, "input", json.RawMessage(`"x"`)); err == nil || !strings.Contains(err.Error(), "self-contained") {
		t.Fatalf("a schema with a file reference: %v", err)
	}
	// A draft's metaschema still resolves.
	raw = json.RawMessage(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"string"}`)
	if err := CheckSchema(raw, "input", json.RawMessage(`"x"`)); err != nil {
		t.Fatal(err)
	}
}
