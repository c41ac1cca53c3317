package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/ordolabs/ordo/apitypes"
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
	w := apitypes.CreateSpec{Name: s.Name, Owner: s.Owner, CallbackURL: s.CallbackURL, Lanes: s.Lanes}
	if s.AutoTick != 0 {
		w.AutoTick = s.AutoTick.String()
	}
	return json.Marshal(w)
}

// The wire types of the processors' routes: the node's own (package
// apitypes).
type (
	// Processor is a processor as the node keeps it.
	Processor = apitypes.Processor
	// ProcessorCounts are a processor's batches by state and its
	// callbacks by state.
	ProcessorCounts = apitypes.ProcCounts
	// ProcessorView is a processor and its counts.
	ProcessorView = apitypes.ProcessorView
	// Msg is one contract call of a batch.
	Msg = apitypes.Msg
	// RetryTimes is how many times a unit is retried: "indefinitely" or
	// {"amount": n} on the wire.
	RetryTimes = apitypes.RetryTimes
	// RetryInterval is the wait between retries: {"blocks": b} or
	// {"duration": "30s"} on the wire.
	RetryInterval = apitypes.RetryInterval
	// RetryLogic is how often and how far apart a unit is retried.
	RetryLogic = apitypes.RetryLogic
	// CallbackConfirmation names the contract whose confirmation an
	// action waits for (Confirm).
	CallbackConfirmation = apitypes.CallbackConfirmation
	// Action is one action of a batch.
	Action = apitypes.Action
	// AtomicConfig runs a batch's actions all or none.
	AtomicConfig = apitypes.AtomicConfig
	// NonAtomicConfig runs a batch's actions one by one.
	NonAtomicConfig = apitypes.NonAtomicConfig
	// ActionsConfig is a batch's atomic or non-atomic actions.
	ActionsConfig = apitypes.ActionsConfig
	// Expiration is when a batch expires: a height, a time, or both.
	Expiration = apitypes.Expiration
	// BatchSpec is a batch as AddBatch sends it.
	BatchSpec = apitypes.BatchSpec
	// Priority is a processor queue's priority (PriorityHigh,
	// PriorityMedium).
	Priority = apitypes.Priority
	// AddResult is where an added batch went.
	AddResult = apitypes.AddResult
	// TickResult is what a tick did.
	TickResult = apitypes.TickResult
	// RemoveResult is the batch RemoveBatch took out (it ends
	// RemovedByOwner).
	RemoveResult = apitypes.RemoveResult
	// ConfirmResult answers Confirm.
	ConfirmResult = apitypes.ConfirmResult
	// BatchRecord is a batch as the node keeps it (QueueBatches, Batch).
	BatchRecord = apitypes.ProcBatch
	// BatchOutcome is a batch's end.
	BatchOutcome = apitypes.Outcome
	// CallbackBody is what a callback carries: the JSON body POSTed to
	// the processor's callback URL (with the header Idempotency-Key: Key),
	// and Callback.Body.
	CallbackBody = apitypes.CallbackBody
	// Callback is one batch outcome and the state of its delivery.
	Callback = apitypes.Callback
)

// CallbackOutcome decodes a callback's Body.
func CallbackOutcome(cb Callback) (CallbackBody, error) {
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
	var out apitypes.BatchesPage
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
	var out apitypes.CallbacksPage
	if _, err := c.do(ctx, http.MethodGet, path, nil, &out); err != nil {
		return nil, 0, err
	}
	return out.Callbacks, out.Next, nil
}

// Confirm delivers the callback confirmation of an execution waiting for
// one (TickResult.Exec); a failure counts as a failed attempt of
// its action.
func (c *Client) Confirm(ctx context.Context, processor, executionID string, success bool) (ConfirmResult, error) {
	body := apitypes.ConfirmRequest{ExecutionID: executionID, Success: &success}
	var r ConfirmResult
	if _, err := c.do(ctx, http.MethodPost, procPath(processor, "confirmations"), body, &r); err != nil {
		return ConfirmResult{}, err
	}
	return r, nil
}
