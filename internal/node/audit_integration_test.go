package node

import (
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/store"
)

// TestIntegrationAuditQueueSlots checks the integration audit's count of
// every included transaction per zkApp per block against blocks written by
// hand, so that a passing fault case means the sequencer kept one
// transaction per queue per block, not that the check is blind.
func TestIntegrationAuditQueueSlots(t *testing.T) {
	byUID := map[string]store.Transaction{}
	for _, r := range []struct{ uid, queue string }{
		{"a1", "qa"}, {"a2", "qa"}, {"b1", "qb"}, {"b2", "qb"}, {"c1", "qc"}, {"d1", "qd"}, {"d2", "qd"},
	} {
		byUID[r.uid] = store.Transaction{UID: r.uid, Queue: r.queue}
	}
	var txs []chainTx
	add := func(height uint64, zkapp, memo, status, reason string) {
		index := 0
		if n := len(txs); n > 0 && txs[n-1].Height == height {
			index = txs[n-1].Index + 1
		}
		txs = append(txs, chainTx{Height: height, ZkApp: zkapp, BlockTx: chain.BlockTx{
			Tx:    chain.Tx{Contract: "zkapp", Method: "append", Memo: memo},
			Index: index, Status: status, Reason: reason,
		}})
	}
	const ok, failed = chain.OutcomeSucceeded, chain.OutcomeFailed
	// Fine: one transaction per queue per block, several queues per block,
	// and a failure for another reason alone in its block.
	add(1, "qa", "a1", ok, "")
	add(1, "qb", "b1", ok, "")
	add(2, "qa", "a2", failed, devchain.ReasonReverted)
	add(2, "qc", "c1", ok, "")
	// A reverted attempt reorged back beside its retry: both fail or land,
	// neither "precondition" — only the count per queue per block sees it.
	add(3, "qa", "a2", failed, devchain.ReasonReverted)
	add(3, "qa", "a2", ok, "")
	// Two records of one queue: the second fails "precondition".
	add(4, "qb", "b2", ok, "")
	add(4, "qb", "b1", failed, devchain.ReasonPrecondition)
	// A transaction that is no record's took the slot: the record's fails
	// "precondition", though it is its queue's only one in the block.
	add(5, "qd", "stranger", ok, "")
	add(5, "qd", "d1", failed, devchain.ReasonPrecondition)
	// Two transactions of one zkApp that are no record's: not the
	// sequencer's (the audit reports such memos on their own).
	add(6, "qc", "x", ok, "")
	add(6, "qc", "y", failed, devchain.ReasonPrecondition)
	add(7, "qd", "d2", ok, "")

	problems, maxPerSlot := queueSlots(txs, byUID)
	var got []string
	for _, p := range problems {
		got = append(got, p.String())
	}
	want := []string{
		"TWO TXS OF ONE QUEUE IN ONE BLOCK: queue qa, block 3, records a2\n  in the block: h3/i0 failed zkapp.append",
		"TWO TXS OF ONE QUEUE IN ONE BLOCK: queue qb, block 4, records b2, b1\n  in the block: h4/i0 succeeded zkapp.append",
		`PRECONDITION FAILURE: b1 of queue qb failed "precondition" in block 4` + "\n  in the block: h4/i0 succeeded",
		`PRECONDITION FAILURE: d1 of queue qd failed "precondition" in block 5` + "\n  in the block: h5/i0 succeeded zkapp.append zk=qd",
	}
	if len(got) != len(want) {
		t.Errorf("%d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n---\n"))
	}
	for i := range min(len(got), len(want)) {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d:\n%s\nwant it to start\n%s", i, got[i], want[i])
		}
	}
	if maxPerSlot != 2 {
		t.Errorf("max transactions on one zkApp in a block: %d, want 2", maxPerSlot)
	}
	// The precondition failure caused by a stranger names it in the block.
	if len(got) == len(want) && !strings.Contains(got[3], "memo=stranger") {
		t.Errorf("the report does not show the stranger in the block:\n%s", got[3])
	}
}
