package sequencer

import (
	"context"
	"errors"
	"fmt"

	"github.com/ordolabs/ordo/internal/store"
)

// ErrNothingToCancel is returned by CancelNonce when no transaction of the
// sender has an attempt pending at the nonce.
var ErrNothingToCancel = errors.New("no attempt of the sender is pending at that nonce")

// ErrCannotCancel is returned by CancelNonce for a sender whose key the
// node does not hold (a remote worker's): it cannot sign the no-op.
var ErrCannotCancel = errors.New("the node does not hold the sender's key (a remote worker sender): it cannot sign a no-op for it")

// CancelNonce asks the core to cancel sender's stuck nonce (core_cancel.go):
// a no-op takes the place of the pending attempt there, and once it holds
// the nonce the transaction ends FAILED (then store.CancelFail) or is sent
// again at a fresh nonce (store.CancelRequeue). It returns the uid of the
// transaction whose attempt is pending there, as the store has it; the
// cancel itself runs on the loop, which checks again and ignores it when
// the attempt was decided meanwhile (its record then says what happened).
func (n *Node) CancelNonce(ctx context.Context, sender string, nonce uint64, then string) (string, error) {
	if then != store.CancelFail && then != store.CancelRequeue {
		return "", fmt.Errorf("%w: then %q: %s or %s", ErrInvalid, then, store.CancelFail, store.CancelRequeue)
	}
	if n.keys[sender] == nil {
		if n.workers[sender] != nil {
			return "", ErrCannotCancel
		}
		return "", fmt.Errorf("%w: %s is not one of the node's senders", ErrNothingToCancel, sender)
	}
	ss, err := n.cfg.Store.Senders(ctx)
	if err != nil {
		return "", fmt.Errorf("sequencer: cancel: %w", err)
	}
	queue := ""
	for _, s := range ss {
		if s.ID == sender {
			queue = s.Queue
		}
	}
	if queue == "" {
		return "", fmt.Errorf("%w: sender %s is bound to no queue", ErrNothingToCancel, sender)
	}
	qs, err := n.cfg.Store.QueueStats(ctx, queue)
	q := qs.Queue
	if err != nil || q.TxUID == "" {
		return "", fmt.Errorf("%w: queue %s has no transaction in flight", ErrNothingToCancel, queue)
	}
	tx, err := n.cfg.Store.Get(ctx, q.TxUID)
	if err != nil {
		return "", fmt.Errorf("sequencer: cancel: %w", err)
	}
	if len(tx.Attempts) == 0 {
		return "", fmt.Errorf("%w: %s has no attempt yet", ErrNothingToCancel, tx.UID)
	}
	la := tx.Attempts[len(tx.Attempts)-1]
	if la.Sender != sender || la.Nonce != nonce || la.Hash == "" || la.Cancel != "" ||
		(la.Outcome != store.OutcomeSent && la.Outcome != store.OutcomeNone && la.Outcome != store.OutcomeTimeout && la.Outcome != store.OutcomeUnknown) {
		return "", fmt.Errorf("%w: %s's last attempt is %d at nonce %d, %s", ErrNothingToCancel, tx.UID, la.N, la.Nonce, cmpOutcome(la))
	}
	n.inputs.Put(Cancel(n.cfg.Clock.Now(), queue, tx.UID, nonce, then))
	return tx.UID, nil
}

func cmpOutcome(a store.Attempt) string {
	switch {
	case a.Cancel != "":
		return "a no-op already"
	case a.Outcome == "":
		return "not sent"
	}
	return string(a.Outcome)
}
