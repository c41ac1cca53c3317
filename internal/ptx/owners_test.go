package ptx_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/ptx"
	"github.com/ordolabs/ordo/internal/store"
)

func callAs(h ptx.Handler, name, body string) string {
	r := httptest.NewRequest("POST", "/rpc", strings.NewReader(body))
	r = r.WithContext(auth.WithPrincipal(r.Context(), auth.Principal{Name: name, Roles: []auth.Role{auth.RoleSubmit, auth.RoleRead}}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return strings.TrimSpace(w.Body.String())
}

func sendBody(from, to string, amount int, key string) string {
	f := ""
	if from != "" {
		f = fmt.Sprintf(`"from":%q,`, from)
	}
	k := ""
	if key != "" {
		k = fmt.Sprintf(`,"idempotencyKey":%q`, key)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"ptx_sendTransaction","params":[{%s"to":"g","data":{"to":%q,"amount":%d}%s}]}`, f, to, amount, k)
}

// TestOwners: a send spends from's states only when its principal acts for
// from, an owner of this node, and from holds enough settled states; the
// intent committed names from and to qualified by their nodes.
func TestOwners(t *testing.T) {
	t.Parallel()
	b := newBackend(t)
	h := ptx.Handler{B: b, Owners: map[string][]string{"r": {"p"}, "admin": {"*"}}}
	for _, tt := range []struct{ name, as, body, want string }{
		{"no from", "p", sendBody("", "bob", 5, ""), `"code":-32602`},
		{"another owner of this node", "q", sendBody("p", "bob", 5, ""), `"code":"not_owner"`},
		{"qualified by another node", "p", sendBody("p@node2", "bob", 5, ""), `"code":"not_owner"`},
		{"not an owner", "p", sendBody("a@b@c", "bob", 5, ""), `"code":-32602`},
		{"more than from holds", "p", sendBody("p", "bob", 601, ""), `"code":"insufficient_funds"`},
		{"to on no member node", "p", sendBody("p", "bob@node3", 5, ""), `"code":-32602`},
		{"own name", "p", sendBody("p", "bob@node2", 5, ""), `"result":"tx1"`},
		{"qualified by this node", "p", sendBody("p@node1", "bob", 5, ""), `"result":"tx2"`},
		{"configured to act for p", "r", sendBody("p", "bob", 5, ""), `"result":"tx3"`},
		{"acts for every owner", "admin", sendBody("q", "bob", 1000, ""), `"result":"tx4"`},
		{"not for another node's owner even with *", "admin", sendBody("q@node2", "bob", 1, ""), `"code":"not_owner"`},
	} {
		if got := callAs(h, tt.as, tt.body); !strings.Contains(got, tt.want) {
			t.Errorf("%s: %s\nwant %s", tt.name, got, tt.want)
		}
	}
	rec, err := b.st.DistseqIntent(context.Background(), "tx1")
	if err != nil || string(rec.Payload) != `{"from":"p@node1","to":"bob@node2","amount":5}` {
		t.Fatalf("tx1: %s, %v", rec.Payload, err)
	}
	// A batch is vetted whole before any of it is sent: one refused send
	// refuses the batch, and nothing of it is committed.
	batch := `{"jsonrpc":"2.0","id":1,"method":"ptx_sendTransactions","params":[[` +
		`{"from":"p","to":"g","data":{"to":"bob","amount":5}},{"from":"q","to":"g","data":{"to":"bob","amount":5}}]]}`
	if got := callAs(h, "p", batch); !strings.Contains(got, `"code":"not_owner"`) || !strings.Contains(got, "transaction 1") {
		t.Errorf("batch with another owner's send: %s", got)
	}
	recs, _ := b.st.DistseqIntents(context.Background(), store.DistseqIntentFilter{})
	if len(recs) != 4 {
		t.Fatalf("%d intents, want the 4 taken", len(recs))
	}
}

// TestKeysPerPrincipal: an idempotency key is the principal's: another
// principal's same key is a new transaction and never answers or names the
// first; the same principal's key answers its id for the same content and
// a conflict for other content.
func TestKeysPerPrincipal(t *testing.T) {
	t.Parallel()
	b := newBackend(t)
	h := ptx.Handler{B: b}
	for _, tt := range []struct{ name, as, body, want string }{
		{"p sends with k", "p", sendBody("p", "bob", 5, "k"), `"result":"tx1"`},
		{"p again, same content", "p", sendBody("p", "bob", 5, "k"), `"result":"tx1"`},
		{"p again, other content", "p", sendBody("p", "bob", 6, "k"), fmt.Sprintf(`"code":%d`, ptx.CodeConflict)},
		{"p prepares with k", "p", strings.Replace(sendBody("p", "bob", 5, "k"), "ptx_sendTransaction", "ptx_prepareTransaction", 1), `"idempotency_conflict"`},
		{"q with k: its own", "q", sendBody("q", "bob", 5, "k"), `"result":"tx2"`},
		{"q with k again", "q", sendBody("q", "bob", 5, "k"), `"result":"tx2"`},
		{"q with k, p's content", "q", sendBody("q", "bob", 6, "k"), `"idempotency_conflict"`},
		{"q reads its key as sent", "q", `{"jsonrpc":"2.0","id":1,"method":"ptx_getTransaction","params":["tx2"]}`, `"idempotencyKey":"k"`},
	} {
		got := callAs(h, tt.as, tt.body)
		if !strings.Contains(got, tt.want) {
			t.Errorf("%s: %s\nwant %s", tt.name, got, tt.want)
		}
		if tt.as == "q" && (strings.Contains(got, "tx1") || strings.Contains(got, "p@") || strings.Contains(got, `"p/`)) {
			t.Errorf("%s: q's answer names p's record: %s", tt.name, got)
		}
	}
}
