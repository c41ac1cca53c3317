package store

import (
	"context"
	"errors"
	"fmt"
)

// ChainIdentity names the ledger a store belongs to: its chain id and the
// hash of its genesis block (chain.Identity's fields; the store does not
// depend on the chain package).
type ChainIdentity struct {
	ChainID string `json:"chainId"`
	Genesis string `json:"genesis"`
}

// String is the identity in one word: chainId@genesis.
func (id ChainIdentity) String() string { return id.ChainID + "@" + id.Genesis }

// ChainStore records which ledger a store belongs to, so that nodes sharing
// one store cannot write one queue set's intents to two ledgers.
//
// Every implementation keeps: the first BindChain wins, atomically, also
// between nodes binding one shared store at once; the identity it recorded
// never changes; a BindChain of another identity writes nothing and fails
// with a *ChainMismatchError.
type ChainStore interface {
	// BindChain records id as the store's ledger when none is recorded
	// yet, and returns nil; nil too when the store already belongs to id.
	// When it belongs to another, it returns a *ChainMismatchError (which
	// matches ErrChainMismatch). An id with an empty field is refused.
	BindChain(ctx context.Context, id ChainIdentity) error
	// BoundChain returns the identity the store records; ok is false
	// while none is recorded.
	BoundChain(ctx context.Context) (id ChainIdentity, ok bool, err error)
}

// ErrChainMismatch is matched (errors.Is) by the *ChainMismatchError of
// BindChain.
var ErrChainMismatch = errors.New("store: the store belongs to another chain")

// ChainMismatchError is BindChain's refusal: the store records Stored, the
// caller's chain is Given.
type ChainMismatchError struct {
	Stored, Given ChainIdentity
}

// Error names both identities.
func (e *ChainMismatchError) Error() string {
	return fmt.Sprintf("store: the store belongs to chain %s; this node's chain is %s", e.Stored, e.Given)
}

// Is makes a *ChainMismatchError match ErrChainMismatch.
func (e *ChainMismatchError) Is(target error) bool { return target == ErrChainMismatch }

// CheckChain validates id for BindChain.
func CheckChain(id ChainIdentity) error {
	if id.ChainID == "" || id.Genesis == "" {
		return fmt.Errorf("store: chain identity %s: chain id and genesis hash are both required", id)
	}
	return nil
}

// ChainMismatch returns nil when stored is given, else the
// *ChainMismatchError of the two.
func ChainMismatch(stored, given ChainIdentity) error {
	if stored == given {
		return nil
	}
	return &ChainMismatchError{Stored: stored, Given: given}
}

// ErrStorageFull is wrapped by a write's error when the store has no room
// for it (SQLite's SQLITE_FULL, ENOSPC, PostgreSQL's disk_full 53100).
// Nothing of the write was applied: the caller may retry once there is
// room again, with the same idempotency key for an intent.
var ErrStorageFull = errors.New("store: storage full")
