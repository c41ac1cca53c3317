package sequencer

import (
	"context"

	"github.com/ordolabs/ordo/internal/chain"
)

// Dispatcher mirrors the seed's AnyDispatcher: one per transaction type.
type Dispatcher interface {
	// Name is the transaction type the dispatcher handles.
	Name() string
	// MaxRetries is how many times a failed transaction of this type is
	// retried before it is FAILED.
	MaxRetries() int
	// Dispatch sends the transaction and returns its hash, or an error.
	Dispatch(ctx context.Context, txn RawTxnData, s Sender) (TxnResult, error)
	// OnSuccess runs once the transaction is DONE.
	OnSuccess(ctx context.Context, txn RawTxnData, r TxnResult, s Sender) (TxnResult, error)
	// OnFailure runs once the transaction is FAILED.
	OnFailure(ctx context.Context, txn RawTxnData, r TxnResult, s Sender) (TxnResult, error)
}

// Builder is implemented by in-process dispatchers that build the chain
// transaction for the sequencer to sign and send. The sequencer then commits
// the attempt's hash before sending it, which lets a restart settle the
// attempt by asking the chain.
type Builder interface {
	Build(ctx context.Context, txn RawTxnData, s Sender) (chain.Tx, error)
}

// Worker is a remote worker that holds a sender's key (the seed's cloud
// Worker): it dispatches every type for its sender. The dispatch package's
// RemoteWorker implements it.
type Worker interface {
	// For returns the worker as the dispatcher of one type; local is the
	// type's in-process dispatcher, or nil, whose MaxRetries it keeps.
	For(typ string, local Dispatcher) Dispatcher
}

// DefaultRemoteRetries is MaxRetries of a type that only remote workers
// dispatch (no in-process dispatcher names its own).
const DefaultRemoteRetries = 3
