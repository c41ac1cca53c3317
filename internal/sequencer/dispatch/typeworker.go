package dispatch

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/sequencer"
)

// TypeWorker is a transaction type's remote worker: the type's logic lives
// in it, and the node's keystore senders sign. It builds each attempt's
// unsigned chain transaction, which the node signs, commits the hash of and
// sends, so a type with a worker needs no built-in dispatcher:
//
//	POST {url}/build      {"txnData":RawTxnData,"sender":Sender}                     → {"tx":Tx,"error":…}
//	POST {url}/onSuccess  {"txnData":RawTxnData,"result":TxnResult,"sender":Sender}  → TxnResult
//	POST {url}/onFailure  {"txnData":RawTxnData,"result":TxnResult,"sender":Sender}  → TxnResult
//
// The node sets the transaction's from, nonce and fee from the Sender it
// gave, whatever the worker put there. A build answer with an error (or a
// non-2xx, or none within the timeout) is retried, unless the error object
// has "permanent": true. Worker senders (a sender whose own worker holds its
// key) keep dispatching through RemoteWorker.
type TypeWorker struct {
	w       *RemoteWorker
	typ     string
	retries int
}

// NewTypeWorker returns the worker of typ at url; timeout bounds a call
// (DefaultWorkerTimeout when 0).
func NewTypeWorker(url string, timeout time.Duration, typ string, maxRetries int) *TypeWorker {
	return &TypeWorker{w: NewRemoteWorker(url, timeout), typ: typ, retries: maxRetries}
}

// Name returns the type.
func (t *TypeWorker) Name() string { return t.typ }

// MaxRetries returns the type's retries.
func (t *TypeWorker) MaxRetries() int { return t.retries }

// Remote implements sequencer.Remote: the driver calls the worker off its
// loop, and retries its errors unless permanent.
func (t *TypeWorker) Remote() bool { return true }

// Build asks the worker for the attempt's unsigned transaction.
func (t *TypeWorker) Build(ctx context.Context, txn sequencer.RawTxnData, s sequencer.Sender) (chain.Tx, error) {
	var out struct {
		Tx    *chain.Tx       `json:"tx"`
		Error json.RawMessage `json:"error"`
	}
	if err := t.w.post(ctx, "build", map[string]any{"txnData": txn, "sender": s}, &out); err != nil {
		return chain.Tx{}, err
	}
	if err := workerError("build", out.Error); err != nil {
		return chain.Tx{}, err
	}
	if out.Tx == nil {
		return chain.Tx{}, fmt.Errorf("worker build: the answer has no tx")
	}
	tx := *out.Tx
	tx.From, tx.Nonce, tx.Fee = chain.Address(s.AccountID), s.Nonce, s.Fee
	return tx, nil
}

// Dispatch is not how a type worker is used: the node builds through Build
// and signs. It answers a permanent error.
func (t *TypeWorker) Dispatch(ctx context.Context, txn sequencer.RawTxnData, s sequencer.Sender) (sequencer.TxnResult, error) {
	return sequencer.TxnResult{}, sequencer.Permanent(fmt.Errorf("type %s: a type worker only builds; its senders must be keystore senders", t.typ))
}

// OnSuccess forwards the hook to the worker.
func (t *TypeWorker) OnSuccess(ctx context.Context, txn sequencer.RawTxnData, r sequencer.TxnResult, s sequencer.Sender) (sequencer.TxnResult, error) {
	return t.w.call(ctx, "onSuccess", map[string]any{"txnData": txn, "result": r, "sender": s})
}

// OnFailure forwards the hook to the worker; the answer's error is what it
// records about the failure.
func (t *TypeWorker) OnFailure(ctx context.Context, txn sequencer.RawTxnData, r sequencer.TxnResult, s sequencer.Sender) (sequencer.TxnResult, error) {
	return t.w.onFailure(ctx, txn, r, s)
}
