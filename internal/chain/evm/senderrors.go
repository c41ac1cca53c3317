package evm

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/rpc"

	"github.com/ordolabs/ordo/internal/chain"
)

// sendErrors is the one table that maps a node's refusal of
// eth_sendRawTransaction to the seam's typed errors: the first entry whose
// fragment the error's text contains (case folded) wins. The texts are
// go-ethereum v1.17.10's (core/txpool/errors.go, core/error.go), which the
// simulated backend and geth --dev return alike (TestSendErrorTable sends
// the transactions that provoke each one). Other clients' texts (Besu,
// Nethermind, Erigon) are not measured. A text no entry matches is
// chain.ErrRejected.
var sendErrors = []struct {
	fragment string
	err      *chain.Error // nil: the transaction is accepted
}{
	// The node has this very transaction already: a resend.
	{"already known", nil},
	// "nonce too low: next nonce 3, tx nonce 1"
	{"nonce too low", chain.ErrNonceTooLow},
	{"replacement transaction underpriced", chain.ErrReplacementUnderpriced},
	// After the replacement, whose text contains it: a new transaction
	// under the pool's floor.
	{"transaction underpriced", chain.ErrFeeTooLow},
	// "transaction gas price below minimum: gas tip cap 1, minimum needed 2"
	{"below minimum", chain.ErrFeeTooLow},
	{"max fee per gas less than block base fee", chain.ErrFeeTooLow},
	// "insufficient funds for gas * price + value: balance 0, tx cost 1"
	{"insufficient funds", chain.ErrInsufficientFunds},
	{"txpool is full", chain.ErrMempoolFull},
}

// sendError maps the error of a send (nil: none) to the seam's: nil when
// the node already had the transaction; a sentinel wrapping the node's text
// for a refusal; a transport failure (no JSON-RPC error) unchanged, so that
// the sequencer retries it.
func sendError(err error) error {
	if err == nil {
		return nil
	}
	var re rpc.Error
	if !errors.As(err, &re) {
		return err // transport: timeout, connection, HTTP status
	}
	text := strings.ToLower(err.Error())
	for _, e := range sendErrors {
		if strings.Contains(text, e.fragment) {
			if e.err == nil {
				return nil
			}
			return fmt.Errorf("%w: %s", e.err, err.Error())
		}
	}
	return fmt.Errorf("%w: %s", chain.ErrRejected, err.Error())
}
