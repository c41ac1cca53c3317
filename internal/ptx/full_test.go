package ptx_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/ptx"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/memstore"
)

func stored(ref distseq.StateRef, spentBy string) store.DistseqState {
	b, _ := json.Marshal(ref)
	return store.DistseqState{Contract: "g", ID: ref.ID, Data: b, CreatedBy: ref.CreatedBy, Spent: spentBy != "", SpentBy: spentBy, Height: 3}
}

// TestFullAndCall: ptx_getTransactionFull answers a confirmed transaction
// with its receipt and the states it spent and created; ptx_call answers
// the token domain's reads over the unspent states this node holds.
func TestFullAndCall(t *testing.T) {
	ctx := context.Background()
	st := memstore.NewDistseq()
	now := time.Unix(10, 0).UTC()
	coin := func(id, owner, by string, amount int) distseq.StateRef {
		return distseq.StateRef{ID: id, Owner: owner, CreatedBy: by, Data: json.RawMessage(fmt.Sprintf(`{"amount":%d}`, amount))}
	}
	err := st.ApplyDistseq(ctx, store.DistseqBatch{
		Groups: []store.DistseqGroup{{Contract: "g", Members: []store.DistseqMember{{ID: "n1", PublicKey: "00"}}, Threshold: 1}},
		Intents: []store.DistseqIntent{{TxID: "tx1", Contract: "g", Payload: []byte(`{"to":"alice","amount":30}`), Status: store.DistseqConfirmed, CreatedAt: now, UpdatedAt: now},
			{TxID: "tx2", Contract: "g", Payload: []byte(`{"to":"bob","amount":1}`), Status: store.DistseqPending, CreatedAt: now, UpdatedAt: now}},
		States: []store.DistseqState{stored(coin("m0", "", "", 100), "tx1"), stored(coin("tx1.0", "alice@node1", "tx1", 30), ""),
			stored(coin("tx1.1", "n1", "tx1", 70), ""), stored(coin("m1", "", "", 100), "")},
	})
	if err != nil {
		t.Fatal(err)
	}
	h := ptx.Handler{B: &backend{st: st}}
	all := []auth.Role{auth.RoleAdmin}
	for _, tt := range []struct{ name, body, want string }{
		{"full", `{"jsonrpc":"2.0","id":1,"method":"ptx_getTransactionFull","params":["tx1"]}`,
			`"receipt":{"id":"tx1","success":true},"states":{"spent":[{"id":"m0","data":{"amount":100},"spentBy":"tx1","height":3}],"created":[{"id":"tx1.0","owner":"alice@node1","data":{"amount":30},"createdBy":"tx1","height":3},{"id":"tx1.1","owner":"n1","data":{"amount":70},"createdBy":"tx1","height":3}]}`},
		{"full, pending: no receipt", `{"jsonrpc":"2.0","id":2,"method":"ptx_getTransactionFull","params":["tx2"]}`, `"status":"pending","created":"1970-01-01T00:00:10Z","states":{"spent":[],"created":[]}`},
		{"full, unknown", `{"jsonrpc":"2.0","id":3,"method":"ptx_getTransactionFull","params":["nope"]}`, `"result":null`},
		{"balanceOf", `{"jsonrpc":"2.0","id":4,"method":"ptx_call","params":[{"to":"g","function":"balanceOf","data":{"owner":"alice"}}]}`,
			`"result":{"owner":"alice@node1","balance":30,"coins":1}`},
		{"coins", `{"jsonrpc":"2.0","id":5,"method":"ptx_call","params":[{"to":"g","domain":"token","function":"coins","data":{}}]}`,
			`"result":[{"id":"m1","amount":100},{"id":"tx1.0","owner":"alice@node1","amount":30,"createdBy":"tx1"},{"id":"tx1.1","owner":"n1","amount":70,"createdBy":"tx1"}]`},
		{"unknown function", `{"jsonrpc":"2.0","id":6,"method":"ptx_call","params":[{"to":"g","function":"mint","data":{}}]}`, `"code":-32602`},
		{"unknown group", `{"jsonrpc":"2.0","id":7,"method":"ptx_call","params":[{"to":"x","function":"coins"}]}`, `"no_such_group"`},
		{"a submitter cannot call", `{"jsonrpc":"2.0","id":8,"method":"ptx_call","params":[{"to":"g","function":"coins"}]}`, `"forbidden"`},
	} {
		roles := all
		if strings.HasPrefix(tt.name, "a submitter") {
			roles = []auth.Role{auth.RoleSubmit}
		}
		code, got := call(t, h, roles, tt.body)
		if code != http.StatusOK || !strings.Contains(got, tt.want) {
			t.Errorf("%s: %d %s\nwant %s", tt.name, code, got, tt.want)
		}
	}
}

// TestPrepare: ptx_prepareTransaction(s) commit intents for external
// submission (a key answers the same id); ptx_getPreparedTransaction is
// null until the committee prepared it, then the call to send; it refuses
// a transaction ordo dispatches itself.
func TestPrepare(t *testing.T) {
	ctx := context.Background()
	b := newBackend(t)
	h := ptx.Handler{B: b}
	all := []auth.Role{auth.RoleAdmin}
	prep := `{"jsonrpc":"2.0","id":1,"method":"ptx_prepareTransaction","params":[{"from":"p","to":"g","data":{"to":"alice","amount":5},"idempotencyKey":"p1"}]}`
	for _, tt := range []struct{ name, body, want string }{
		{"prepare", prep, `"result":"tx1"`},
		{"again, same key", prep, `"result":"tx1"`},
		{"prepare many", `{"jsonrpc":"2.0","id":2,"method":"ptx_prepareTransactions","params":[[{"from":"p","to":"g","data":{"to":"b","amount":1}}]]}`, `"result":["tx2"]`},
		{"send", `{"jsonrpc":"2.0","id":3,"method":"ptx_sendTransaction","params":[{"from":"p","to":"g","data":{"to":"c","amount":1}}]}`, `"result":"tx3"`},
		{"not prepared yet", `{"jsonrpc":"2.0","id":4,"method":"ptx_getPreparedTransaction","params":["tx1"]}`, `"result":null`},
		{"a dispatched one", `{"jsonrpc":"2.0","id":5,"method":"ptx_getPreparedTransaction","params":["tx3"]}`, `"not_prepared"`},
		{"a reader cannot prepare", prep, `"forbidden"`},
	} {
		roles := all
		if strings.HasPrefix(tt.name, "a reader") {
			roles = []auth.Role{auth.RoleRead}
		}
		if code, got := call(t, h, roles, tt.body); code != http.StatusOK || !strings.Contains(got, tt.want) {
			t.Errorf("%s: %d %s\nwant %s", tt.name, code, got, tt.want)
		}
	}
	rec, err := b.st.DistseqIntent(ctx, "tx1")
	if err != nil || !rec.Prepare {
		t.Fatalf("tx1: %+v, %v", rec, err)
	}
	rec.Prepared, _ = json.Marshal(distseq.PreparedTx{Call: []byte(`{"group":"g","txId":"tx1"}`)})
	if err := b.st.ApplyDistseq(ctx, store.DistseqBatch{Intents: []store.DistseqIntent{rec}}); err != nil {
		t.Fatal(err)
	}
	want := `"result":{"id":"tx1","domain":"token","to":"g","transaction":{"contract":"privacygroup","method":"confirm","args":{"group":"g","txId":"tx1"}}}`
	if _, got := call(t, h, all, `{"jsonrpc":"2.0","id":6,"method":"ptx_getPreparedTransaction","params":["tx1"]}`); !strings.Contains(got, want) {
		t.Errorf("prepared: %s\nwant %s", got, want)
	}
}
