package store

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// This file holds the leader engine's durable records (seed 001): the
// indexer's event records and the channels. Like the others, they are
// plain data that the leader's core builds and a LeaderStore commits.

// EventStatus is an indexed request's status (seed 001's vocabulary).
type EventStatus string

// Event statuses.
const (
	// EventQueued: indexed, waiting for the execution engine.
	EventQueued EventStatus = "Queued"
	// EventActive: taken by the execution engine: its tool runs, or its
	// result waits for or travels over a channel (see LeaderEvent.Phase).
	EventActive EventStatus = "Active"
	// EventSuccessful: its successful result is on chain.
	EventSuccessful EventStatus = "Successful"
	// EventDead: it ended without a successful result (a fatal failure
	// reported on chain, retries used up, stale, or its request reorged
	// out); Error says why.
	EventDead EventStatus = "Dead"
)

// LeaderEvent is an indexer record: one RequestWalkExecution event and what
// became of it.
type LeaderEvent struct {
	// ID is the event's chain cursor: unique, never reused.
	ID int64 `json:"id"`
	// Walk is the request's walk id: a walk is indexed once, whatever
	// cursor a reorg brings it back under.
	Walk string `json:"walk"`
	Tool string `json:"tool"`
	// Digest is the emitting transaction's hash.
	Digest string `json:"digest"`
	// JSON is the event as the chain gave it.
	JSON    json.RawMessage `json:"json"`
	Height  uint64          `json:"height"`
	Status  EventStatus     `json:"status"`
	Retried int             `json:"retried"`
	Error   string          `json:"error,omitempty"`
	// Phase, while Active: "invoke" (the tool runs), "report" (the result
	// waits for a channel) or "sent" (the result transaction is in the
	// sequencer).
	Phase string `json:"phase,omitempty"`
	// OK and Output are the result to report (Output the tool's output, or
	// the failure's message when not OK).
	OK     bool            `json:"ok"`
	Output json.RawMessage `json:"output,omitempty"`
	// Channel is the channel the result went over (-1 before).
	Channel int `json:"channel"`
	// ResultUID is the sequencer record of the result transaction.
	ResultUID string `json:"resultUid,omitempty"`
	// Reports counts the result transactions handed to the sequencer: each
	// has its own idempotency key, so a report resent over another channel
	// after a failure is a new transaction.
	Reports   int       `json:"reports"`
	ActiveAt  time.Time `json:"activeAt,omitzero"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// LeaderChannel is one channel: the account holding its leader cap, and
// until when it is blocked after a result transaction failed on chain.
type LeaderChannel struct {
	Index        int       `json:"index"`
	Account      string    `json:"account"`
	BlockedUntil time.Time `json:"blockedUntil,omitzero"`
	LastError    string    `json:"lastError,omitempty"`
	UpdatedAt    time.Time `json:"updatedAt"`
}

// LeaderChanges is a set of leader writes applied in one store transaction,
// upserted by key (LeaderEvent by ID, LeaderChannel by Index, Cursor by
// Name); where one set names a record twice the later one wins. A
// LeaderEvent whose Walk another ID holds is refused (ErrWalkIndexed): the
// core deduplicates by walk, the store holds it to that.
type LeaderChanges struct {
	Events   []LeaderEvent
	Channels []LeaderChannel
	Cursors  []Cursor
	// Fence, when set, names the engine's lease (see LeaseStore and
	// Batch.Fence): a store that keeps leases refuses the whole write with
	// ErrFenced once the writer no longer holds it. Nil on a node that
	// holds its database alone.
	Fence *Fence
}

// Empty reports whether the changes write nothing.
func (c *LeaderChanges) Empty() bool {
	return len(c.Events) == 0 && len(c.Channels) == 0 && len(c.Cursors) == 0
}

// LeaderSnapshot is what a leader core is rebuilt from after a restart.
type LeaderSnapshot struct {
	// Events in status Queued or Active, in ID order.
	Events []LeaderEvent
	// Channels in Index order.
	Channels []LeaderChannel
	// Cursors in Name order.
	Cursors []Cursor
}

// LeaderFilter selects event records: a Status (empty: any), IDs greater
// than After, at most Limit (default 100, cap 1000), in ID order.
type LeaderFilter struct {
	Status EventStatus
	After  int64
	Limit  int
}

// ErrWalkIndexed is returned by ApplyLeader for an event record whose walk
// another record holds.
var ErrWalkIndexed = errors.New("walk already indexed")

// LeaderStore is the leader engine's durable state; every store that
// implements Store implements it too, and runs storetest.RunLeader.
type LeaderStore interface {
	// ApplyLeader commits c atomically.
	ApplyLeader(ctx context.Context, c LeaderChanges) error
	// LeaderSnapshot reads what a restart rebuilds a core from.
	LeaderSnapshot(ctx context.Context) (LeaderSnapshot, error)
	// LeaderEvent returns one record by ID, or ErrNotFound.
	LeaderEvent(ctx context.Context, id int64) (LeaderEvent, error)
	// LeaderEventByWalk returns the record of a walk, or ErrNotFound.
	LeaderEventByWalk(ctx context.Context, walk string) (LeaderEvent, error)
	// LeaderEvents lists records.
	LeaderEvents(ctx context.Context, f LeaderFilter) ([]LeaderEvent, error)
	// LeaderCounts counts records by status (every status present).
	LeaderCounts(ctx context.Context) (map[EventStatus]int, error)
	// LeaderChannels lists the channels in Index order.
	LeaderChannels(ctx context.Context) ([]LeaderChannel, error)
}
