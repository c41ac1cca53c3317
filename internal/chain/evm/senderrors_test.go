package evm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/rpc"

	"github.com/ordolabs/ordo/internal/chain"
)

// rpcErr is a JSON-RPC error object as the client returns it.
type rpcErr struct {
	code int
	msg  string
}

func (e rpcErr) Error() string  { return e.msg }
func (e rpcErr) ErrorCode() int { return e.code }

var _ rpc.Error = rpcErr{}

// TestSendErrorTexts maps go-ethereum v1.17.10's texts, as its pool and
// state transition write them (measured on the simulated backend and geth
// --dev: docs/evm.md), through the table.
func TestSendErrorTexts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		want error // nil: accepted
	}{
		{"already known", nil},
		{"nonce too low: next nonce 3, tx nonce 1", chain.ErrNonceTooLow},
		{"replacement transaction underpriced", chain.ErrReplacementUnderpriced},
		{"transaction underpriced: tip needed 2, tip permitted 1", chain.ErrFeeTooLow},
		{"transaction gas price below minimum: gas tip cap 1, minimum needed 2", chain.ErrFeeTooLow},
		{"max fee per gas less than block base fee: address 0x71562b71999873DB5b286dF957af199Ec94617F7, maxFeePerGas: 1, baseFee: 7", chain.ErrFeeTooLow},
		{"insufficient funds for gas * price + value: balance 0, tx cost 1", chain.ErrInsufficientFunds},
		{"txpool is full", chain.ErrMempoolFull},
		{"intrinsic gas too low: gas 0, minimum needed 21000", chain.ErrRejected},
		{"exceeds block gas limit", chain.ErrRejected},
	} {
		err := sendError(fmt.Errorf("send: %w", rpcErr{-32000, tc.text}))
		switch {
		case tc.want == nil && err != nil:
			t.Errorf("%q: %v, want accepted", tc.text, err)
		case tc.want != nil && (!errors.Is(err, tc.want) || err.Error() == "" || !strings.Contains(err.Error(), tc.text)):
			t.Errorf("%q: %v, want %v with the node's text", tc.text, err, tc.want)
		}
	}
	// A transport failure is not a refusal: no sentinel, for a retry.
	for _, err := range []error{context.DeadlineExceeded, rpc.HTTPError{StatusCode: 429, Status: "429 Too Many Requests"}, errors.New("connection refused")} {
		if got := sendError(err); chain.CodeOf(got) != "" || got == nil || got.Error() != err.Error() {
			t.Errorf("transport %v mapped to %v", err, got)
		}
	}
}
