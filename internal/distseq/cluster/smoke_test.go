package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/distseq/token"
	"github.com/ordolabs/ordo/internal/store"
)

func TestSmokeHappyPath(t *testing.T) {
	ctx := context.Background()
	c, err := New(ctx, Config{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.RunFor(ctx, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i, n := range c.Nodes() {
		id, err := c.Submit(ctx, n.ID, Group(0), token.Intent{To: "bob", Amount: uint64(100 + i)}, "")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	ok, err := c.RunUntil(ctx, 30*time.Second, func() bool {
		for _, id := range ids {
			rec, err := c.Intent(ctx, distseq.NodeID(id[:1]), id)
			if err != nil || rec.Status != store.DistseqConfirmed {
				return false
			}
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range c.Nodes() {
		t.Logf("%s sent %v", n.ID, n.Sent)
		for _, tr := range n.Transitions {
			t.Logf("%s %s %s %s -> %s", n.ID, tr.Role, tr.TxID, tr.From, tr.To)
		}
	}
	if !ok {
		t.Fatalf("not all confirmed; chain %v", c.Confirmed)
	}
}
