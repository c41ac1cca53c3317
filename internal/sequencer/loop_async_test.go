package sequencer_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/store"
)

// heldStore holds each Apply that plans an attempt with a hash until
// released: the commit the send must follow.
type heldStore struct {
	store.Store
	release chan struct{}
	held    atomic.Int32
}

// holds reports whether b plans an attempt with a hash.
func holds(b store.Batch) bool {
	for _, u := range b.Txs {
		if u.Attempt != nil && u.Attempt.Hash != "" && u.Attempt.Outcome == store.OutcomeNone {
			return true
		}
	}
	return false
}

// hold waits for the release.
func (s *heldStore) hold(ctx context.Context) error {
	s.held.Add(1)
	select {
	case <-s.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *heldStore) Apply(ctx context.Context, b store.Batch) error {
	if holds(b) {
		if err := s.hold(ctx); err != nil {
			return err
		}
	}
	return s.Store.Apply(ctx, b)
}

// heldPipeliner is a heldStore of a store.Pipeliner, and one too: the
// batch is committed at once, but its Wait holds until released.
type heldPipeliner struct{ *heldStore }

// heldStarted is a started batch whose Wait holds.
type heldStarted struct {
	store.Started
	s *heldStore
}

func (t heldStarted) Wait(ctx context.Context) error {
	if err := t.s.hold(ctx); err != nil {
		return err
	}
	return t.Started.Wait(ctx)
}

func (s heldPipeliner) StartApply(ctx context.Context, b store.Batch, after store.Started) store.Started {
	if h, ok := after.(heldStarted); ok {
		after = h.Started
	}
	st := s.Store.(store.Pipeliner).StartApply(ctx, b, after)
	if holds(b) {
		return heldStarted{st, s.heldStore}
	}
	return st
}

// The loop commits batches while it steps on (more than one at a time on
// a store.Pipeliner), but a send never goes out before the commit of the
// attempt it sends is reported: with that report held, the chain sees
// nothing; released, the transaction lands and ends DONE.
func TestNodeSendFollowsItsCommit(t *testing.T) {
	for _, pipelined := range []bool{false, true} {
		name := map[bool]string{false: "one commit at a time", true: "pipelined"}[pipelined]
		t.Run(name, func(t *testing.T) {
			hs := &heldStore{release: make(chan struct{})}
			r := newRig(t, rigOptions{senders: 1, blockTime: 20 * time.Millisecond, tune: func(c *sequencer.Config) {
				hs.Store = c.Store
				c.Store = hs
				if !pipelined {
					return
				}
				if _, ok := hs.Store.(store.Pipeliner); !ok {
					t.Fatal("the rig's store is no store.Pipeliner")
				}
				c.Store = heldPipeliner{hs}
			}})
			tx := r.submit("q", typ, `{"zkapp":"held-0"}`)
			waitFor(t, "the dispatch's commit held", 10*time.Second, func() bool { return hs.held.Load() > 0 })
			h0 := r.chain.Stats().Height
			waitFor(t, "3 more blocks", 10*time.Second, func() bool { return r.chain.Stats().Height >= h0+3 })
			if st := r.chain.Stats(); st.Mempool != 0 {
				t.Fatalf("%d transactions pending on chain before their commit", st.Mempool)
			}
			blocks, err := r.chain.Blocks(t.Context(), 1, r.chain.Stats().Height)
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range blocks {
				if len(b.Txs) > 0 {
					t.Fatalf("block %d holds %d transactions sent before their commit", b.Height, len(b.Txs))
				}
			}
			close(hs.release)
			r.waitState(tx.UID, store.Done)
		})
	}
}
