package procs_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/procs"
)

// TestCommitteeStarts: four ordo serve processes set up as docs/distseq.md says
// confirm an intent sent to one of them, and every node names the same
// coordinator.
func TestCommitteeStarts(t *testing.T) {
	c := startCommittee(t, procs.Config{})
	ctx := t.Context()
	id, err := c.Send(ctx, 2, "smoke-1", "alice", 150)
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 30*time.Second, "a receipt", func() bool {
		raw, err := c.RPC(ctx, 2, "ptx_getTransactionReceipt", []string{id})
		var r struct{ Success bool }
		return err == nil && json.Unmarshal(raw, &r) == nil && r.Success
	})
	idx, co, agree, err := c.Coordinator(ctx, c.Config().Group)
	if err != nil || idx < 0 || agree != c.Nodes() {
		t.Fatalf("coordinator %d %s, %d agree: %v", idx, co, agree, err)
	}
	t.Logf("intent %s confirmed; coordinator node%d %s", id, idx+1, co)
}
