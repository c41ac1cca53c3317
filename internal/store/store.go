package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"
)

// TxState is a transaction's state (seed 000, "Transaction states").
type TxState string

// Transaction states.
const (
	Waiting  TxState = "WAITING"
	Revision TxState = "REVISION"
	Retry    TxState = "RETRY"
	Done     TxState = "DONE"
	Failed   TxState = "FAILED"
)

// Valid reports whether s is one of the five states.
func (s TxState) Valid() bool {
	switch s {
	case Waiting, Revision, Retry, Done, Failed:
		return true
	}
	return false
}

// BindingState is the state of a queue's binding to a sender (seed 000,
// "Senders and workers").
type BindingState string

// Binding states.
const (
	Free             BindingState = "FREE"
	Blocked          BindingState = "BLOCKED"
	Inclusion        BindingState = "INCLUSION"
	WaitingInclusion BindingState = "WAITING_INCLUSION"
	RetryBinding     BindingState = "RETRY"
	Delay            BindingState = "DELAY"
)

// Valid reports whether s is one of the six binding states.
func (s BindingState) Valid() bool {
	switch s {
	case Free, Blocked, Inclusion, WaitingInclusion, RetryBinding, Delay:
		return true
	}
	return false
}

// Attempt is one dispatch of a transaction.
type Attempt struct {
	// N numbers attempts from 1.
	N      int    `json:"n"`
	Sender string `json:"sender"`
	Nonce  uint64 `json:"nonce"`
	Fee    uint64 `json:"fee,string"` // a decimal string on the wire (wei per gas on an EVM chain)
	// Gas is the attempt's gas limit on a chain with gas (chain.Tx.Gas),
	// which a replacement at the same nonce keeps; 0 on devchain.
	Gas uint64 `json:"gas,omitempty,string"`
	// Cancel marks an attempt an operator asked for to cancel its nonce (a
	// no-op in the transaction's place, chain.NoopTx): what becomes of the
	// transaction once the no-op takes the nonce, CancelFail or
	// CancelRequeue. Empty for the transaction's own attempts.
	Cancel string `json:"cancel,omitempty"`
	// Hash is empty until known (a remote worker reports it after sending).
	Hash string    `json:"hash,omitempty"`
	At   time.Time `json:"at"`
	// Outcome is what became of the attempt, as far as the node knows.
	Outcome Outcome `json:"outcome,omitempty"`
	Error   string  `json:"error,omitempty"`
	Height  uint64  `json:"height,omitempty"`
}

// What becomes of a transaction whose nonce an operator cancelled, once
// the no-op took the nonce (Attempt.Cancel).
const (
	// CancelFail ends it FAILED.
	CancelFail = "fail"
	// CancelRequeue sends it again at a fresh nonce (not counted as a
	// retry).
	CancelRequeue = "requeue"
)

// Outcome is what became of an attempt: the one vocabulary of the store, the
// sequencer's core and the API.
type Outcome string

// Attempt outcomes.
const (
	// OutcomeNone: planned, not yet sent (its hash may be known).
	OutcomeNone Outcome = ""
	// OutcomeSent: the dispatch succeeded; the attempt may land.
	OutcomeSent Outcome = "sent"
	// OutcomeError: the dispatch failed; it never reached the chain (but see
	// the sequencer on remote workers that may have sent it unreported).
	OutcomeError Outcome = "error"
	// OutcomeIncluded: included with success.
	OutcomeIncluded Outcome = "included"
	// OutcomeFailed: included and failed: its nonce and fee are spent.
	OutcomeFailed Outcome = "failed"
	// OutcomeDropped: the chain dropped or replaced it; it can no longer land.
	OutcomeDropped Outcome = "dropped"
	// OutcomeUnknown: the chain does not know it (yet).
	OutcomeUnknown Outcome = "unknown"
	// OutcomeTimeout: not included within the inclusion timeout; replaced by
	// the next attempt, which reuses its nonce.
	OutcomeTimeout Outcome = "timeout"
)

// Valid reports whether o is one of the outcomes above.
func (o Outcome) Valid() bool {
	switch o {
	case OutcomeNone, OutcomeSent, OutcomeError, OutcomeIncluded, OutcomeFailed, OutcomeDropped, OutcomeUnknown, OutcomeTimeout:
		return true
	}
	return false
}

// Transaction is a sequencer record.
type Transaction struct {
	UID            string          `json:"uid"`
	Queue          string          `json:"queue"`
	Type           string          `json:"type"`
	Data           json.RawMessage `json:"data"`
	State          TxState         `json:"state"`
	Retries        int             `json:"retries"`
	IdempotencyKey string          `json:"idempotencyKey,omitempty"`
	Seq            int64           `json:"seq"`
	Result         json.RawMessage `json:"result,omitempty"`
	Error          string          `json:"error,omitempty"`
	CreatedAt      time.Time       `json:"createdAt"`
	// UpdatedAt is when State, Retries, Result or Error last changed; an
	// attempt's progress alone leaves it (each attempt has its own At).
	UpdatedAt time.Time `json:"updatedAt"`
	Attempts  []Attempt `json:"attempts"`
}

// NewTransaction is an intent handed to Enqueue.
type NewTransaction struct {
	UID   string
	Queue string
	Type  string
	Data  json.RawMessage
	// Principal is who submitted the intent: its idempotency key's scope
	// (a configured principal, an engine's reserved one, or "" for none).
	Principal      string
	IdempotencyKey string
	At             time.Time
}

// EnqueueResult tells what Enqueue did with one NewTransaction.
type EnqueueResult struct {
	Transaction Transaction
	// Created is false when the idempotency key was already known; then
	// Transaction is the existing record.
	Created bool
}

// Queue is a queue and its binding.
type Queue struct {
	Name  string       `json:"name"`
	State BindingState `json:"state"`
	// Sender is the bound sender's id, empty when FREE.
	Sender string `json:"sender,omitempty"`
	// TxUID is the queue's transaction in flight, empty when FREE: the one
	// in REVISION or RETRY, or, while BLOCKED, the WAITING one being
	// dispatched.
	TxUID string `json:"txUid,omitempty"`
	// DelayUntil is when a DELAY ends.
	DelayUntil time.Time `json:"delayUntil,omitzero"`
	// Deadline is the block height after which WAITING_INCLUSION times out.
	Deadline  uint64    `json:"deadline,omitempty"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// Sender is a signing account.
type Sender struct {
	// ID is the account address.
	ID string `json:"id"`
	// Worker is the remote worker URL, empty for a key in the node's keystore.
	Worker string `json:"worker,omitempty"`
	// Queue is the queue holding the sender, empty when free.
	Queue string `json:"queue,omitempty"`
	// NextNonce is the nonce the sender's next new attempt uses.
	NextNonce uint64    `json:"nextNonce"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// HistoryEntry is one state transition of a transaction.
type HistoryEntry struct {
	UID     string       `json:"uid"`
	At      time.Time    `json:"at"`
	From    TxState      `json:"from"`
	To      TxState      `json:"to"`
	Binding BindingState `json:"binding,omitempty"`
	Note    string       `json:"note,omitempty"`
}

// TxUpdate changes one transaction. State, Retries, Result and Error are
// written as given, with At as its UpdatedAt; Attempt, when set, is upserted
// by (UID, Attempt.N).
type TxUpdate struct {
	UID     string
	State   TxState
	Retries int
	Result  json.RawMessage
	Error   string
	Attempt *Attempt
	At      time.Time
	// AttemptOnly, with Attempt set, says that State, Retries, Result and
	// Error are those the store already holds (or that an earlier update
	// of the same batch writes): only the attempt is written, and the
	// transaction's UpdatedAt keeps the time of its last own change. An
	// unknown uid is refused all the same, with ErrNotFound.
	AttemptOnly bool
}

// RowUpdates sorts a batch's transaction updates for a store: rows holds,
// for each uid with an update that is not AttemptOnly, the index of the
// last such update (its fields are the transaction's latest, as an
// AttemptOnly update carries the fields before it), in the order of the
// uids' first updates; attemptOnly lists, once each, the uids whose every
// update is AttemptOnly.
func RowUpdates(us []TxUpdate) (rows []int, attemptOnly []string) {
	pos := make(map[string]int, len(us)) // uid → index into rows, or -1-index into attemptOnly
	for i := range us {
		u := &us[i]
		j, seen := pos[u.UID]
		switch {
		case !seen && u.AttemptOnly:
			pos[u.UID] = -1 - len(attemptOnly)
			attemptOnly = append(attemptOnly, u.UID)
		case !seen:
			pos[u.UID] = len(rows)
			rows = append(rows, i)
		case u.AttemptOnly:
		case j >= 0:
			rows[j] = i
		default: // a first own change after attempt-only updates
			attemptOnly[-1-j] = ""
			pos[u.UID] = len(rows)
			rows = append(rows, i)
		}
	}
	if len(attemptOnly) > 0 {
		attemptOnly = slices.DeleteFunc(attemptOnly, func(uid string) bool { return uid == "" })
	}
	return rows, attemptOnly
}

// Pipeliner is a Store that can start Applies in order: StartApply hands
// b to the store's writer before it returns, so that it is applied after
// every batch started (or applied) before it, and returns at once; Wait on
// what it returns gives what Apply would have. When after (a batch the
// same store started) fails, b is not applied and fails too, with
// ErrEarlierFailed: chained so, the store never holds a later batch
// without an earlier one. An empty batch adds nothing: its Started stands
// for after's. The sequencer's loop uses it to keep more than one batch
// committing.
type Pipeliner interface {
	StartApply(ctx context.Context, b Batch, after Started) Started
}

// Started is a batch a Pipeliner started.
type Started interface {
	// Wait waits for the batch's commit, or for ctx, and returns what
	// Apply would have returned.
	Wait(ctx context.Context) error
}

// ErrEarlierFailed is the error of a batch started (Pipeliner) after one
// that failed: it was not applied. It wraps the earlier batch's error too.
var ErrEarlierFailed = errors.New("store: a batch started before this one failed; this one was not applied")

// EarlierFailed is the error of a batch chained to one whose error is err:
// nil when err is nil, else one wrapping ErrEarlierFailed and err.
func EarlierFailed(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrEarlierFailed, err)
}

// Batch is a set of changes applied in one store transaction.
type Batch struct {
	Txs     []TxUpdate
	Queues  []Queue
	Senders []Sender
	History []HistoryEntry
	// Fence, when set, names the leases the batch needs (see LeaseStore):
	// a store that keeps leases refuses the whole batch with ErrFenced
	// once one of them is no longer the holder's. Nil on a node that
	// holds its database alone.
	Fence *Fence
}

// Append adds o's changes after b's; applied together, o's win where both
// change the same record (and o's Fence, when it has one).
func (b *Batch) Append(o Batch) {
	if o.Fence != nil {
		b.Fence = o.Fence
	}
	b.Txs = append(b.Txs, o.Txs...)
	b.Queues = append(b.Queues, o.Queues...)
	b.Senders = append(b.Senders, o.Senders...)
	b.History = append(b.History, o.History...)
}

// Empty reports whether the batch changes nothing.
func (b *Batch) Empty() bool {
	return len(b.Txs) == 0 && len(b.Queues) == 0 && len(b.Senders) == 0 && len(b.History) == 0
}

// Filter selects transactions for List.
type Filter struct {
	Queue string
	State TxState
	// After is a cursor: only transactions with Seq greater than it.
	After int64
	// Limit defaults to 100 and is capped at 1000.
	Limit int
}

// QueueStats counts a queue's transactions by state.
type QueueStats struct {
	Queue  Queue           `json:"queue"`
	Counts map[TxState]int `json:"counts"`
}

// Store is the sequencer's durable state.
type Store interface {
	// Enqueue commits new transactions in state WAITING, in order, assigning
	// Seq; a known idempotency key returns the existing record instead. A
	// key is known per principal: it names one transaction of the
	// (Principal, IdempotencyKey) pair, and the same key under another
	// principal is another transaction. All of the batch commits together.
	Enqueue(ctx context.Context, txs []NewTransaction) ([]EnqueueResult, error)
	// Get returns a transaction with its attempts.
	Get(ctx context.Context, uid string) (Transaction, error)
	// History returns a transaction's state transitions, oldest first.
	History(ctx context.Context, uid string) ([]HistoryEntry, error)
	// List returns transactions matching f in Seq order, with attempts.
	List(ctx context.Context, f Filter) ([]Transaction, error)
	// Waiting returns up to limit WAITING transactions of a queue with Seq
	// greater than after, in Seq order, with attempts (a WAITING transaction
	// has some when a dispatch was interrupted).
	Waiting(ctx context.Context, queue string, after int64, limit int) ([]Transaction, error)
	// Active returns the transactions in REVISION or RETRY, with attempts.
	Active(ctx context.Context) ([]Transaction, error)
	// PendingHooks returns up to limit (default and cap 1000) DONE or FAILED
	// transactions with Seq greater than after and no Result yet — their hook
	// had not reported when the node stopped — in Seq order, with attempts.
	PendingHooks(ctx context.Context, after int64, limit int) ([]Transaction, error)
	// CountByState counts all transactions by state (every state present,
	// zero included).
	CountByState(ctx context.Context) (map[TxState]int, error)
	// WaitingQueues returns the names of queues with WAITING transactions.
	WaitingQueues(ctx context.Context) ([]string, error)
	// Apply commits a batch atomically.
	Apply(ctx context.Context, b Batch) error
	// Queues returns every queue known to the store (any with a transaction
	// or a binding), with its binding (FREE if never bound).
	Queues(ctx context.Context) ([]Queue, error)
	// Bindings returns the queues that have a binding row (every queue
	// ever bound), with it, in name order: what a node's start restores,
	// without Queues' scan for the names of queues never bound.
	Bindings(ctx context.Context) ([]Queue, error)
	// QueueStats returns one queue with its counts by state.
	QueueStats(ctx context.Context, name string) (QueueStats, error)
	// Senders returns all senders.
	Senders(ctx context.Context) ([]Sender, error)
	// Close releases the store.
	Close() error
	// ChangeFeed: the history's entries, in commit order, with cursors.
	ChangeFeed
	// Notifier: the sequencer learns of new transactions from the store's
	// commits, in Seq order, so FIFO per queue never depends on the order in
	// which concurrent Enqueue callers wake up.
	Notifier
}

// ErrNotFound is returned for a uid or queue the store does not have.
var ErrNotFound = errors.New("not found")

// Notifier reports the transactions each Enqueue commit created, in Seq
// order, from the goroutine that commits, before the callers are woken. f
// must not block.
type Notifier interface {
	SetOnEnqueued(f func([]Transaction))
}

// Read limits: a listing's Limit defaults to DefaultLimit and is capped at
// MaxLimit (Filter.Limit and the stores' other pages).
const (
	DefaultLimit = 100
	MaxLimit     = 1000
)

// ClampLimit is a listing's limit n with its default and cap.
func ClampLimit(n int) int {
	if n <= 0 {
		return DefaultLimit
	}
	return min(n, MaxLimit)
}
