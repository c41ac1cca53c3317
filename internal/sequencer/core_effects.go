package sequencer

import (
	"time"

	"github.com/ordolabs/ordo/internal/chain"
)

// EffectKind names what the driver must do.
type EffectKind int

// Effects the core asks for.
const (
	// EffectDispatch: call the type's dispatcher for attempt Attempt. For a
	// Builder dispatcher the driver builds and signs, reports Signed, and
	// sends on the EffectSubmit that follows (after the hash is committed).
	EffectDispatch EffectKind = iota + 1
	// EffectSubmit: send the signed Tx to the chain, then report Dispatched.
	EffectSubmit
	// EffectCheck: ask the chain for Hash's status, then report Checked.
	// Without a Hash it is a lookup of an attempt a remote worker may have
	// sent unreported: find the transaction that took Sender.Nonce of
	// Sender.AccountID in the blocks since Since, and report it included
	// (CheckedIncluded, its hash in the status) when its memo is UID,
	// dropped (its reason naming it) when another transaction took the
	// nonce, unknown when no block read holds it; Err when the chain could
	// not be read.
	EffectCheck
	// EffectHook: run OnSuccess (Success) or OnFailure, then report HookDone.
	EffectHook
	// EffectLoad: read up to Limit WAITING transactions of Queue after Seq
	// After from the store, then report Loaded.
	EffectLoad
)

// Effect is one piece of I/O the core asks the driver to perform after the
// batch of the same Ready is committed.
type Effect struct {
	// Kind is what to do; it says which of the fields below are set.
	Kind EffectKind
	// UID is the transaction's record id (every kind but EffectLoad).
	UID string
	// Queue is the transaction's queue, or the queue to load (EffectLoad).
	Queue string
	// Attempt is the attempt's number, from 1 (EffectDispatch, EffectSubmit,
	// EffectCheck); the driver reports it back so the core can ignore a
	// stale answer.
	Attempt int
	// Txn is the seed's raw transaction data (EffectDispatch, EffectHook).
	Txn RawTxnData
	// Sender is the seed's sender: the bound account with the attempt's
	// nonce and fee (EffectDispatch), or the last attempt's (EffectHook).
	Sender Sender
	// Worker is the sender's remote worker URL, empty for a keystore sender.
	Worker string
	// SyncNonce asks the driver to read the sender's nonce from the chain and
	// use it if it is higher than Sender.Nonce.
	SyncNonce bool
	// Hash is the attempt's chain transaction hash (EffectSubmit,
	// EffectCheck).
	Hash string
	// Since is the time of the attempt a lookup asks about (EffectCheck
	// without a Hash).
	Since time.Time
	// Tx is the signed chain transaction to send (EffectSubmit).
	Tx chain.Tx
	// Success picks the hook (EffectHook): OnSuccess for a DONE transaction,
	// OnFailure for a FAILED one.
	Success bool
	// Result is the seed's result handed to the hook (EffectHook), with the
	// hash of the attempt that landed, or of the last one with a hash.
	Result TxnResult
	// After is the Seq after which to load WAITING transactions
	// (EffectLoad).
	After int64
	// Limit is the most WAITING transactions to load (EffectLoad).
	Limit int
	// Cancel marks the dispatch of an operator's no-op at the attempt's
	// nonce (chain.NoopTx) in the transaction's place (EffectDispatch):
	// what becomes of the transaction once it lands (store.CancelFail or
	// store.CancelRequeue).
	Cancel string
}

// DispatchResult reports an attempt's dispatch.
type DispatchResult struct {
	// UID is the dispatched transaction's record id.
	UID string
	// Attempt is the attempt's number, as in the Effect.
	Attempt int
	// Nonce is the nonce the attempt used (it differs from the effect's after
	// a SyncNonce).
	Nonce uint64
	// Hash is the chain transaction hash the dispatch returned (the seed's
	// TxnResult.Hash), empty when there is none.
	Hash string
	// Err is the dispatch error, nil on success.
	Err error
	// Code is Err's chain error code (chain.CodeOf), "" when it has none.
	Code string
	// Permanent says no retry can change Err (errors.Is(Err, ErrPermanent),
	// or any Builder error).
	Permanent bool
}

// Receipt is an included transaction seen in a new block.
type Receipt struct {
	// Hash is the included transaction's hash.
	Hash string
	// Height is the block that includes it.
	Height uint64
	// Success is whether it succeeded; a failed transaction still used its
	// nonce and fee.
	Success bool
	// Reason is the chain's failure reason ("reverted", "precondition", ...),
	// "" on success.
	Reason string
	// Nonce and Fee are the included transaction's, when the block says
	// (0: unknown): the attempt records them, so its fee is the fee of the
	// transaction whose hash it holds (a remote worker may pay another).
	Nonce, Fee uint64 `json:",omitempty"`
}
