package distseq

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/clock"
)

// Indexer reads the base ledger for a Node: the privacygroup events of
// final blocks only (an inclusion held by the head's declared ReorgDepth
// plus one block), in cursor order, handed over with the final height and
// the cursor after them. The core commits the cursor with what the events
// produced; a restarted node's Indexer starts from the store's cursor.
type Indexer struct {
	// Chain is read; Out receives each InputEvents (Node.Events).
	Chain chain.Chain
	Out   func(InputEvents)
	// Cursor is where reading starts (the store's DistseqCursor).
	Cursor uint64
	// Page is how many events one read asks for. Defaults to 1000.
	Page int
	// Decode reads a chain event as the core's, or not (false): the base
	// ledger's decoder, chosen at wiring. Defaults to DecodeEvent
	// (devchain's privacygroup).
	Decode func(chain.Event) (ChainEvent, bool)

	height uint64
	head   atomic.Uint64 // the chain's head at the last poll
}

// Head is the chain's head height the last poll read (any goroutine).
func (x *Indexer) Head() uint64 { return x.head.Load() }

// Poll reads what became final since the last poll and hands it over (at
// least the new final height, when no event came with it).
func (x *Indexer) Poll(ctx context.Context) error {
	head, err := x.Chain.Head(ctx)
	if err != nil {
		return fmt.Errorf("distseq: indexer: head: %w", err)
	}
	x.head.Store(head.Height)
	if head.Height < head.ReorgDepth {
		return nil
	}
	final := head.Height - head.ReorgDepth
	if final <= x.height {
		return nil
	}
	page := x.Page
	if page <= 0 {
		page = 1000
	}
	in := InputEvents{Height: final, Cursor: x.Cursor}
	decode := x.Decode
	if decode == nil {
		decode = DecodeEvent
	}
	for {
		evs, err := x.Chain.Events(ctx, in.Cursor, page)
		if err != nil {
			return fmt.Errorf("distseq: indexer: events: %w", err)
		}
		n := 0
		for _, e := range evs {
			if e.Height > final {
				break
			}
			n++
			in.Cursor = e.Cursor
			if ce, ok := decode(e); ok {
				in.Events = append(in.Events, ce)
			}
		}
		if n < page {
			break
		}
	}
	x.Cursor, x.height = in.Cursor, final
	x.Out(in)
	return nil
}

// Run polls every interval on clk until ctx ends; a failed poll is
// logged and tried again at the next one.
func (x *Indexer) Run(ctx context.Context, clk clock.Clock, interval time.Duration, log *slog.Logger) {
	clock.Every(ctx, clk, interval, func(ctx context.Context) {
		if err := x.Poll(ctx); err != nil && ctx.Err() == nil {
			log.Warn("distseq indexer", "err", err)
		}
	})
}
