package apidoc_test

import (
	"net/http"
	"testing"

	"github.com/ordolabs/ordo/apispec"
	"github.com/ordolabs/ordo/internal/apidoc"
)

// TestValidatorCheck checks the validator against the committed document:
// what it allows and what it refuses.
func TestValidatorCheck(t *testing.T) {
	t.Parallel()
	v, err := apidoc.NewValidator(apispec.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	const (
		json     = "application/json"
		senders  = `{"senders":[]}`
		txs      = `{"transactions":[],"next":""}`
		notFound = `{"error":{"code":"not_found","message":"no queue a/b"}}`
	)
	for _, tc := range []struct {
		name string
		x    apidoc.Exchange
		ok   bool
	}{
		{"a documented answer", apidoc.Exchange{Method: "GET", Path: "/v1/senders", Status: 200, ContentType: json, Response: []byte(senders)}, true},
		{"a member too many", apidoc.Exchange{Method: "GET", Path: "/v1/senders", Status: 200, ContentType: json, Response: []byte(`{"senders":[],"x":1}`)}, false},
		{"a member missing", apidoc.Exchange{Method: "GET", Path: "/v1/transactions", Status: 200, ContentType: json, Response: []byte(`{"transactions":[]}`)}, false},
		{"a status not documented", apidoc.Exchange{Method: "GET", Path: "/v1/senders", Status: 418, ContentType: json, Response: []byte(senders)}, false},
		{"not JSON", apidoc.Exchange{Method: "GET", Path: "/v1/senders", Status: 200, ContentType: "text/plain", Response: []byte(senders)}, false},
		{"no such route, 404", apidoc.Exchange{Method: "GET", Path: "/v1/nowhere", Status: 404, ContentType: json,
			Response: []byte(`{"error":{"code":"route_not_found","message":"no"}}`)}, true},
		{"no such route, 200", apidoc.Exchange{Method: "GET", Path: "/v1/nowhere", Status: 200, ContentType: json, Response: []byte(`{}`)}, false},
		{"an escaped slash in a parameter", apidoc.Exchange{Method: "GET", Path: "/v1/queues/a%2Fb", Status: 404, ContentType: json, Response: []byte(notFound)}, true},
		{"a code not of the status", apidoc.Exchange{Method: "GET", Path: "/v1/queues/a", Status: 404, ContentType: json,
			Response: []byte(`{"error":{"code":"forbidden","message":"no"}}`)}, false},
		{"a query parameter", apidoc.Exchange{Method: "GET", Path: "/v1/transactions", RawQuery: "limit=5&state=DONE", Status: 200, ContentType: json, Response: []byte(txs)}, true},
		{"an unknown query parameter", apidoc.Exchange{Method: "GET", Path: "/v1/transactions", RawQuery: "bogus=1", Status: 200, ContentType: json, Response: []byte(txs)}, false},
		{"a limit not a number", apidoc.Exchange{Method: "GET", Path: "/v1/transactions", RawQuery: "limit=abc", Status: 200, ContentType: json, Response: []byte(txs)}, false},
		{"a limit too large", apidoc.Exchange{Method: "GET", Path: "/v1/transactions", RawQuery: "limit=5000", Status: 200, ContentType: json, Response: []byte(txs)}, false},
		{"a state not an enum", apidoc.Exchange{Method: "GET", Path: "/v1/transactions", RawQuery: "state=LOST", Status: 200, ContentType: json, Response: []byte(txs)}, false},
		{"a refused query, refused", apidoc.Exchange{Method: "GET", Path: "/v1/transactions", RawQuery: "bogus=1", Status: 400, ContentType: json,
			Response: []byte(`{"error":{"code":"bad_query","message":"no"}}`)}, true},
		{"a request body accepted", apidoc.Exchange{Method: "POST", Path: "/v1/senders/s/cancel", Request: []byte(`{"nonce":"1"}`), Status: 200, ContentType: json,
			Response: []byte(`{"sender":"s","nonce":1,"then":"fail","uid":"u"}`)}, false},
		{"a request body refused", apidoc.Exchange{Method: "POST", Path: "/v1/senders/s/cancel", Request: []byte(`{"nonce":"1"}`), Status: 400, ContentType: json,
			Response: []byte(`{"error":{"code":"bad_json","message":"no"}}`)}, true},
		{"a required body missing", apidoc.Exchange{Method: "POST", Path: "/v1/senders/s/cancel", Status: 200, ContentType: json,
			Response: []byte(`{"sender":"s","nonce":1,"then":"fail","uid":"u"}`)}, false},
		{"a 401 with its challenge", apidoc.Exchange{Method: "GET", Path: "/v1/senders", Status: 401, ContentType: json, Header: http.Header{"Www-Authenticate": {`Bearer realm="ordo"`}},
			Response: []byte(`{"error":{"code":"unauthenticated","message":"no"}}`)}, true},
		{"a 401 without its challenge", apidoc.Exchange{Method: "GET", Path: "/v1/senders", Status: 401, ContentType: json, Header: http.Header{},
			Response: []byte(`{"error":{"code":"unauthenticated","message":"no"}}`)}, false},
		{"a 429 without Retry-After", apidoc.Exchange{Method: "POST", Path: "/v1/transactions", Request: []byte(`{}`), Status: 429, ContentType: json, Header: http.Header{},
			Response: []byte(`{"error":{"code":"rate_limited","message":"no"}}`)}, false},
		{"an exempt route", apidoc.Exchange{Method: "GET", Path: "/metrics", Status: 200, ContentType: "text/plain", Response: []byte("# HELP x\n")}, true},
	} {
		err := v.Check(tc.x)
		if (err == nil) != tc.ok {
			t.Errorf("%s: allowed %v, want %v: %v", tc.name, err == nil, tc.ok, err)
		}
	}
}

// TestRPCValidatorCheck checks the JSON-RPC validator against the
// committed OpenRPC document.
func TestRPCValidatorCheck(t *testing.T) {
	t.Parallel()
	v, err := apidoc.NewRPCValidator(apispec.OpenRPC)
	if err != nil {
		t.Fatal(err)
	}
	const (
		get     = `{"jsonrpc":"2.0","id":1,"method":"ptx_getTransaction","params":["tx1"]}`
		tx      = `{"id":"tx1","type":"private","domain":"token","to":"g","data":{},"status":"pending","created":"2026-01-01T00:00:00Z"}`
		send    = `{"jsonrpc":"2.0","id":2,"method":"ptx_sendTransaction","params":[{"from":"p","to":"g","data":{}}]}`
		badSend = `{"jsonrpc":"2.0","id":2,"method":"ptx_sendTransaction","params":[{"from":"p","to":"g","data":{},"gas":1}]}`
	)
	for _, tc := range []struct {
		name         string
		call, answer string
		ok           bool
	}{
		{"a result", get, `{"jsonrpc":"2.0","id":1,"result":` + tx + `}`, true},
		{"a null result", get, `{"jsonrpc":"2.0","id":1,"result":null}`, true},
		{"a result of another shape", get, `{"jsonrpc":"2.0","id":1,"result":{"id":"tx1"}}`, false},
		{"an id", send, `{"jsonrpc":"2.0","id":2,"result":"tx1"}`, true},
		{"params the method refuses, answered", badSend, `{"jsonrpc":"2.0","id":2,"result":"tx1"}`, false},
		{"params the method refuses, refused", badSend, `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"no"}}`, true},
		{"a listed error", send, `{"jsonrpc":"2.0","id":2,"error":{"code":-32010,"message":"no","data":{"code":"not_owner"}}}`, true},
		{"an error not listed", get, `{"jsonrpc":"2.0","id":1,"error":{"code":-32010,"message":"no","data":{"code":"not_owner"}}}`, false},
		{"a generic error", `{"jsonrpc":"2.0","id":3,"method":"nope"}`, `{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"no"}}`, true},
		{"a result to a method not documented", `{"jsonrpc":"2.0","id":3,"method":"ptx_nope","params":[1]}`, `{"jsonrpc":"2.0","id":3,"result":1}`, false},
		{"a batch", "[" + get + "," + send + "]", `[{"jsonrpc":"2.0","id":2,"result":"tx1"},{"jsonrpc":"2.0","id":1,"result":null}]`, true},
		{"a batch with a bad answer", "[" + get + "," + send + "]", `[{"jsonrpc":"2.0","id":2,"result":5},{"jsonrpc":"2.0","id":1,"result":null}]`, false},
		{"a notification", `{"jsonrpc":"2.0","method":"ptx_getTransaction","params":["tx1"]}`, ``, true},
	} {
		err := v.Check([]byte(tc.call), []byte(tc.answer))
		if (err == nil) != tc.ok {
			t.Errorf("%s: allowed %v, want %v: %v", tc.name, err == nil, tc.ok, err)
		}
	}
}
