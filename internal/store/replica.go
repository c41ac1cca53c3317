package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ordolabs/ordo/internal/replog"
)

// This file holds the replication of sequencer queues (issue 12, seed 004):
// each replicated queue's changes on its primary, as a hash chain of
// entries (internal/replog) committed in the same store transaction as the
// records they describe, and the same log held by its secondaries.

// ReplicaSet is a queue's replica set as this node last read it from the
// chain's `replicasets` contract.
type ReplicaSet struct {
	Queue       string   `json:"queue"`
	Primary     string   `json:"primary"`
	Secondaries []string `json:"secondaries"`
	Version     uint64   `json:"version"`
}

// Members returns the primary, then the secondaries.
func (s ReplicaSet) Members() []string { return append([]string{s.Primary}, s.Secondaries...) }

// Holds reports whether node is a member of the set.
func (s ReplicaSet) Holds(node string) bool {
	for _, m := range s.Members() {
		if m == node {
			return true
		}
	}
	return false
}

// Change operations, a log entry's payload.
const (
	// ChangeIntent: an intent accepted on the primary, WAITING.
	ChangeIntent = "intent"
	// ChangeFinal: an intent reached DONE or FAILED on the primary.
	ChangeFinal = "final"
)

// Change is what one replication-log entry records (its Payload, as JSON):
// an intent accepted, with what re-creates it on another node, or an
// intent's final state.
type Change struct {
	Op             string          `json:"op"`
	UID            string          `json:"uid"`
	Type           string          `json:"type,omitempty"`
	Data           json.RawMessage `json:"data,omitempty"`
	IdempotencyKey string          `json:"idempotencyKey,omitempty"`
	// Principal is the idempotency key's scope (NewTransaction.Principal);
	// entries written before it was recorded read as "".
	Principal string          `json:"principal,omitempty"`
	State     TxState         `json:"state,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     string          `json:"error,omitempty"`
	At        time.Time       `json:"at"`
}

// EncodeChange is the payload of a log entry recording c.
func EncodeChange(c Change) []byte {
	b, err := json.Marshal(c)
	if err != nil {
		panic(fmt.Sprintf("store: encoding a change: %v", err)) // only plain fields: cannot fail
	}
	return b
}

// DecodeChange reads a log entry's payload, refusing an unknown operation,
// an empty uid or a final change whose state is not DONE or FAILED.
func DecodeChange(p []byte) (Change, error) {
	var c Change
	if err := json.Unmarshal(p, &c); err != nil {
		return Change{}, fmt.Errorf("store: change: %w", err)
	}
	switch {
	case c.UID == "":
		return Change{}, fmt.Errorf("store: change: empty uid")
	case c.Op == ChangeIntent:
	case c.Op == ChangeFinal && (c.State == Done || c.State == Failed):
	default:
		return Change{}, fmt.Errorf("store: change of %s: operation %q with state %q", c.UID, c.Op, c.State)
	}
	return c, nil
}

// ReplicaStore is what the state machine manager keeps in a node's store.
//
// On the primary (the queue's known set names this node, SetReplicaSelf,
// as primary) the store appends an entry to the queue's log in the same
// store transaction as each change it records: a ChangeIntent for each
// transaction Enqueue creates (not for a known idempotency key), a
// ChangeFinal for each TxUpdate in Apply that moves a transaction into DONE
// or FAILED from another state. Entries are sealed at the queue's head
// clock + 1 under the known set's Version, chained to the head's hash.
// Queues without a known set, or whose primary is another node, are not
// logged.
type ReplicaStore interface {
	// SetReplicaSelf names this node (its node id): the primary of the
	// queues it logs. Empty (the default) logs nothing.
	SetReplicaSelf(id string)
	// PutReplicaSets records sets read from the chain (upsert by queue); a
	// set whose Version is below the one held is ignored.
	PutReplicaSets(ctx context.Context, sets []ReplicaSet) error
	// ReplicaSets returns every set held, by queue name.
	ReplicaSets(ctx context.Context) ([]ReplicaSet, error)
	// ReplicaSet returns one queue's set, or ErrNotFound.
	ReplicaSet(ctx context.Context, queue string) (ReplicaSet, error)
	// LogHead returns the head of a queue's log (zero for none).
	LogHead(ctx context.Context, queue string) (replog.Head, error)
	// LogHeads returns the head of every queue with a log.
	LogHeads(ctx context.Context) (map[string]replog.Head, error)
	// LogAfter returns up to limit (default 100, cap 1000) entries of a
	// queue's log with a clock above after, in clock order.
	LogAfter(ctx context.Context, queue string, after uint64, limit int) ([]replog.Entry, error)
	// AppendLog is a secondary applying entries sent by a primary under
	// replica-set version from: replog.Extend against the log's head and
	// the Version of the set held for the queue (0 when none), then the
	// entries to apply inserted, atomically. It returns the head after
	// them, or Extend's error (wrapped) and changes nothing.
	AppendLog(ctx context.Context, queue string, from uint64, entries []replog.Entry) (replog.Head, error)
	// ResetLog replaces a secondary's whole log of a queue with entries
	// (a primary's log from clock 1, for a replica whose log diverged):
	// refused, changing nothing, when from is below the held set's Version
	// or when entries do not form a valid chain from clock 1 (the errors
	// of replog.Extend from an empty head).
	ResetLog(ctx context.Context, queue string, from uint64, entries []replog.Entry) (replog.Head, error)
	// AdoptLog makes this node's sequencer records of a queue from its
	// log, for a node that has become the queue's primary (the held set
	// names it): each intent in log order is created with its uid, type,
	// data, principal and idempotency key, WAITING (reported to the Notifier as
	// Enqueue's are, without a new log entry), or in its final state with
	// its result or error when the log holds its ChangeFinal, or DONE with
	// the result given when its uid is in applied (the chain shows it
	// applied: a ChangeFinal is appended for it). Intents whose uid the
	// store holds already are left as they are. It returns the uids it
	// created WAITING, in log order.
	AdoptLog(ctx context.Context, queue string, applied map[string]json.RawMessage) ([]string, error)
}
