package devchain

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
)

// Contract is a Go type that defines what transactions calling it may do.
// Apply must be deterministic: it may read and write state through the Exec
// and emit events, and nothing else.
type Contract interface {
	// Name is the contract's name, as transactions address it.
	Name() string
	// Apply executes a method. A returned error fails the transaction: its
	// text becomes the failure reason and its writes and events are dropped.
	Apply(x *Exec, method string, args json.RawMessage) error
	// Call answers a read-only query on the state at the head.
	Call(s StateReader, method string, args json.RawMessage) (json.RawMessage, error)
}

// StateReader reads a contract's key-value state.
type StateReader interface {
	Get(key string) ([]byte, bool)
}

// Exec is the context of one transaction's execution by a contract.
type Exec struct {
	// Height is the height of the block that includes the transaction.
	Height uint64
	// Time is that block's time.
	Time time.Time
	// From is the transaction's sender.
	From chain.Address
	// TxHash is the transaction's hash.
	TxHash chain.Hash

	// contract is the contract running now: a multicall switches it for
	// each of its calls, so writes and events are keyed by full state key
	// and carry their contract.
	contract string
	state    map[string][]byte
	writes   writeSet // every write, applied if the transaction succeeds
	always   writeSet // SetAlways writes, applied whether it succeeds or not
	events   []pendingEvent
}

// writeSet is a set of state writes by full state key (stateKey), in the
// order first written; a nil value deletes the key.
type writeSet struct {
	vals  map[string][]byte
	order []string
}

func (w *writeSet) set(key string, val []byte) {
	if w.vals == nil {
		w.vals = map[string][]byte{}
	}
	if _, seen := w.vals[key]; !seen {
		w.order = append(w.order, key)
	}
	w.vals[key] = val
}

type pendingEvent struct {
	contract string
	name     string
	data     json.RawMessage
}

// Get reads a key, seeing this transaction's own writes.
func (x *Exec) Get(key string) ([]byte, bool) {
	sk := stateKey(x.contract, key)
	if v, ok := x.writes.vals[sk]; ok {
		return v, v != nil
	}
	v, ok := x.state[sk]
	return v, ok
}

// Set writes a key (a nil val deletes it); it takes effect only if the
// transaction succeeds.
func (x *Exec) Set(key string, val []byte) {
	x.writes.set(stateKey(x.contract, key), val)
}

// SetAlways writes a key that takes effect whether the transaction
// succeeds or fails: what lets a contract count its own failures (library's
// failTimes countdown), since a failed transaction's Set writes are dropped.
// A later Set or SetAlways of the key in the same transaction overrides it,
// as Get sees. Like everything Apply does it must be deterministic: a failed
// transaction's SetAlways writes are replayed from the block log and undone
// by a reorg like any other write (a contract that calls it must never fail
// with the reason ReasonReverted, which a replay takes for the revert fault,
// whose transactions do not run). In a multicall, the SetAlways writes of
// every call that ran (up to the failing one) take effect. Contracts that
// never call it are unaffected: their failures change nothing.
func (x *Exec) SetAlways(key string, val []byte) {
	sk := stateKey(x.contract, key)
	x.writes.set(sk, val)
	x.always.set(sk, val)
}

// Emit records an event; it is published only if the transaction succeeds.
func (x *Exec) Emit(name string, data any) error {
	b, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("event %s: %w", name, err)
	}
	x.events = append(x.events, pendingEvent{contract: x.contract, name: name, data: b})
	return nil
}

// Failure is a contract failure with a short, stable reason.
type Failure struct {
	// Reason is the failed transaction's reason. It is hashed into the block
	// and checked when the block log is replayed, so it must depend on the
	// transaction and the state only.
	Reason string

	cause error // what caused the failure, if anything; see Unwrap
}

// Error returns the reason: it becomes the failed transaction's reason.
func (f *Failure) Error() string { return f.Reason }

// Unwrap returns the error that caused the failure, or nil.
func (f *Failure) Unwrap() error { return f.cause }

// Fail returns a Failure whose reason is formatted as by fmt.Errorf: a %w
// verb puts the error's text in the reason and makes the Failure wrap it.
func Fail(format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &Failure{Reason: err.Error(), cause: errors.Unwrap(err)}
}

// failCause returns a Failure with the given reason that wraps cause without
// putting its text in the reason: for a cause whose text is not stable (an
// encoding/json message may change with the Go release), which would make a
// block log replay differently.
func failCause(cause error, format string, args ...any) error {
	return &Failure{Reason: fmt.Sprintf(format, args...), cause: cause}
}

// ReasonPrecondition is the failure reason of a zkApp changed twice in a block
// or called with a stale version.
const ReasonPrecondition = "precondition"

// ReasonReverted is the failure reason of the revert fault.
const ReasonReverted = "reverted"

func stateKey(contract, key string) string { return contract + "\x00" + key }

type contractReader struct {
	contract string
	state    map[string][]byte
}

func (r contractReader) Get(key string) ([]byte, bool) {
	v, ok := r.state[stateKey(r.contract, key)]
	return v, ok
}

var errNoMethod = errors.New("no such method")
