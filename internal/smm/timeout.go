package smm

import (
	"context"
	"time"

	"github.com/ordolabs/ordo/internal/clock"
)

// withTimeout is context.WithTimeout on the node's clock: the context ends
// d after now as the node's clock counts it (a virtual clock's in tests
// and simulations, where the wall clock would never end a wait the test
// drives), or when its parent ends. Its cause is context.DeadlineExceeded
// when the time ran out.
func (n *Node) withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := n.clock.(clock.Real); ok {
		return context.WithTimeout(ctx, d)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	t := n.clock.NewTimer(d)
	go func() {
		defer t.Stop()
		select {
		case <-t.C():
			cancel(context.DeadlineExceeded)
		case <-ctx.Done():
		}
	}()
	return ctx, func() { cancel(context.Canceled) }
}
