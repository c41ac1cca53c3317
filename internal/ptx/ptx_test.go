package ptx_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/apispec"
	"github.com/ordolabs/ordo/internal/apidoc"
	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/distseq/token"
	"github.com/ordolabs/ordo/internal/ptx"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/memstore"
	"github.com/ordolabs/ordo/internal/transport"
)

// backend commits intents to a memstore, as the node does before it
// answers; a known key answers its id.
type backend struct {
	st *memstore.Distseq
	n  int
}

func (b *backend) Intents() store.DistseqStore { return b.st }

func (b *backend) ID() transport.NodeID { return "node1" }

// newBackend holds group g of node1 and node2, and coins of 100, 200 and
// 300 for p@node1 and one of 1000 for q@node1.
func newBackend(tb testing.TB) *backend {
	tb.Helper()
	st := memstore.NewDistseq()
	var sts []store.DistseqState
	for _, c := range append(token.Mint("p", "p@node1", 100, 200, 300), token.Mint("q", "q@node1", 1000)...) {
		sts = append(sts, stored(c, ""))
	}
	err := st.ApplyDistseq(context.Background(), store.DistseqBatch{
		Groups: []store.DistseqGroup{{Contract: "g", Members: []store.DistseqMember{{ID: "node1", PublicKey: "00"}, {ID: "node2", PublicKey: "01"}}, Threshold: 2}},
		States: sts})
	if err != nil {
		tb.Fatal(err)
	}
	return &backend{st: st}
}

func (b *backend) Submit(ctx context.Context, contract, key string, intent []byte) (string, error) {
	return b.submit(ctx, contract, key, intent, false)
}

func (b *backend) Prepare(ctx context.Context, contract, key string, intent []byte) (string, error) {
	return b.submit(ctx, contract, key, intent, true)
}

func (b *backend) submit(ctx context.Context, contract, key string, intent []byte, prepare bool) (string, error) {
	if contract != "g" {
		return "", fmt.Errorf("%w: %q", distseq.ErrNoSuchGroup, contract)
	}
	if key != "" {
		if r, err := b.st.DistseqIntentByKey(ctx, key); err == nil {
			return r.TxID, nil
		}
	}
	b.n++
	id := fmt.Sprintf("tx%d", b.n)
	now := time.Unix(int64(b.n), 0).UTC()
	return id, b.st.ApplyDistseq(ctx, store.DistseqBatch{Intents: []store.DistseqIntent{{TxID: id, Contract: contract,
		IdempotencyKey: key, Payload: intent, Status: store.DistseqPending, Prepare: prepare, CreatedAt: now, UpdatedAt: now}}})
}

func call(t *testing.T, h http.Handler, roles []auth.Role, body string) (int, string) {
	t.Helper()
	r := httptest.NewRequest("POST", "/rpc", strings.NewReader(body))
	r = r.WithContext(auth.WithPrincipal(r.Context(), auth.Principal{Name: "p", Roles: roles}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if err := rpcDoc(t).Check([]byte(body), w.Body.Bytes()); err != nil {
		t.Errorf("the OpenRPC document does not allow %s → %s: %v", body, w.Body.Bytes(), err)
	}
	return w.Code, strings.TrimSpace(w.Body.String())
}

// rpcDoc is the checker of the committed OpenRPC document, which every
// call of these tests must satisfy.
var rpcDoc = func() func(testing.TB) *apidoc.RPCValidator {
	v, err := apidoc.NewRPCValidator(apispec.OpenRPC)
	return func(tb testing.TB) *apidoc.RPCValidator {
		tb.Helper()
		if err != nil {
			tb.Fatalf("the OpenRPC document: %v", err)
		}
		return v
	}
}()

// TestMethodsServed checks every method of ptx.Methods is served (none
// answers method not found), an unlisted one is not, and rpc.discover
// answers the OpenRPC document to a reader.
func TestMethodsServed(t *testing.T) {
	h := ptx.Handler{B: newBackend(t)}
	all := []auth.Role{auth.RoleAdmin}
	for _, m := range ptx.Methods {
		if _, got := call(t, h, all, `{"jsonrpc":"2.0","id":1,"method":"`+m+`","params":["x"]}`); strings.Contains(got, `"code":-32601`) {
			t.Errorf("%s: %s", m, got)
		}
	}
	if _, got := call(t, h, all, `{"jsonrpc":"2.0","id":1,"method":"ptx_unlisted","params":["x"]}`); !strings.Contains(got, `"code":-32601`) {
		t.Errorf("ptx_unlisted: %s", got)
	}
	_, got := call(t, ptx.Handler{}, []auth.Role{auth.RoleRead}, `{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}`)
	var a struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal([]byte(got), &a); err != nil || !json.Valid(a.Result) || !strings.Contains(string(a.Result), `"openrpc":"1.3.2"`) {
		t.Errorf("rpc.discover: %.200s", got)
	}
	if _, got := call(t, h, []auth.Role{auth.RoleSubmit}, `{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}`); !strings.Contains(got, `"forbidden"`) {
		t.Errorf("rpc.discover to a submitter: %s", got)
	}
}

func TestRPC(t *testing.T) {
	b := newBackend(t)
	h := ptx.Handler{B: b}
	all := []auth.Role{auth.RoleAdmin}
	send := `{"jsonrpc":"2.0","id":1,"method":"ptx_sendTransaction","params":[{"type":"private","domain":"token","function":"transfer","from":"p","to":"g","data":{"to":"alice","amount":5},"idempotencyKey":"k1"}]}`
	for _, tt := range []struct {
		name  string
		roles []auth.Role
		body  string
		want  string
	}{
		{"send", all, send, `{"jsonrpc":"2.0","id":1,"result":"tx1"}`},
		{"a resend with the key answers the same id", all, send, `{"jsonrpc":"2.0","id":1,"result":"tx1"}`},
		{"get", all, `{"jsonrpc":"2.0","id":"a","method":"ptx_getTransaction","params":["tx1"]}`, `"status":"pending"`},
		{"no receipt while pending", all, `{"jsonrpc":"2.0","id":2,"method":"ptx_getTransactionReceipt","params":["tx1"]}`, `{"jsonrpc":"2.0","id":2,"result":null}`},
		{"unknown id", all, `{"jsonrpc":"2.0","id":3,"method":"ptx_getTransaction","params":["nope"]}`, `"result":null`},
		{"query", all, `{"jsonrpc":"2.0","id":4,"method":"ptx_queryTransactions","params":[{"to":"g","limit":10}]}`, `"id":"tx1"`},
		{"batch", all, `[{"jsonrpc":"2.0","id":5,"method":"ptx_sendTransactions","params":[[{"from":"p","to":"g","data":{"to":"b","amount":1}},{"from":"p","to":"g","data":{"to":"c","amount":1}}]]},{"jsonrpc":"2.0","method":"ptx_getTransaction","params":["tx1"]},{"jsonrpc":"2.0","id":6,"method":"nope"}]`,
			`[{"jsonrpc":"2.0","id":5,"result":["tx2","tx3"]},{"jsonrpc":"2.0","id":6,"error":{"code":-32601,"message":"no such method: nope"}}]`},
		{"parse error", all, `{"jsonrpc":`, `"code":-32700`},
		{"not JSON-RPC", all, `{"id":1,"method":"ptx_getTransaction"}`, `"code":-32600`},
		{"unknown field", all, `{"jsonrpc":"2.0","id":1,"method":"ptx_getTransaction","params":["x"],"extra":1}`, `"code":-32600`},
		{"bad params", all, `{"jsonrpc":"2.0","id":1,"method":"ptx_sendTransaction","params":{"to":"g"}}`, `"code":-32602`},
		{"unknown tx field", all, `{"jsonrpc":"2.0","id":1,"method":"ptx_sendTransaction","params":[{"from":"p","to":"g","data":{},"gas":1}]}`, `"code":-32602`},
		{"another domain", all, `{"jsonrpc":"2.0","id":1,"method":"ptx_sendTransaction","params":[{"domain":"pente","from":"p","to":"g","data":{}}]}`, `"code":-32602`},
		{"no such group", all, `{"jsonrpc":"2.0","id":1,"method":"ptx_sendTransaction","params":[{"from":"p","to":"x","data":{"to":"b","amount":1}}]}`, `"no_such_group"`},
		{"a reader cannot send", []auth.Role{auth.RoleRead}, send, `"forbidden"`},
		{"a submitter cannot read", []auth.Role{auth.RoleSubmit}, `{"jsonrpc":"2.0","id":1,"method":"ptx_getTransaction","params":["tx1"]}`, `"forbidden"`},
		{"empty batch", all, `[]`, `"code":-32600`},
	} {
		code, got := call(t, h, tt.roles, tt.body)
		if code != http.StatusOK || !strings.Contains(got, tt.want) {
			t.Errorf("%s: %d %s\nwant %s", tt.name, code, got, tt.want)
		}
	}
	// Refused calls changed nothing: three intents, from the three sends.
	recs, _ := b.st.DistseqIntents(context.Background(), store.DistseqIntentFilter{})
	if len(recs) != 3 {
		t.Fatalf("%d intents after the refusals, want 3", len(recs))
	}
	// A notification alone is run and not answered.
	if code, body := call(t, h, all, `{"jsonrpc":"2.0","method":"ptx_getTransaction","params":["tx1"]}`); code != http.StatusNoContent || body != "" {
		t.Errorf("notification: %d %q", code, body)
	}
	// No engine: every call says so.
	if _, got := call(t, ptx.Handler{}, all, send); !strings.Contains(got, `"unavailable"`) {
		t.Errorf("without a distributed sequencer: %s", got)
	}
}

// FuzzRPC: any body gets a JSON answer (or none, for notifications) and
// never a panic.
func FuzzRPC(f *testing.F) {
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"ptx_sendTransaction","params":[{"from":"p","to":"g","data":{"to":"a","amount":1}}]}`)
	f.Add(`[{"jsonrpc":"2.0","id":1,"method":"ptx_queryTransactions","params":[{}]}]`)
	f.Add(`{"jsonrpc":"2.0","id":null,"method":"ptx_getTransaction","params":[1]}`)
	f.Add(`{"jsonrpc":"2.0","id":2,"method":"ptx_getTransactionFull","params":["tx1"]}`)
	f.Add(`[{"jsonrpc":"2.0","id":4,"method":"ptx_prepareTransaction","params":[{"from":"p","to":"g","data":{"to":"a","amount":1}}]},{"jsonrpc":"2.0","id":5,"method":"ptx_getPreparedTransaction","params":["tx1"]}]`)
	f.Add(`{"jsonrpc":"2.0","id":3,"method":"ptx_call","params":[{"to":"g","function":"balanceOf","data":{"owner":"a"}}]}`)
	f.Fuzz(func(t *testing.T, body string) {
		h := ptx.Handler{B: newBackend(t)}
		code, got := call(t, h, []auth.Role{auth.RoleAdmin}, body)
		if code == http.StatusNoContent {
			return
		}
		if code != http.StatusOK || !json.Valid([]byte(got)) {
			t.Fatalf("%q: %d %q", body, code, got)
		}
	})
}
