package sequencer

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/store"
)

// A full store (store.ErrStorageFull), and a chain that does not answer
// while the loop loads, are weathered, not fatal. A full store: intake
// refuses what it cannot commit (the caller retries with its idempotency
// key), and the loop, whose core is ahead of the store once a commit
// failed, waits and loads again from the store, as after a fenced commit,
// until a commit succeeds. Nothing acknowledged is lost: an intent is
// acknowledged only once committed.

// Waits of the loop between loads while the store is full: from
// minFullWait, doubling, up to maxFullWait.
const (
	minFullWait = 250 * time.Millisecond
	maxFullWait = 15 * time.Second
)

// StorageFull reports whether the store refused the node's latest write for
// want of room (store.ErrStorageFull), from that refusal until a write of
// intake or of the loop succeeds.
func (n *Node) StorageFull() bool { return n.full.Load() }

// wrote records the outcome of a write: a full store sets StorageFull, a
// success clears it.
func (n *Node) wrote(err error) {
	switch {
	case err == nil:
		if n.full.CompareAndSwap(true, false) {
			n.log.Info("sequencer: the store takes writes again")
		}
	case errors.Is(err, store.ErrStorageFull):
		n.full.Store(true)
	}
}

// errChainDown marks a load that failed because the chain did not answer
// (chainDown).
var errChainDown = errors.New("the chain does not answer")

// chainDown marks err, an error of a chain call of load, with errChainDown
// unless the chain answered it (a chain error with a code: no wait can
// change that answer).
func chainDown(err error) error {
	if chain.CodeOf(err) != "" || errors.Is(err, context.Canceled) {
		return err
	}
	return fmt.Errorf("%w: %w", errChainDown, err)
}

// waitForChain is Run's answer to a load that failed because the chain
// did not answer (err): as a full store, it waits, longer each time in a
// row, and asks for a reload; the core stays unbuilt meanwhile (intake
// still commits).
func (n *Node) waitForChain(ctx context.Context, err error) error {
	n.fullWait = min(max(2*n.fullWait, minFullWait), maxFullWait)
	n.log.Warn("sequencer: the chain does not answer: loading again from the store after a wait", "err", err, "wait", n.fullWait)
	t := n.cfg.Clock.NewTimer(n.fullWait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return nil
	case <-t.C():
	}
	return errReload
}

// waitForRoom is Run's answer to a core stopped by a full store (err): it
// waits, on the clock, longer each time in a row, and asks for a reload.
func (n *Node) waitForRoom(ctx context.Context, err error) error {
	n.wrote(err)
	n.fullWait = min(max(2*n.fullWait, minFullWait), maxFullWait)
	n.log.Error("sequencer: the store is full: nothing of the turn was committed; intake answers storage_full; "+
		"loading again from the store after a wait (free space on the store's disk)", "err", err, "wait", n.fullWait)
	t := n.cfg.Clock.NewTimer(n.fullWait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return nil
	case <-t.C():
	}
	return errReload
}
