package chainevents

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/clock"
)

// Handler takes one page of events (in cursor order, those the Filter kept;
// possibly none) and next, the cursor to resume after them. It must commit
// whatever the events produce and next in one store transaction and return
// only after the commit; nil means committed. A Handler that may report an
// error although its commit went through (a lost acknowledgment) must make
// the retry of the same page harmless: an event whose Cursor is not above
// the stored cursor was already committed.
type Handler func(ctx context.Context, events []chain.Event, next uint64) error

// Defaults of the Listener's fields.
const (
	// DefaultPageSize is the default of Listener.PageSize.
	DefaultPageSize = 256
	// DefaultPollInterval is the default of Listener.PollInterval.
	DefaultPollInterval = 500 * time.Millisecond
	// DefaultBackoff is the default of Listener.Backoff.
	DefaultBackoff = time.Second
	// DefaultMaxBackoff is the default of Listener.MaxBackoff.
	DefaultMaxBackoff = 30 * time.Second
)

// ErrBadPage is returned by Poll for a page of events from the chain whose
// cursors do not rise strictly above the Listener's cursor: nothing of it is
// handed over and the cursor stays.
var ErrBadPage = errors.New("chain events out of cursor order")

// ErrConfig is returned by Poll and Run for a Listener without a Chain or a
// Handler.
var ErrConfig = errors.New("chain-event listener misconfigured")

// Listener reads a chain's events after a cursor and hands them to its
// Handler a page at a time. Set its fields, then call Run, or Poll by hand
// (a simulation); do not change the fields after that. Poll and Run may be
// called from several goroutines: pages are handled one at a time.
type Listener struct {
	// Chain is the chain whose events are read. Required.
	Chain chain.Chain
	// Handler commits each page. Required.
	Handler Handler
	// Clock times the polls and backoffs. Defaults to clock.Real{}.
	Clock clock.Clock
	// From is the cursor to start after: the cursor the Handler last
	// committed (0 for the chain's first event).
	From uint64
	// PageSize is the most events read and handed over at once. Defaults to
	// DefaultPageSize (256).
	PageSize int
	// PollInterval is how often Run reads the chain when it has caught up;
	// it also wakes on each new head when the chain pushes heads
	// (chain.HeadSubscriber). Defaults to DefaultPollInterval (500ms).
	PollInterval time.Duration
	// Backoff is Run's wait before it retries a page whose read or Handler
	// failed; it doubles with each failure in a row up to MaxBackoff.
	// Defaults to DefaultBackoff (1s).
	Backoff time.Duration
	// MaxBackoff bounds Backoff's doubling. Defaults to DefaultMaxBackoff
	// (30s).
	MaxBackoff time.Duration
	// Filter, when set, keeps the events it returns true for; the others are
	// skipped, and the cursor still moves past them (a page it empties is
	// handed over empty, so the skip is committed). Defaults to nil (every
	// event).
	Filter func(chain.Event) bool
	// Unconfirmed hands events over as soon as the chain lists them. By
	// default an event is handed over only once its block is final: at a
	// height at most the head's height minus the head's declared ReorgDepth,
	// so that a reorg within the declared depth never removes an event a
	// Handler committed. Defaults to false.
	Unconfirmed bool
	// Logger gets Run's retries. Defaults to slog.Default().
	Logger *slog.Logger

	mu     sync.Mutex // serialises Poll
	begin  sync.Once
	cursor atomic.Uint64
}

// Cursor returns the cursor after the last page handed over: From until a
// page is.
func (l *Listener) Cursor() uint64 {
	l.start()
	return l.cursor.Load()
}

func (l *Listener) start() { l.begin.Do(func() { l.cursor.Store(l.From) }) }

// Poll reads one page of events after the cursor and hands it to the
// Handler: n is how many events the cursor moved past (the Filter's skips
// included), 0 when there was nothing (final) to read. On an error the
// cursor stays and nothing was handed over, or the Handler failed: the next
// Poll reads the same page again.
func (l *Listener) Poll(ctx context.Context) (n int, err error) {
	if l.Chain == nil || l.Handler == nil {
		return 0, fmt.Errorf("%w: Chain and Handler are required", ErrConfig)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.start()
	after := l.cursor.Load()
	final := uint64(math.MaxUint64)
	if !l.Unconfirmed {
		h, err := l.Chain.Head(ctx)
		if err != nil {
			return 0, fmt.Errorf("chain events: head: %w", err)
		}
		if h.Height < h.ReorgDepth {
			return 0, nil
		}
		final = h.Height - h.ReorgDepth
	}
	size := l.PageSize
	if size <= 0 {
		size = DefaultPageSize
	}
	evs, err := l.Chain.Events(ctx, after, size)
	if err != nil {
		return 0, fmt.Errorf("chain events after %d: %w", after, err)
	}
	prev := after
	for i, e := range evs {
		if e.Cursor <= prev {
			return 0, fmt.Errorf("%w: event %d of the page after %d has cursor %d, not above %d", ErrBadPage, i, after, e.Cursor, prev)
		}
		prev = e.Cursor
	}
	if len(evs) > size {
		evs = evs[:size]
	}
	for i, e := range evs {
		if e.Height > final {
			evs = evs[:i]
			break
		}
	}
	if len(evs) == 0 {
		return 0, nil
	}
	next := evs[len(evs)-1].Cursor
	kept := evs
	if l.Filter != nil {
		kept = make([]chain.Event, 0, len(evs))
		for _, e := range evs {
			if l.Filter(e) {
				kept = append(kept, e)
			}
		}
	}
	if err := l.Handler(ctx, kept, next); err != nil {
		return 0, fmt.Errorf("chain events %d-%d: handler: %w", evs[0].Cursor, next, err)
	}
	l.cursor.Store(next)
	return len(evs), nil
}

// Run polls until ctx ends, then returns nil: at once again after a page was
// handed over, else after PollInterval or on a new head; after a failed page,
// it logs and retries the same page after a backoff. It returns an error only
// for a misconfigured Listener (ErrConfig).
func (l *Listener) Run(ctx context.Context) error {
	if l.Chain == nil || l.Handler == nil {
		return fmt.Errorf("%w: Chain and Handler are required", ErrConfig)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	clk := l.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	poll := orDefault(l.PollInterval, DefaultPollInterval)
	first, most := orDefault(l.Backoff, DefaultBackoff), orDefault(l.MaxBackoff, DefaultMaxBackoff)
	log := l.Logger
	if log == nil {
		log = slog.Default()
	}
	var heads <-chan chain.BlockHeader
	if _, ok := l.Chain.(chain.HeadSubscriber); ok {
		heads = chain.WatchHeads(ctx, l.Chain, clk, poll)
	}
	backoff := first
	for {
		n, err := l.Poll(ctx)
		if ctx.Err() != nil {
			return nil
		}
		wait, wake := poll, heads
		switch {
		case err != nil:
			log.Warn("chain events: retrying the page", "after", l.Cursor(), "in", backoff, "err", err)
			wait, wake = backoff, nil // a new head does not cut a backoff short
			backoff = min(2*backoff, most)
		case n > 0:
			backoff = first
			continue
		default:
			backoff = first
		}
		t := clk.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C():
		case _, ok := <-wake:
			t.Stop()
			if !ok {
				heads = nil
			}
		}
	}
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}
