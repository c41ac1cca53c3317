package sim

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/store"
)

// TestCheckerCatches feeds the checker hand-written chains, so that a
// passing simulation means the invariants held, not that the checker is
// blind. Each case names the invariant it must report ("" for none).
func TestCheckerCatches(t *testing.T) {
	type tx struct {
		memo string
		ok   bool
	}
	type step struct {
		reorg   bool   // replace the chain above reorgTo
		reorgTo uint64 //
		block   []tx   // with a block holding these (nil: no block)
		end     string // then end this record ("uid=DONE")
	}
	cases := []struct {
		name  string
		steps []step
		want  string
	}{
		{"fine", []step{{block: []tx{{"a1", true}, {"b1", true}}}, {block: []tx{{"a2", true}}, end: "a1=DONE"}}, ""},
		{"a failed inclusion then a success", []step{{block: []tx{{"a1", false}}}, {block: []tx{{"a1", true}}, end: "a1=DONE"}}, ""},
		{"twice on chain", []step{{block: []tx{{"a1", true}}}, {block: []tx{{"a1", true}}}}, InvOnce},
		{"two of a queue in a block", []step{{block: []tx{{"a1", false}, {"a2", true}}}}, InvOnePerBlock},
		{"out of order", []step{{block: []tx{{"a2", true}}}, {block: []tx{{"a1", true}}}}, InvFIFO},
		{"DONE without inclusion", []step{{block: []tx{{"a1", false}}, end: "a1=DONE"}}, InvOnce},
		{"DONE then reorged out", []step{{block: []tx{{"a1", true}}, end: "a1=DONE"}, {reorg: true, block: []tx{}}}, InvOnce},
		{"DONE reorged and back", []step{{block: []tx{{"a1", true}}, end: "a1=DONE"}, {reorg: true, block: []tx{{"a1", true}}}}, ""},
		{"FAILED then lands", []step{{block: []tx{{"a1", false}}, end: "a1=FAILED"}, {block: []tx{{"a1", true}}}}, InvFailedLands},
		{"ended twice", []step{{block: []tx{{"a1", true}}, end: "a1=DONE"}, {end: "a1=FAILED"}}, InvFinal},
		{"reorg frees the slot", []step{{block: []tx{{"a1", true}}}, {reorg: true, block: []tx{{"a1", true}}}}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k := newChecker()
			for i, r := range []struct{ uid, queue string }{{"a1", "qa"}, {"a2", "qa"}, {"b1", "qb"}} {
				k.acked(store.Transaction{UID: r.uid, Queue: r.queue, Seq: int64(i + 1)})
			}
			for i, s := range tc.steps {
				keep := uint64(len(k.hashes) - 1)
				if s.reorg {
					keep = s.reorgTo
				}
				var blocks []chain.Block
				if s.block != nil {
					b := chain.Block{}
					b.Height, b.Hash = keep+1, chain.Hash(fmt.Sprintf("h%d-%d", keep+1, i))
					for _, x := range s.block {
						st := chain.OutcomeFailed
						if x.ok {
							st = chain.OutcomeSucceeded
						}
						b.Txs = append(b.Txs, chain.BlockTx{Tx: chain.Tx{Memo: x.memo}, Status: st})
					}
					blocks = append(blocks, b)
				}
				if uid, st, ok := strings.Cut(s.end, "="); ok {
					k.ended(uid, store.TxState(st))
				}
				k.apply(keep, blocks)
			}
			got := ""
			if len(k.failures) > 0 {
				var ie *invariantError
				errors.As(k.failures[0], &ie)
				got = ie.inv
			}
			if got != tc.want {
				t.Fatalf("checker reported %q (%v), want %q", got, k.failures, tc.want)
			}
		})
	}
}
