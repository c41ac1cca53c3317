package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Error codes of the processor's routes, beyond the sequencer's.
const (
	// CodeConflict (409): a batch id the processor has already used, or a
	// processor name that is taken.
	CodeConflict = "conflict"
	// CodeQueueFull (429): the processor holds its most queued batches
	// (the node's processor.maxQueued).
	CodeQueueFull = "queue_full"
	// CodeUnavailable (503): the processor engine has not started, or a
	// commit failed; nothing changed.
	CodeUnavailable = "unavailable"
)

// The two priorities of a processor's queues. High is drained before
// Medium.
const (
	PriorityHigh   = "high"
	PriorityMedium = "medium"
)

// What a tick did (TickResult.Outcome).
const (
	// TickNoMessages: both queues were empty.
	TickNoMessages = "NoMessagesToProcess"
	// TickPaused: the processor is paused; nothing moved.
	TickPaused = "ProcessorPaused"
	// TickRotated: the first batch's retry cooldown had not passed; it
	// went to the back of its queue.
	TickRotated = "Rotated"
	// TickExpired: the first batch had expired; it ended Expired.
	TickExpired = "Expired"
	// TickStarted: the first batch (atomic) or its next action
	// (non-atomic) started executing. Its outcome comes later, by
	// callback.
	TickStarted = "Started"
)

// Batch outcomes (BatchOutcome.Status).
const (
	StatusExecuted          = "Executed"
	StatusRejected          = "Rejected"
	StatusPartiallyExecuted = "PartiallyExecuted"
	StatusExpired           = "Expired"
	StatusRemovedByOwner    = "RemovedByOwner"
)

// Batch states (BatchRecord.State).
const (
	BatchQueued    = "queued"
	BatchExecuting = "executing"
	// BatchPending: an action waits for its callback confirmation.
	BatchPending = "pending"
	BatchDone    = "done"
)

// Callback delivery states (Callback.State).
const (
	// CallbackPending: to be delivered (again at NextAt).
	CallbackPending = "pending"
	// CallbackDelivered: the processor's callback URL answered 2xx.
	CallbackDelivered = "delivered"
	// CallbackStored: the processor has no callback URL; the callback is
	// only kept, readable through Callbacks.
	CallbackStored = "stored"
)

// ProcessorSpec is a new processor, as an admin creates it.
type ProcessorSpec struct {
	// Name is 1-64 characters of [a-z0-9_-].
	Name string
	// Owner is the principal that may add batches, pause, resume, remove
	// and confirm. Empty means the caller.
	Owner string
	// CallbackURL receives each batch outcome (an http:// or https://
	// URL). Empty keeps callbacks in the node only (Callbacks reads them).
	CallbackURL string
	// AutoTick, when at least 10ms, makes the node tick the processor
	// every AutoTick while work is queued. Zero: ticks come from callers.
	AutoTick time.Duration
	// Lanes spreads executions over this many sequencer queues (1-256).
	// Zero means 1: executions land in the order ticks started them.
	Lanes int
}

// MarshalJSON writes the body of POST /v1/processors (AutoTick as a
// duration string such as "1s").
func (s ProcessorSpec) MarshalJSON() ([]byte, error) {
	w := struct {
		Name        string `json:"name"`
		Owner       string `json:"owner,omitempty"`
		CallbackURL string `json:"callbackURL,omitempty"`
		AutoTick    string `json:"autoTick,omitempty"`
		Lanes       int    `json:"lanes,omitempty"`
	}{Name: s.Name, Owner: s.Owner, CallbackURL: s.CallbackURL, Lanes: s.Lanes}
	if s.AutoTick != 0 {
		w.AutoTick = s.AutoTick.String()
	}
	return json.Marshal(w)
}

// Processor is a processor as the node keeps it.
type Processor struct {
	Name        string        `json:"name"`
	Owner       string        `json:"owner"`
	CallbackURL string        `json:"callbackURL,omitempty"`
	AutoTick    time.Duration `json:"autoTick,omitempty"`
	Lanes       int           `json:"lanes"`
	Paused      bool          `json:"paused"`
	// NextID numbers the batch ids the processor assigns ("auto-<n>").
	NextID int64 `json:"nextId"`
	// NextCallback is the Seq of the processor's next callback.
	NextCallback int64     `json:"nextCallback"`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
}

// ProcessorCounts counts a processor's batches and callbacks.
type ProcessorCounts struct {
	// Queued by priority (PriorityHigh, PriorityMedium).
	Queued    map[string]int `json:"queued"`
	Executing int            `json:"executing"`
	// Pending batches wait for a callback confirmation.
	Pending int `json:"pending"`
	Done    int `json:"done"`
	// Callbacks by delivery state (CallbackPending, ...).
	Callbacks map[string]int `json:"callbacks"`
}

// ProcessorView is a processor with its counts (GET /v1/processors/{name}).
type ProcessorView struct {
	Processor Processor       `json:"processor"`
	Counts    ProcessorCounts `json:"counts"`
}

// Msg is one message of a batch: a contract call.
type Msg struct {
	Contract string          `json:"contract"`
	Method   string          `json:"method"`
	Args     json.RawMessage `json:"args,omitempty"`
}

// RetryTimes is how many times a failed unit is retried: Indefinitely,
// or Amount more times (Amount n gives n+1 attempts, as Valence counts).
// In JSON: "indefinitely" or {"amount": n}.
type RetryTimes struct {
	Indefinitely bool
	Amount       int
}

// MarshalJSON writes "indefinitely" or {"amount": n}.
func (t RetryTimes) MarshalJSON() ([]byte, error) {
	if t.Indefinitely {
		return []byte(`"indefinitely"`), nil
	}
	return []byte(`{"amount":` + strconv.Itoa(t.Amount) + `}`), nil
}

// UnmarshalJSON reads "indefinitely" or {"amount": n}.
func (t *RetryTimes) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte(`"indefinitely"`)) {
		*t = RetryTimes{Indefinitely: true}
		return nil
	}
	var a struct {
		Amount *int `json:"amount"`
	}
	if err := json.Unmarshal(b, &a); err != nil || a.Amount == nil {
		return errors.New(`times must be "indefinitely" or {"amount": n}`)
	}
	*t = RetryTimes{Amount: *a.Amount}
	return nil
}

// RetryInterval is how long a failed unit cools down before a tick may run
// it again: Blocks on the chain, or a Duration (Blocks wins when both are
// set). In JSON: {"blocks": b} or {"duration": "30s"}.
type RetryInterval struct {
	Blocks   uint64
	Duration time.Duration
}

// MarshalJSON writes {"blocks": b} or {"duration": "…"}.
func (iv RetryInterval) MarshalJSON() ([]byte, error) {
	if iv.Blocks > 0 {
		return []byte(`{"blocks":` + strconv.FormatUint(iv.Blocks, 10) + `}`), nil
	}
	return json.Marshal(map[string]string{"duration": iv.Duration.String()})
}

// UnmarshalJSON reads {"blocks": b} or {"duration": "30s"}.
func (iv *RetryInterval) UnmarshalJSON(b []byte) error {
	var a struct {
		Blocks   *uint64 `json:"blocks"`
		Duration *string `json:"duration"`
	}
	if err := json.Unmarshal(b, &a); err != nil || (a.Blocks == nil) == (a.Duration == nil) {
		return errors.New(`interval must be {"blocks": b} or {"duration": "30s"}`)
	}
	if a.Blocks != nil {
		*iv = RetryInterval{Blocks: *a.Blocks}
		return nil
	}
	d, err := time.ParseDuration(*a.Duration)
	if err != nil {
		return fmt.Errorf("interval: duration: %w", err)
	}
	*iv = RetryInterval{Duration: d}
	return nil
}

// RetryLogic is how a failed atomic batch or non-atomic action is retried.
// Without one, a unit gets one attempt.
type RetryLogic struct {
	Times    RetryTimes    `json:"times"`
	Interval RetryInterval `json:"interval"`
}

// CallbackConfirmation makes a non-atomic action wait, after its
// transaction succeeded, for a confirmation of its execution id: from the
// owner (Confirm) or a CallbackConfirmation event emitted by Contract.
type CallbackConfirmation struct {
	Contract string `json:"contract"`
}

// Action authorizes one message: the contract it may call (empty: the
// message's own) and, in a non-atomic batch only, its retry logic and
// callback confirmation.
type Action struct {
	Contract             string                `json:"contract,omitempty"`
	RetryLogic           *RetryLogic           `json:"retryLogic,omitempty"`
	CallbackConfirmation *CallbackConfirmation `json:"callbackConfirmation,omitempty"`
}

// AtomicConfig executes every message in one transaction, all or none,
// retried as a whole.
type AtomicConfig struct {
	Actions    []Action    `json:"actions"`
	RetryLogic *RetryLogic `json:"retryLogic,omitempty"`
}

// NonAtomicConfig executes one message per tick, each retried on its own.
type NonAtomicConfig struct {
	Actions []Action `json:"actions"`
}

// ActionsConfig is exactly one of Atomic and NonAtomic, with one action
// per message.
type ActionsConfig struct {
	Atomic    *AtomicConfig    `json:"atomic,omitempty"`
	NonAtomic *NonAtomicConfig `json:"nonAtomic,omitempty"`
}

// Expiration ends a batch still queued at a block Height or a Time
// (whichever comes first) with the outcome Expired.
type Expiration struct {
	Height uint64    `json:"height,omitempty"`
	Time   time.Time `json:"time,omitzero"`
}

// BatchSpec is a message batch as its owner adds it (AddBatch).
type BatchSpec struct {
	// ID is unique per processor for ever; empty asks the processor to
	// assign one ("auto-<n>").
	ID            string        `json:"id,omitempty"`
	Msgs          []Msg         `json:"msgs"`
	ActionsConfig ActionsConfig `json:"actionsConfig"`
	// Priority is PriorityHigh or PriorityMedium.
	Priority   string      `json:"priority"`
	Expiration *Expiration `json:"expiration,omitempty"`
	// Position, when set, inserts the batch at that index of its queue
	// (0 is the front) instead of at the back.
	Position *int `json:"position,omitempty"`
}

// AddResult is where an added batch went.
type AddResult struct {
	ID       string `json:"id"`
	Priority string `json:"priority"`
	Position int    `json:"position"`
}

// TickResult is what a tick did.
type TickResult struct {
	// Outcome is TickNoMessages, TickPaused, TickRotated, TickExpired or
	// TickStarted.
	Outcome  string `json:"outcome"`
	BatchID  string `json:"batchId,omitempty"`
	Priority string `json:"priority,omitempty"`
	// Action is the non-atomic action started.
	Action *int `json:"action,omitempty"`
	// ExecutionID is the execution started
	// (<processor>/<batch>/<unit>/<attempt>), the id a callback
	// confirmation names; Attempt its attempt number for its unit (1 is the
	// first).
	ExecutionID string `json:"executionId,omitempty"`
	Attempt     int    `json:"attempt,omitempty"`
}

// RemoveResult is the batch RemoveBatch took out (it ends RemovedByOwner).
type RemoveResult struct {
	ID       string `json:"id"`
	Priority string `json:"priority"`
	Position int    `json:"position"`
}

// ConfirmResult answers Confirm.
type ConfirmResult struct {
	ExecutionID string `json:"executionId"`
	BatchID     string `json:"batchId"`
	Success     bool   `json:"success"`
}

// BatchRecord is a batch as the node keeps it (QueueBatches, Batch).
type BatchRecord struct {
	Processor string `json:"processor"`
	ID        string `json:"id"`
	Priority  string `json:"priority"`
	// State is BatchQueued, BatchExecuting, BatchPending or BatchDone
	// (every batch QueueBatches returns is queued).
	State string `json:"state"`
	// Key orders a queue's batches: ascending Key is queue order.
	Key int64 `json:"key"`
	// Body is the batch and its retry state as the node keeps them: its
	// "spec" (the BatchSpec), "next" (a non-atomic batch's next action),
	// "tries" (failed attempts of the current unit), "lastError", the
	// execution in flight and, once ended, its "outcome".
	Body      json.RawMessage `json:"body"`
	CreatedAt time.Time       `json:"createdAt"`
	UpdatedAt time.Time       `json:"updatedAt"`
}

// BatchOutcome is a batch's end.
type BatchOutcome struct {
	// Status is StatusExecuted, StatusRejected, StatusPartiallyExecuted,
	// StatusExpired or StatusRemovedByOwner.
	Status string `json:"status"`
	// Executed is how many actions were executed
	// (PartiallyExecuted(n)).
	Executed int    `json:"executed"`
	Error    string `json:"error,omitempty"`
}

// CallbackBody is what a callback carries: the JSON body POSTed to the
// processor's callback URL (with the header Idempotency-Key: Key), and
// Callback.Body.
type CallbackBody struct {
	Processor string       `json:"processor"`
	BatchID   string       `json:"batchId"`
	Key       string       `json:"key"`
	Outcome   BatchOutcome `json:"outcome"`
	// Executions counts the executions the batch started (every attempt
	// of every unit); LastExecution is the id of the last one.
	Executions    int       `json:"executions"`
	LastExecution string    `json:"lastExecution,omitempty"`
	At            time.Time `json:"at"`
}

// Callback is one batch outcome and the state of its delivery.
type Callback struct {
	Processor string `json:"processor"`
	// Seq numbers a processor's callbacks from 1, in the order of outcomes.
	Seq     int64  `json:"seq"`
	BatchID string `json:"batchId"`
	// Key is the Idempotency-Key the receiver sees, <processor>/<batch>:
	// one per batch outcome.
	Key string `json:"key"`
	// Body is the outcome as delivered (see Outcome).
	Body json.RawMessage `json:"body"`
	// State is CallbackPending, CallbackDelivered or CallbackStored.
	State       string    `json:"state"`
	Attempts    int       `json:"attempts"`
	NextAt      time.Time `json:"nextAt,omitzero"`
	LastError   string    `json:"lastError,omitempty"`
	DeliveredAt time.Time `json:"deliveredAt,omitzero"`
	CreatedAt   time.Time `json:"createdAt"`
}

// Outcome decodes the callback's Body.
func (cb Callback) Outcome() (CallbackBody, error) {
	var b CallbackBody
	if err := json.Unmarshal(cb.Body, &b); err != nil {
		return CallbackBody{}, fmt.Errorf("ordo client: callback %d of %q: %w", cb.Seq, cb.Processor, err)
	}
	return b, nil
}

// procPath is the path of a processor's route: /v1/processors/{name}
// followed by the escaped segments.
func procPath(name string, segs ...string) string {
	p := "/v1/processors/" + url.PathEscape(name)
	for _, s := range segs {
		p += "/" + url.PathEscape(s)
	}
	return p
}

// CreateProcessor creates a processor (the caller must be an admin) and
// returns it as the node committed it.
func (c *Client) CreateProcessor(ctx context.Context, s ProcessorSpec) (Processor, error) {
	var p Processor
	if _, err := c.do(ctx, http.MethodPost, "/v1/processors", s, &p); err != nil {
		return Processor{}, err
	}
	return p, nil
}

// Processor returns a processor with its counts of batches and callbacks.
func (c *Client) Processor(ctx context.Context, name string) (ProcessorView, error) {
	var v ProcessorView
	if _, err := c.do(ctx, http.MethodGet, procPath(name), nil, &v); err != nil {
		return ProcessorView{}, err
	}
	return v, nil
}

// AddBatch queues a batch (the caller must be the processor's owner or an
// admin). A malformed batch is an *APIError CodeInvalid naming the field;
// nothing is queued.
func (c *Client) AddBatch(ctx context.Context, processor string, b BatchSpec) (AddResult, error) {
	var r AddResult
	if _, err := c.do(ctx, http.MethodPost, procPath(processor, "batches"), b, &r); err != nil {
		return AddResult{}, err
	}
	return r, nil
}

// Tick runs one tick of the processor and returns what it did. An
// execution it starts lands blocks later: its outcome arrives by callback.
func (c *Client) Tick(ctx context.Context, processor string) (TickResult, error) {
	var r TickResult
	if _, err := c.do(ctx, http.MethodPost, procPath(processor, "tick"), struct{}{}, &r); err != nil {
		return TickResult{}, err
	}
	return r, nil
}

// Pause pauses the processor: its ticks answer TickPaused until Resume.
func (c *Client) Pause(ctx context.Context, processor string) error {
	_, err := c.do(ctx, http.MethodPost, procPath(processor, "pause"), struct{}{}, nil)
	return err
}

// Resume resumes a paused processor.
func (c *Client) Resume(ctx context.Context, processor string) error {
	_, err := c.do(ctx, http.MethodPost, procPath(processor, "resume"), struct{}{}, nil)
	return err
}

// RemoveBatch removes the batch at position (0 is the front) of the
// priority's queue; it ends RemovedByOwner, with a callback. (The DELETE
// carries the body {}: the node takes mutating requests only as JSON.)
func (c *Client) RemoveBatch(ctx context.Context, processor, priority string, position int) (RemoveResult, error) {
	var r RemoveResult
	if _, err := c.do(ctx, http.MethodDelete, procPath(processor, "queues", priority, strconv.Itoa(position)), struct{}{}, &r); err != nil {
		return RemoveResult{}, err
	}
	return r, nil
}

// Batch returns one of the processor's batches, in any state.
func (c *Client) Batch(ctx context.Context, processor, id string) (BatchRecord, error) {
	var b BatchRecord
	if _, err := c.do(ctx, http.MethodGet, procPath(processor, "batches", id), nil, &b); err != nil {
		return BatchRecord{}, err
	}
	return b, nil
}

// QueueBatches returns up to limit (1-1000; 0 means the node's default,
// 100) queued batches of the priority's queue in queue order, skipping the
// first offset.
func (c *Client) QueueBatches(ctx context.Context, processor, priority string, offset, limit int) ([]BatchRecord, error) {
	q := url.Values{}
	if offset != 0 {
		q.Set("offset", strconv.Itoa(offset))
	}
	if limit != 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	path := procPath(processor, "queues", priority)
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var out struct {
		Batches []BatchRecord `json:"batches"`
	}
	if _, err := c.do(ctx, http.MethodGet, path, nil, &out); err != nil {
		return nil, err
	}
	return out.Batches, nil
}

// Callbacks returns up to limit (1-1000; 0 means the node's default, 100)
// of the processor's callbacks with Seq above after, in Seq order, and the
// after of the following page (after itself when the page is empty).
func (c *Client) Callbacks(ctx context.Context, processor string, after int64, limit int) ([]Callback, int64, error) {
	q := url.Values{}
	if after != 0 {
		q.Set("after", strconv.FormatInt(after, 10))
	}
	if limit != 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	path := procPath(processor, "callbacks")
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var out struct {
		Callbacks []Callback `json:"callbacks"`
		Next      int64      `json:"next"`
	}
	if _, err := c.do(ctx, http.MethodGet, path, nil, &out); err != nil {
		return nil, 0, err
	}
	return out.Callbacks, out.Next, nil
}

// Confirm delivers the callback confirmation of an execution waiting for
// one (TickResult.ExecutionID); a failure counts as a failed attempt of
// its action.
func (c *Client) Confirm(ctx context.Context, processor, executionID string, success bool) (ConfirmResult, error) {
	body := struct {
		ExecutionID string `json:"executionId"`
		Success     bool   `json:"success"`
	}{executionID, success}
	var r ConfirmResult
	if _, err := c.do(ctx, http.MethodPost, procPath(processor, "confirmations"), body, &r); err != nil {
		return ConfirmResult{}, err
	}
	return r, nil
}
