package sequencer

import (
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
	Kind    EffectKind
	UID     string
	Queue   string
	Attempt int
	Txn     RawTxnData
	Sender  Sender
	// Worker is the sender's remote worker URL, empty for a keystore sender.
	Worker string
	// SyncNonce asks the driver to read the sender's nonce from the chain and
	// use it if it is higher than Sender.Nonce.
	SyncNonce bool
	Hash      string
	Tx        chain.Tx
	Success   bool
	Result    TxnResult
	After     int64
	Limit     int
}

// DispatchResult reports an attempt's dispatch.
type DispatchResult struct {
	UID     string
	Attempt int
	// Nonce is the nonce the attempt used (it differs from the effect's after
	// a SyncNonce).
	Nonce uint64
	Hash  string
	// Err is the dispatch error, nil on success; Code is its chain error code
	// when it has one.
	Err  error
	Code string
}

// Receipt is an included transaction seen in a new block.
type Receipt struct {
	Hash    string
	Height  uint64
	Success bool
	Reason  string
}
