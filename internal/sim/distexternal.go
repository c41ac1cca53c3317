package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/store"
)

// The external caller of prepared transactions (ptx_prepareTransaction):
// it reads each prepare intent's record at its sender and sends the
// prepared transaction to the chain from an account of its own, again
// when the record names a newer one or the last send is old (the chain
// may drop it), until the intent is final.

// extResend is how long the caller waits before sending the same
// prepared transaction again.
const extResend = 5 * time.Second

// extSend is what the caller sent for one prepare intent.
type extSend struct {
	call []byte
	at   time.Time
}

// external runs one round of the caller.
func (w *distWorld) external(ctx context.Context) error {
	for _, id := range w.acked {
		x := w.prepared[id]
		if x == nil {
			continue
		}
		if _, final := w.seen.final[id]; final {
			delete(w.prepared, id)
			continue
		}
		n := w.c.Node(w.sender[id])
		if !n.Up() {
			continue // its store is closed with it
		}
		rec, err := n.Store.DistseqIntent(ctx, id)
		if errors.Is(err, store.ErrNotFound) || (err == nil && len(rec.Prepared) == 0) {
			continue
		} else if err != nil {
			return err
		}
		var p distseq.PreparedTx
		if err := json.Unmarshal(rec.Prepared, &p); err != nil {
			return distBroken("prepared-readable", "intent %s: its prepared transaction does not decode: %v", id, err)
		}
		if bytes.Equal(p.Call, x.call) && w.c.Now().Sub(x.at) < extResend {
			continue
		}
		if err := w.sendExternal(ctx, p.Call); err != nil {
			return err
		}
		x.call, x.at = p.Call, w.c.Now()
	}
	return nil
}

// sendExternal sends a prepared call from the deployer's account at its
// next nonce past the pool (the chain may refuse it: the caller retries).
func (w *distWorld) sendExternal(ctx context.Context, call []byte) error {
	acct, err := w.c.Chain.Account(ctx, w.c.Deployer())
	if err != nil {
		return fmt.Errorf("external caller: %w", err)
	}
	_, err = w.c.Chain.SendTx(ctx, chain.Tx{From: w.c.Deployer(), Nonce: acct.PendingNonce, Fee: 10000,
		Contract: devchain.PrivacyGroupContract, Method: devchain.PrivacyConfirm, Args: call})
	if err != nil && ctx.Err() != nil {
		return err
	}
	return nil // a refused send is the chain's fault injection: sent again later
}
