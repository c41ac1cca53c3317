package store

import (
	"context"
	"errors"
	"time"
)

// TxChange is one state transition of a transaction as the change feed
// (Store.Changes, GET /v1/changes) hands it out: an entry of its history
// with the transaction's queue, and the feed's cursor.
type TxChange struct {
	// ID is the change's cursor: opaque, strictly increasing in the order
	// Changes returns, and the After that resumes right after it.
	ID    string    `json:"id"`
	UID   string    `json:"uid"`
	Queue string    `json:"queue"`
	From  TxState   `json:"from"`
	To    TxState   `json:"to"`
	At    time.Time `json:"at"`
	Note  string    `json:"note"`
}

// ChangeFilter selects changes for Store.Changes.
type ChangeFilter struct {
	// After is a cursor (a TxChange's ID): only the changes after it. Empty
	// reads from the oldest change kept; a cursor older than the oldest
	// kept (retention pruned what followed it) reads from the oldest kept.
	After string
	// Queue, when set, keeps only that queue's changes.
	Queue string
	// Limit defaults to DefaultLimit and is capped at MaxLimit.
	Limit int
}

// ChangeFeed reads the change feed: every state transition the store
// committed (Batch.History), in the order of their cursors. A reader that
// resumes from the last ID it read never skips a committed change and
// never reads one twice; each store's doc says how it keeps that when
// commits land out of order.
type ChangeFeed interface {
	Changes(ctx context.Context, f ChangeFilter) ([]TxChange, error)
	// ChangesTail is the cursor of the newest change Changes can hand out
	// now ("" when it has none): Changes after it reads only the changes
	// to come (GET /v1/changes?after=now).
	ChangesTail(ctx context.Context) (string, error)
}

// ErrBadCursor is the error of a ChangeFilter.After that no TxChange of the
// store handed out (malformed).
var ErrBadCursor = errors.New("store: a change cursor this store did not hand out")
