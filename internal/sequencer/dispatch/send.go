package dispatch

import (
	"context"
	"fmt"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/sequencer"
)

// sendSigned fills tx's gas limit (on a chain that has one), signs it with
// the sender's key in its chain's scheme and sends it: the direct Dispatch
// of the built-in dispatchers.
func sendSigned(ctx context.Context, c chain.Chain, keys func(string) chain.Key, tx chain.Tx, sender string) (sequencer.TxnResult, error) {
	var key chain.Key
	if keys != nil {
		key = keys(sender)
	}
	if key == nil {
		return sequencer.TxnResult{}, fmt.Errorf("no key for sender %s", sender)
	}
	if err := chain.FillGas(ctx, c, &tx); err != nil {
		return sequencer.TxnResult{}, err
	}
	if _, err := chain.SignerOf(c).Sign(&tx, key); err != nil {
		return sequencer.TxnResult{}, sequencer.Permanent(err)
	}
	h, err := c.SendTx(ctx, tx)
	return sequencer.TxnResult{Hash: string(h)}, err
}
