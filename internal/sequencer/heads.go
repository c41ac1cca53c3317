package sequencer

import (
	"context"

	"github.com/ordolabs/ordo/internal/chain"
)

// watchHeads feeds new heads, with the receipts of the blocks since the last
// one, to the core.
func (n *Node) watchHeads(ctx context.Context) {
	br, _ := n.cfg.Chain.(chain.BlockReader)
	var last uint64
	for h := range chain.WatchHeads(ctx, n.cfg.Chain, n.cfg.Clock, n.cfg.PollInterval) {
		var receipts []Receipt
		if br != nil {
			from := last + 1
			if last == 0 || h.Height-last > 1000 {
				from = h.Height
			}
			// A read error leaves receipts out: the inclusion deadline's
			// status check finds those transactions.
			_ = chain.EachBlock(ctx, br, from, h.Height, func(b chain.Block) error {
				for _, t := range b.Txs {
					receipts = append(receipts, Receipt{Hash: string(t.Hash), Height: b.Height, Success: t.Status == chain.OutcomeSucceeded, Reason: t.Reason})
				}
				return nil
			})
		}
		last = h.Height
		height, minFee := h.Height, h.MinFee
		n.inputs.put(func(c *Core) {
			var mine []Receipt
			for _, r := range receipts {
				if c.Watching(r.Hash) {
					mine = append(mine, r)
				}
			}
			c.NewHead(height, minFee, mine)
		})
	}
}
