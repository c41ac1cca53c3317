package sequencer

import (
	"context"

	"github.com/ordolabs/ordo/internal/chain"
)

// watchHeads feeds new heads, with the receipts of the blocks since the last
// one, to the loop.
func (n *Node) watchHeads(ctx context.Context, l *Loop) {
	for h := range chain.WatchHeads(ctx, n.cfg.Chain, n.cfg.Clock, n.cfg.PollInterval) {
		l.HeadSeen(ctx, h)
	}
}
