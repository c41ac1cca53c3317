package chain

import (
	"context"
	"fmt"
	"slices"
)

// AuditPage is how many blocks AuditOnceInOrder reads per call (a chain's
// API may cap a listing: devchain's at 1000).
const AuditPage = 1000

// AuditOnceInOrder reads every block up to c's head and checks that each
// of uids was applied by exactly one successful transaction (its memo the
// uid: what the sequencer sends) and that they were applied in the order
// given. It returns one sentence per problem found (none: the audit
// passed), or an error reading the chain.
func AuditOnceInOrder(ctx context.Context, c interface {
	BlockReader
	Head(ctx context.Context) (BlockHeader, error)
}, uids []string) ([]string, error) {
	head, err := c.Head(ctx)
	if err != nil {
		return nil, fmt.Errorf("chain: audit: head: %w", err)
	}
	want := make(map[string]bool, len(uids))
	for _, u := range uids {
		want[u] = true
	}
	var order []string
	seen := map[string]int{}
	for from := uint64(1); from <= head.Height; from += AuditPage {
		blocks, err := c.Blocks(ctx, from, min(head.Height, from+AuditPage-1))
		if err != nil {
			return nil, fmt.Errorf("chain: audit: blocks from %d: %w", from, err)
		}
		for _, b := range blocks {
			for _, tx := range b.Txs {
				if tx.Status == OutcomeSucceeded && want[tx.Memo] {
					seen[tx.Memo]++
					order = append(order, tx.Memo)
				}
			}
		}
	}
	var problems []string
	for _, u := range uids {
		if seen[u] != 1 {
			problems = append(problems, fmt.Sprintf("intent %s applied %d times on chain", u, seen[u]))
		}
	}
	if !slices.Equal(order, uids) {
		problems = append(problems, fmt.Sprintf("chain order %v, expected %v", order, uids))
	}
	return problems, nil
}
