package tool

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/egress"
)

// answer returns a handler that answers status with body.
func answer(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}
}

func TestInvokeClassifiesErrors(t *testing.T) {
	tests := []struct {
		name      string
		h         http.HandlerFunc
		retriable bool
		status    int
		code      string
	}{
		{"5xx with an error body", answer(503, `{"error":{"code":"busy","message":"try later"}}`), true, 503, "busy"},
		{"5xx without a body", answer(500, ``), true, 500, CodeToolError},
		{"502 in plain text", answer(502, `bad gateway`), true, 502, CodeToolError},
		{"4xx", answer(422, `{"error":{"code":"invalid_input","message":"no"}}`), false, 422, "invalid_input"},
		{"404", answer(404, `not found`), false, 404, CodeToolError},
		{"408", answer(408, ``), true, 408, CodeToolError},
		{"429", answer(429, ``), true, 429, CodeToolError},
		{"401 replayed", answer(401, `{"error":{"code":"replayed","message":"again"}}`), true, 401, CodeReplayed},
		{"401 stale", answer(401, `{"error":{"code":"stale","message":"old"}}`), false, 401, CodeStale},
		{"a redirect", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
		}, false, 307, CodeProtocol},
		{"2xx without output", answer(200, `{"result":1}`), false, 200, CodeProtocol},
		{"2xx with output and more", answer(200, `{"output":1,"extra":2}`), false, 200, CodeProtocol},
		{"2xx with an empty object", answer(200, `{}`), false, 200, CodeProtocol},
		{"2xx not JSON", answer(200, `<html>`), false, 200, CodeProtocol},
		{"2xx empty", answer(200, ``), false, 200, CodeProtocol},
		{"2xx with trailing data", answer(200, `{"output":1} {}`), false, 200, CodeProtocol},
		{"2xx too large", answer(200, `{"output":"`+string(make([]byte, 100))+`"}`), false, 200, CodeProtocol},
	}
	c := &Client{MaxResponse: 64}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.h)
			defer srv.Close()
			_, err := c.Invoke(t.Context(), srv.URL, json.RawMessage(`{"a":1}`), leaderKey, clock.Epoch)
			checkInvokeError(t, err, tc.retriable, tc.status, tc.code)
		})
	}
}

func checkInvokeError(t *testing.T, err error, retriable bool, status int, code string) {
	t.Helper()
	var ie *InvokeError
	if !errors.As(err, &ie) {
		t.Fatalf("error %v (%T) is not an *InvokeError", err, err)
	}
	if ie.Retriable != retriable || ie.Status != status || ie.Code != code {
		t.Fatalf("got retriable=%v status=%d code=%q (%v), want retriable=%v status=%d code=%q", ie.Retriable, ie.Status, ie.Code, err, retriable, status, code)
	}
	if IsRetriable(err) != retriable {
		t.Fatalf("IsRetriable = %v", !retriable)
	}
}

func TestInvokeSuccess(t *testing.T) {
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		answer(200, `{"output":{"n":12345678901234567890}}`)(w, r)
	}))
	defer srv.Close()
	out, err := Invoke(t.Context(), srv.URL+"/", json.RawMessage(`{"a":1}`), leaderKey, clock.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `{"n":12345678901234567890}` {
		t.Fatalf("output %s", out)
	}
	if got.Get(HeaderLeader) != leaderAddr || got.Get("Content-Type") != "application/json" {
		t.Fatalf("headers %v", got)
	}
	// Unsigned without a key.
	if _, err := Invoke(t.Context(), srv.URL, json.RawMessage(`1`), nil, clock.Epoch); err != nil {
		t.Fatal(err)
	}
	if got.Get(HeaderSignature) != "" {
		t.Fatal("a request without a key was signed")
	}
}

func TestInvokeTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select { // hold the request until the client gives up
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err := Invoke(ctx, srv.URL, json.RawMessage(`{}`), leaderKey, clock.Epoch)
	checkInvokeError(t, err, true, 0, CodeTimeout)
	// The client's own Timeout applies when the context has none.
	c := &Client{Timeout: 50 * time.Millisecond}
	_, err = c.Invoke(t.Context(), srv.URL, json.RawMessage(`{}`), leaderKey, clock.Epoch)
	checkInvokeError(t, err, true, 0, CodeTimeout)
}

func TestInvokeConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	_, err = Invoke(t.Context(), "http://"+addr, json.RawMessage(`{}`), leaderKey, clock.Epoch)
	checkInvokeError(t, err, true, 0, CodeUnreachable)
}

func TestInvokeBadArguments(t *testing.T) {
	for _, u := range []string{"ftp://x", "localhost:1", "http://", "http://h/?q=1", "::"} {
		_, err := Invoke(t.Context(), u, json.RawMessage(`{}`), nil, clock.Epoch)
		checkInvokeError(t, err, false, 0, CodeBadURL)
	}
	_, err := Invoke(t.Context(), "http://h", json.RawMessage(`{`), nil, clock.Epoch)
	checkInvokeError(t, err, false, 0, "bad_json")
}

func TestMetaProtocol(t *testing.T) {
	tests := []struct {
		name string
		body string
		code string
	}{
		{"good", `{"name":"x","description":"","inputSchema":{},"outputSchema":true,"version":"1"}`, ""},
		{"no name", `{"name":"","description":"","inputSchema":{},"outputSchema":{},"version":"1"}`, CodeProtocol},
		{"a schema that is a number", `{"name":"x","description":"","inputSchema":1,"outputSchema":{},"version":"1"}`, CodeProtocol},
		{"no schema", `{"name":"x","description":"","outputSchema":{},"version":"1"}`, CodeProtocol},
		{"unknown field", `{"name":"x","inputSchema":{},"outputSchema":{},"fqn":"y"}`, CodeProtocol},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(answer(200, tc.body))
			defer srv.Close()
			m, err := DefaultClient.Meta(t.Context(), srv.URL)
			if tc.code == "" {
				if err != nil || m.Name != "x" {
					t.Fatalf("Meta = %+v, %v", m, err)
				}
				return
			}
			checkInvokeError(t, err, false, 200, tc.code)
		})
	}
}

// TestInvokeEgressRefused: a tool whose URL resolves to an address the
// node's egress policy refuses is not called, and the failure is fatal
// with its own code (a retry cannot change it).
func TestInvokeEgressRefused(t *testing.T) {
	t.Parallel()
	reached := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached <- struct{}{}
		answer(200, `{"output":1}`)(w, r)
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	c := &Client{HTTP: egress.Policy{AllowPrivate: true}.Client(0)}
	for _, u := range []string{srv.URL, "http://localhost:" + port} {
		_, err := c.Invoke(t.Context(), u, json.RawMessage(`{"a":1}`), leaderKey, clock.Epoch)
		checkInvokeError(t, err, false, 0, CodeEgressRefused)
		if !errors.Is(err, egress.ErrRefused) {
			t.Fatalf("%s: %v does not wrap egress.ErrRefused", u, err)
		}
	}
	select {
	case <-reached:
		t.Fatal("the tool was called")
	default:
	}
	allowed := &Client{HTTP: egress.Policy{AllowLoopback: true}.Client(0)}
	if out, err := allowed.Invoke(t.Context(), srv.URL, json.RawMessage(`{"a":1}`), leaderKey, clock.Epoch); err != nil || string(out) != "1" {
		t.Fatalf("with loopback allowed: %s, %v", out, err)
	}
}
