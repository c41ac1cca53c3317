package sequencer

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ordolabs/ordo/internal/chain"
)

// fitFrom is the data size from which intake builds an intent to see that
// its transaction fits the chain (fits). Below it no built-in type comes
// near chain.MaxArgs, even escaping every byte of its data; building is
// cheap but intake is hot, so smaller data is not tried.
const fitFrom = chain.MaxArgs / 8

// fitSender is the stand-in sender of a trial build: the form of an
// address, nonce 0, no fee.
var fitSender = Sender{AccountID: strings.Repeat("0", 64)}

// fits refuses, with ErrInvalid, data of an in-process Builder type whose
// transaction could never be sent: it builds the transaction as a dispatch
// would, with a stand-in sender, and checks its form (chain.Tx.Normalize:
// args over chain.MaxArgs, say). Such an intent would otherwise be accepted
// and fail at its first dispatch. A build error that is not about the
// transaction's form (state a real dispatch has) is left to the dispatch.
func (n *Node) fits(it Intake, data []byte) error {
	if len(data) < fitFrom {
		return nil
	}
	d := n.cfg.Dispatchers[it.Type]
	b, ok := d.(Builder)
	if !ok || isRemote(d) {
		return nil
	}
	tx, err := b.Build(context.Background(), RawTxnData{UID: "tx_intake", Type: it.Type, Data: data}, fitSender)
	if err == nil {
		err = tx.Normalize()
	}
	if err != nil && errors.Is(err, chain.ErrInvalidTx) {
		return fmt.Errorf("%w: data makes a transaction the chain refuses: %w", ErrInvalid, err)
	}
	return nil
}
