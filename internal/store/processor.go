package store

import (
	"context"
	"encoding/json"
	"time"
)

// This file holds the processor engine's durable records (seed 002) and the
// kernel's event cursors. Like the sequencer's, they are plain data: the
// processor's core builds them and a ProcessorStore commits them.

// Processor is a processor's record: its owner, its settings and its
// counters.
type Processor struct {
	Name string `json:"name"`
	// Owner is the principal that may add batches, pause, resume, remove and
	// confirm (the seed's Authorization contract).
	Owner string `json:"owner"`
	// CallbackURL receives each batch outcome; empty keeps callbacks in the
	// store only (readable through the API).
	CallbackURL string `json:"callbackURL,omitempty"`
	// AutoTick is the auto-ticker's period; 0 disables it.
	AutoTick time.Duration `json:"autoTick,omitempty"`
	// Lanes is how many sequencer queues the processor's executions spread
	// over (1: they land in the order ticks started them).
	Lanes int `json:"lanes"`
	// Paused processors answer ticks ProcessorPaused.
	Paused bool `json:"paused"`
	// NextID numbers the batch ids the processor assigns.
	NextID int64 `json:"nextId"`
	// NextCallback is the Seq of the processor's next callback.
	NextCallback int64     `json:"nextCallback"`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
}

// BatchState is where a processor's batch stands.
type BatchState string

// Batch states.
const (
	// BatchQueued: in its priority's queue, at Key's place.
	BatchQueued BatchState = "queued"
	// BatchExecuting: a tick started it; its transaction is on its way.
	BatchExecuting BatchState = "executing"
	// BatchPending: a non-atomic action succeeded and waits for its callback
	// confirmation.
	BatchPending BatchState = "pending"
	// BatchDone: it has its outcome (and its callback).
	BatchDone BatchState = "done"
)

// ProcBatch is a processor's message batch: the columns a store indexes,
// and the engine's whole record of it (spec and progress) as Body.
type ProcBatch struct {
	Processor string     `json:"processor"`
	ID        string     `json:"id"`
	Priority  string     `json:"priority"`
	State     BatchState `json:"state"`
	// Key orders the batches of one queue (processor and priority) while
	// they are queued: ascending Key is queue order.
	Key       int64           `json:"key"`
	Body      json.RawMessage `json:"body"`
	CreatedAt time.Time       `json:"createdAt"`
	UpdatedAt time.Time       `json:"updatedAt"`
}

// CallbackState is where a callback's delivery stands.
type CallbackState string

// Callback states.
const (
	// CallbackPending: to be delivered (again at NextAt).
	CallbackPending CallbackState = "pending"
	// CallbackDelivered: the receiver answered 2xx.
	CallbackDelivered CallbackState = "delivered"
	// CallbackStored: the processor has no callback URL; the callback is
	// only kept.
	CallbackStored CallbackState = "stored"
)

// Callback is one batch outcome to report to a processor's owner.
type Callback struct {
	Processor string `json:"processor"`
	// Seq numbers a processor's callbacks from 1, in the order of outcomes.
	Seq     int64  `json:"seq"`
	BatchID string `json:"batchId"`
	// Key is the Idempotency-Key the receiver sees: one per batch outcome.
	Key string `json:"key"`
	// Body is the outcome as delivered (JSON).
	Body        json.RawMessage `json:"body"`
	State       CallbackState   `json:"state"`
	Attempts    int             `json:"attempts"`
	NextAt      time.Time       `json:"nextAt,omitzero"`
	LastError   string          `json:"lastError,omitempty"`
	DeliveredAt time.Time       `json:"deliveredAt,omitzero"`
	CreatedAt   time.Time       `json:"createdAt"`
}

// Cursor is a named position in a chain's event stream (chain.Event.Cursor):
// the last event its owner has handled.
type Cursor struct {
	Name  string `json:"name"`
	Value uint64 `json:"value"`
}

// ProcChanges is a set of processor writes applied in one store
// transaction: records are upserted by their keys (Processor by Name,
// ProcBatch by Processor and ID, Callback by Processor and Seq, Cursor by
// Name); where one batch names a record twice the later one wins.
type ProcChanges struct {
	Processors []Processor
	Batches    []ProcBatch
	Callbacks  []Callback
	Cursors    []Cursor
	// Fence, when set, names the engine's lease (see LeaseStore and
	// Batch.Fence): a store that keeps leases refuses the whole write with
	// ErrFenced once the writer no longer holds it. Nil on a node that
	// holds its database alone.
	Fence *Fence
}

// Empty reports whether the changes write nothing.
func (c *ProcChanges) Empty() bool {
	return len(c.Processors) == 0 && len(c.Batches) == 0 && len(c.Callbacks) == 0 && len(c.Cursors) == 0
}

// Append adds o's changes after c's.
func (c *ProcChanges) Append(o ProcChanges) {
	c.Processors = append(c.Processors, o.Processors...)
	c.Batches = append(c.Batches, o.Batches...)
	c.Callbacks = append(c.Callbacks, o.Callbacks...)
	c.Cursors = append(c.Cursors, o.Cursors...)
}

// ProcSnapshot is what a processor core is rebuilt from after a restart.
type ProcSnapshot struct {
	// Processors in Name order.
	Processors []Processor
	// Batches not done, ordered by processor, priority, then Key.
	Batches []ProcBatch
	// Callbacks in state pending, ordered by processor then Seq.
	Callbacks []Callback
	// Cursors in Name order.
	Cursors []Cursor
}

// ProcCounts counts one processor's batches.
type ProcCounts struct {
	// Queued by priority ("high", "medium").
	Queued    map[string]int `json:"queued"`
	Executing int            `json:"executing"`
	Pending   int            `json:"pending"`
	Done      int            `json:"done"`
	// Callbacks by state.
	Callbacks map[CallbackState]int `json:"callbacks"`
}

// ProcessorStore is the processor engine's durable state. Every store that
// implements Store implements it too (on the same database), and runs its
// conformance suite (storetest.RunProcessor).
type ProcessorStore interface {
	// ApplyProcessor commits c atomically.
	ApplyProcessor(ctx context.Context, c ProcChanges) error
	// ProcessorSnapshot reads what a restart rebuilds a core from.
	ProcessorSnapshot(ctx context.Context) (ProcSnapshot, error)
	// GetProcessor returns one processor, or ErrNotFound.
	GetProcessor(ctx context.Context, name string) (Processor, error)
	// ListProcessors returns up to limit (default 100, cap 1000)
	// processors whose names sort after after, in name order.
	ListProcessors(ctx context.Context, after string, limit int) ([]Processor, error)
	// GetBatch returns one batch in any state, or ErrNotFound.
	GetBatch(ctx context.Context, processor, id string) (ProcBatch, error)
	// QueuedBatches returns up to limit (default 100, cap 1000) queued
	// batches of a processor's priority queue in queue order, skipping the
	// first offset.
	QueuedBatches(ctx context.Context, processor, priority string, offset, limit int) ([]ProcBatch, error)
	// ProcessorCounts counts a processor's batches and callbacks.
	ProcessorCounts(ctx context.Context, processor string) (ProcCounts, error)
	// Callbacks returns up to limit (default 100, cap 1000) of a
	// processor's callbacks with Seq greater than after, in Seq order.
	Callbacks(ctx context.Context, processor string, after int64, limit int) ([]Callback, error)
	// Cursor returns a cursor's value, 0 when it was never written.
	Cursor(ctx context.Context, name string) (uint64, error)
}
