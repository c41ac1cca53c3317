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

func (s *heldStore) Apply(ctx context.Context, b store.Batch) error {
	for _, u := range b.Txs {
		if u.Attempt != nil && u.Attempt.Hash != "" && u.Attempt.Outcome == store.OutcomeNone {
			s.held.Add(1)
			select {
			case <-s.release:
			case <-ctx.Done():
				return ctx.Err()
			}
			break
		}
	}
	return s.Store.Apply(ctx, b)
}

// The loop commits a batch while it steps on, but a send never goes out
// before the commit of the attempt it sends: with that commit held, the
// chain sees nothing; released, the transaction lands and ends DONE.
func TestNodeSendFollowsItsCommit(t *testing.T) {
	hs := &heldStore{release: make(chan struct{})}
	r := newRig(t, rigOptions{senders: 1, blockTime: 20 * time.Millisecond, tune: func(c *sequencer.Config) {
		hs.Store = c.Store
		c.Store = hs
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
}
