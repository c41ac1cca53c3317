package sequencer

import (
	"context"
	"errors"
	"fmt"

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
//
// An in-process Build must be deterministic and do no I/O: the same
// RawTxnData and Sender give the same transaction, and the driver runs it on
// its loop. So its error is permanent: the transaction ends FAILED at once
// (after its earlier attempts are settled) and its sender is freed; it is
// never retried. A Builder that calls out (a type's remote worker) says so
// with Remote: the driver runs it on an effect worker, and its errors are
// retried unless they wrap ErrPermanent.
type Builder interface {
	Build(ctx context.Context, txn RawTxnData, s Sender) (chain.Tx, error)
}

// Remote is implemented by dispatchers that call out (remote workers): the
// driver never runs them on its loop, and a Build error of theirs is
// retried unless it wraps ErrPermanent.
type Remote interface {
	Remote() bool
}

// PureHooks is implemented by in-process dispatchers whose OnSuccess and
// OnFailure are pure: deterministic, without I/O and without effects outside
// the result they return (hooks that return the result as given are). The
// driver then runs them on its loop as the transaction ends, before that end
// is committed, and commits the result with it: one write of the record
// instead of two, and no hook effect. A remote worker's hooks are never run
// so. Like any hook, a pure one may run again after a crash (hooks are at
// least once); being pure, it cannot tell.
type PureHooks interface {
	PureHooks() bool
}

// pureHook reports whether e, an EffectHook, may run on the loop: its
// type's dispatcher declares its hooks pure (PureHooks), and neither it nor
// the sender calls out (a worker sender's hooks are the worker's).
func (n *Node) pureHook(e Effect) bool {
	if n.workers[e.Sender.AccountID] != nil {
		return false
	}
	d := n.cfg.Dispatchers[e.Txn.Type]
	p, ok := d.(PureHooks)
	return ok && p.PureHooks() && !isRemote(d)
}

// isRemote reports whether d calls out.
func isRemote(d Dispatcher) bool {
	r, ok := d.(Remote)
	return ok && r.Remote()
}

// ErrPermanent marks a dispatch error that no retry can change (a
// transaction that can never be built or signed): Dispatch returns an error
// that wraps it (see Permanent) and the transaction ends FAILED without
// holding its sender through retries. This departs from seed 000's
// "Error → RETRY" for errors a retry cannot change.
var ErrPermanent = errors.New("permanent dispatch error")

// Permanent wraps err as a permanent dispatch error.
func Permanent(err error) error {
	if err == nil || errors.Is(err, ErrPermanent) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrPermanent, err)
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
