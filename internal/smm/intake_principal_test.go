package smm

import (
	"errors"
	"testing"

	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/store"
)

// TestIntakeKeyPerPrincipalForwarded: a forwarded intent keeps its
// caller's principal through to the primary, the scope of its key: one
// key under alice and bob is two records at the primary, alice again
// finds hers wherever she submits, the log entries carry the principal
// (a new primary adopting the log keeps it), and a forward naming an
// engine's principal is refused.
func TestIntakeKeyPerPrincipalForwarded(t *testing.T) {
	h := newHarness(t, harnessOpts{nodes: 3})
	a, b, c := h.nodes[0], h.nodes[1], h.nodes[2]
	h.putSet("q", a, b)
	submit := func(at *testNode, principal string) store.EnqueueResult {
		t.Helper()
		res, err := at.Submit(h.ctx, principal, intake("q", "order-1"))
		if err != nil || len(res) != 1 {
			t.Fatalf("%s at %s: %+v %v", principal, at.id, res, err)
		}
		return res[0]
	}
	hers := submit(b, "alice")
	his := submit(c, "bob")
	if !hers.Created || !his.Created || his.Transaction.UID == hers.Transaction.UID {
		t.Fatalf("one key, alice then bob: %+v and %+v; want two records", hers, his)
	}
	for _, at := range []*testNode{a, c} {
		if again := submit(at, "alice"); again.Created || again.Transaction.UID != hers.Transaction.UID {
			t.Fatalf("alice again at %s: %+v, want her %s", at.id, again, hers.Transaction.UID)
		}
	}
	entries, err := a.st.LogAfter(h.ctx, "q", 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	var principals []string
	for _, e := range entries {
		ch, err := store.DecodeChange(e.Payload)
		if err != nil {
			t.Fatal(err)
		}
		principals = append(principals, ch.Principal)
	}
	if len(principals) != 2 || principals[0] != "alice" || principals[1] != "bob" {
		t.Fatalf("the log's intents carry principals %q, want [alice bob]", principals)
	}
	if _, err := c.Submit(h.ctx, sequencer.PrincipalLeader, intake("q", "leader-key")); !errors.Is(err, ErrForbidden) {
		t.Fatalf("a forward as %s: %v, want ErrForbidden", sequencer.PrincipalLeader, err)
	}
}
