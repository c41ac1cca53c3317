package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/api"
	"github.com/ordolabs/ordo/internal/api/apitest"
	"github.com/ordolabs/ordo/internal/store"
)

// envOptions tune newEnv.
type envOptions = apitest.Options

// env is a real node behind the API (see apitest).
type env struct {
	*apitest.Node
	store   store.Store
	handler http.Handler
	srv     *httptest.Server
}

func newEnv(t testing.TB, o envOptions) *env {
	t.Helper()
	n, err := apitest.Start(o)
	if err != nil {
		t.Fatalf("apitest.Start: %v", err)
	}
	t.Cleanup(func() {
		if err := n.Close(); err != nil {
			t.Errorf("closing the node: %v", err)
		}
	})
	return &env{Node: n, store: n.Store, handler: n.Handler, srv: n.Server}
}

// response is a decoded answer.
type response struct {
	status int
	header http.Header
	body   []byte
}

// errCode returns the error code of an error body, or "".
func (r response) errCode() string {
	var e api.Error
	if json.Unmarshal(r.body, &e) != nil {
		return ""
	}
	return e.Error.Code
}

func (r response) errMessage() string {
	var e api.Error
	_ = json.Unmarshal(r.body, &e)
	return e.Error.Message
}

// do sends a request to the test server.
func (e *env) do(t testing.TB, method, path string, body []byte) response {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, rd)
	if err != nil {
		t.Fatalf("NewRequest: %v", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, path, err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

// serve runs a request through the handler in-process (no network), with
// Content-Type: application/json.
func (e *env) serve(method, path string, body []byte) response {
	return e.serveWith(method, path, body, http.Header{"Content-Type": {"application/json"}})
}

// serveWith is serve with the given request headers.
func (e *env) serveWith(method, path string, body []byte, h http.Header) response {
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	for k, vs := range h {
		req.Header[k] = vs
	}
	rec := httptest.NewRecorder()
	e.handler.ServeHTTP(rec, req)
	return response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

// decode unmarshals a response body into v.
func decode[T any](t testing.TB, r response) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("decoding %q: %v", r.body, err)
	}
	return v
}

// post submits an intent and returns the record.
func (e *env) post(t testing.TB, queue, typ, data, key string) (store.Transaction, response) {
	t.Helper()
	m := map[string]any{"queue": queue, "type": typ}
	if data != "" {
		m["data"] = json.RawMessage(data)
	}
	if key != "" {
		m["idempotencyKey"] = key
	}
	b, _ := json.Marshal(m)
	r := e.do(t, http.MethodPost, "/v1/transactions", b)
	if r.status != http.StatusCreated && r.status != http.StatusOK {
		t.Fatalf("POST /v1/transactions: %d %s", r.status, r.body)
	}
	return decode[store.Transaction](t, r), r
}

// countRecords counts every transaction in the store.
func countRecords(t testing.TB, st store.Store) int {
	t.Helper()
	n := 0
	var after int64
	for {
		txs, err := st.List(context.Background(), store.Filter{After: after, Limit: 1000})
		if err != nil {
			t.Fatalf("store.List: %v", err)
		}
		n += len(txs)
		if len(txs) < 1000 {
			return n
		}
		after = txs[len(txs)-1].Seq
	}
}

func isJSON(b []byte) bool {
	return json.Valid(bytes.TrimSpace(b)) && strings.TrimSpace(string(b)) != ""
}
