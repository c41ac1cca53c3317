package chainevents_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chainevents"
)

// fakeChain serves a fixed event list and head; it may answer pages out of
// order or fail.
type fakeChain struct {
	chain.Chain // nil: only Head and Events are called

	mu     sync.Mutex
	events []chain.Event
	head   chain.BlockHeader
	fail   error // every call fails with it
	reads  int
	shuf   bool // answers pages with the first two events swapped
}

func (f *fakeChain) Head(ctx context.Context) (chain.BlockHeader, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.head, f.fail
}

func (f *fakeChain) Events(ctx context.Context, after uint64, limit int) ([]chain.Event, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	if f.fail != nil {
		return nil, f.fail
	}
	var out []chain.Event
	for _, e := range f.events {
		if e.Cursor > after && len(out) < limit {
			out = append(out, e)
		}
	}
	if f.shuf && len(out) > 1 {
		out[0], out[1] = out[1], out[0]
	}
	return out, nil
}

// events returns n events, cursors 10, 20, ..., one block each from height
// 1, named a, b, a, b, ...
func events(n int) []chain.Event {
	out := make([]chain.Event, n)
	for i := range out {
		out[i] = chain.Event{Cursor: uint64(10 * (i + 1)), Height: uint64(i + 1), Contract: "zkapp", Name: string(rune('a' + i%2))}
	}
	return out
}

// page is one call of a handler.
type page struct {
	cursors []uint64
	next    uint64
}

func (p page) String() string { return fmt.Sprintf("%v→%d", p.cursors, p.next) }

// recorder is a handler that records its pages and fails while failing > 0.
type recorder struct {
	pages   []page
	failing int
}

func (r *recorder) handle(ctx context.Context, evs []chain.Event, next uint64) error {
	if r.failing > 0 {
		r.failing--
		return errors.New("store unavailable")
	}
	p := page{next: next, cursors: []uint64{}}
	for _, e := range evs {
		p.cursors = append(p.cursors, e.Cursor)
	}
	r.pages = append(r.pages, p)
	return nil
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// TestPoll: one page per Poll, in cursor order, from From; the Filter's
// skips still move the cursor (an emptied page is handed over empty); a
// failed handler keeps the cursor and gets the same page again; only final
// events are handed over unless Unconfirmed; a page out of order is refused.
func TestPoll(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		l      *chainevents.Listener
		head   chain.BlockHeader
		fail   int // the handler's first failures
		shuf   bool
		polls  int
		want   []string // the pages handed over
		n      []int    // Poll's n, per poll
		cursor uint64
		err    error // the first Poll's error
	}{
		{name: "pages of 2", l: &chainevents.Listener{PageSize: 2}, head: chain.BlockHeader{Height: 5}, polls: 4,
			want: []string{"[10 20]→20", "[30 40]→40", "[50]→50"}, n: []int{2, 2, 1, 0}, cursor: 50},
		{name: "from a cursor", l: &chainevents.Listener{From: 30}, head: chain.BlockHeader{Height: 5}, polls: 2,
			want: []string{"[40 50]→50"}, n: []int{2, 0}, cursor: 50},
		{name: "from between cursors", l: &chainevents.Listener{From: 25, PageSize: 1}, head: chain.BlockHeader{Height: 5}, polls: 1,
			want: []string{"[30]→30"}, n: []int{1}, cursor: 30},
		{name: "filter", l: &chainevents.Listener{PageSize: 2, Filter: func(e chain.Event) bool { return e.Name == "a" }}, head: chain.BlockHeader{Height: 5}, polls: 3,
			want: []string{"[10]→20", "[30]→40", "[50]→50"}, n: []int{2, 2, 1}, cursor: 50},
		{name: "filter empties pages", l: &chainevents.Listener{PageSize: 1, Filter: func(e chain.Event) bool { return e.Name == "a" }}, head: chain.BlockHeader{Height: 5}, polls: 3,
			want: []string{"[10]→10", "[]→20", "[30]→30"}, n: []int{1, 1, 1}, cursor: 30},
		{name: "handler fails twice", l: &chainevents.Listener{PageSize: 2}, head: chain.BlockHeader{Height: 5}, fail: 2, polls: 4,
			want: []string{"[10 20]→20", "[30 40]→40"}, n: []int{0, 0, 2, 2}, cursor: 40, err: errors.New("store unavailable")},
		{name: "final events only", l: &chainevents.Listener{}, head: chain.BlockHeader{Height: 5, ReorgDepth: 2}, polls: 2,
			want: []string{"[10 20 30]→30"}, n: []int{3, 0}, cursor: 30},
		{name: "nothing final yet", l: &chainevents.Listener{}, head: chain.BlockHeader{Height: 1, ReorgDepth: 2}, polls: 1,
			n: []int{0}},
		{name: "unconfirmed", l: &chainevents.Listener{Unconfirmed: true}, head: chain.BlockHeader{Height: 1, ReorgDepth: 2}, polls: 1,
			want: []string{"[10 20 30 40 50]→50"}, n: []int{5}, cursor: 50},
		{name: "out of order", l: &chainevents.Listener{}, head: chain.BlockHeader{Height: 5}, shuf: true, polls: 1,
			n: []int{0}, err: chainevents.ErrBadPage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fc := &fakeChain{events: events(5), head: tc.head, shuf: tc.shuf}
			rec := &recorder{failing: tc.fail}
			l := tc.l
			l.Chain, l.Handler, l.Logger = fc, rec.handle, quiet
			for i := range tc.polls {
				n, err := l.Poll(ctx)
				if i == 0 && tc.err != nil {
					if err == nil || !errors.Is(err, tc.err) && !containsText(err, tc.err) {
						t.Fatalf("poll %d: error %v, want %v", i, err, tc.err)
					}
				} else if err != nil && tc.fail == 0 {
					t.Fatalf("poll %d: %v", i, err)
				}
				if n != tc.n[i] {
					t.Fatalf("poll %d: n %d, want %d", i, n, tc.n[i])
				}
			}
			var got []string
			for _, p := range rec.pages {
				got = append(got, p.String())
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("pages %v, want %v", got, tc.want)
			}
			if l.Cursor() != tc.cursor {
				t.Fatalf("cursor %d, want %d", l.Cursor(), tc.cursor)
			}
		})
	}
}

func containsText(err, want error) bool {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if e.Error() == want.Error() {
			return true
		}
	}
	return false
}

// TestPollChainErrors: a chain that fails leaves the cursor; a listener
// without a chain or handler says so.
func TestPollChainErrors(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("unreachable")
	fc := &fakeChain{events: events(3), head: chain.BlockHeader{Height: 3}, fail: boom}
	rec := &recorder{}
	l := &chainevents.Listener{Chain: fc, Handler: rec.handle, From: 10}
	if n, err := l.Poll(ctx); n != 0 || !errors.Is(err, boom) || l.Cursor() != 10 || len(rec.pages) != 0 {
		t.Fatalf("n %d err %v cursor %d pages %v", n, err, l.Cursor(), rec.pages)
	}
	l.Unconfirmed = true // the events read fails too
	if n, err := l.Poll(ctx); n != 0 || !errors.Is(err, boom) || l.Cursor() != 10 {
		t.Fatalf("n %d err %v cursor %d", n, err, l.Cursor())
	}
	if _, err := (&chainevents.Listener{Chain: fc}).Poll(ctx); !errors.Is(err, chainevents.ErrConfig) {
		t.Fatalf("no handler: %v", err)
	}
	if err := (&chainevents.Listener{Handler: rec.handle}).Run(ctx); !errors.Is(err, chainevents.ErrConfig) {
		t.Fatalf("no chain: %v", err)
	}
}
