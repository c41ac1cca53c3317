package jobq

import (
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

//go:generate go tool stringer -type=InputKind,Outcome,Code -output=core_state_string.go

// InputKind names an input to the core.
type InputKind uint8

// The inputs Step takes. Each says which of Input's fields it sets.
const (
	// InputTick: the clock moved (At only).
	InputTick InputKind = iota + 1
	// InputInsert: a caller inserts Job (ID chosen by the driver; Queue,
	// Kind, Args, UniqueKey, MaxAttempts, RunAt: zero for now). Req.
	InputInsert
	// InputWorked: the run of job ID as Attempt ended with Outcome (Err for
	// OutcomeFailed and OutcomeCancel, Snooze for OutcomeSnooze).
	InputWorked
	// InputCancel: a caller cancels job ID, which must be waiting. Req.
	InputCancel
)

// Outcome is how a job's run ended.
type Outcome uint8

// Run outcomes (the Worker's results).
const (
	// OutcomeDone: the worker finished the job: completed.
	OutcomeDone Outcome = iota + 1
	// OutcomeFailed: the worker failed (Err): retryable after a backoff, or
	// dead once MaxAttempts runs failed.
	OutcomeFailed
	// OutcomeSnooze: run it again after Snooze, without counting the
	// attempt.
	OutcomeSnooze
	// OutcomeCancel: the worker ended it for good (Err): cancelled.
	OutcomeCancel
)

// Input is one input to Step: plain data, so a trace can record it.
type Input struct {
	Kind InputKind `json:"kind"`
	// At is the driver's clock when it stepped the input; the core's clock
	// never moves back.
	At      time.Time     `json:"at"`
	Req     uint64        `json:"req,omitempty"`
	Job     store.Job     `json:"job,omitzero"`
	ID      int64         `json:"id,omitempty"`
	Attempt int           `json:"attempt,omitempty"`
	Outcome Outcome       `json:"outcome,omitempty"`
	Err     string        `json:"err,omitempty"`
	Snooze  time.Duration `json:"snooze,omitempty"`
}

// Tick is an InputTick at at.
func Tick(at time.Time) Input { return Input{Kind: InputTick, At: at} }

// Insert is an InputInsert of j.
func Insert(j store.Job) Input { return Input{Kind: InputInsert, Job: j} }

// Worked is an InputWorked: run attempt of job id ended with o (err for a
// failure or a cancel, snooze for a snooze).
func Worked(id int64, attempt int, o Outcome, err string, snooze time.Duration) Input {
	return Input{Kind: InputWorked, ID: id, Attempt: attempt, Outcome: o, Err: err, Snooze: snooze}
}

// CancelJob is an InputCancel of job id.
func CancelJob(id int64) Input { return Input{Kind: InputCancel, ID: id} }

// Code says why the core refused an input.
type Code uint8

// Refusal codes.
const (
	// CodeNone: not refused.
	CodeNone Code = iota
	// CodeUnknownQueue: no queue has the insert's name (ErrUnknownQueue).
	CodeUnknownQueue
	// CodeQueueFull: the queue's waiting jobs are at its cap
	// (ErrQueueFull).
	CodeQueueFull
	// CodeInvalid: an insert without a positive ID or a kind, or with a
	// negative MaxAttempts (ErrInvalid).
	CodeInvalid
	// CodeNotLive: no live job has the cancel's ID (ErrNotLive).
	CodeNotLive
	// CodeRunning: the job to cancel is running (ErrRunning).
	CodeRunning
)

// Reply answers the input whose Req it names: the job (as inserted or
// found, or as cancelled) and Created for an insert that added it, or Code.
type Reply struct {
	Req     uint64    `json:"req"`
	Code    Code      `json:"code,omitempty"`
	Job     store.Job `json:"job,omitzero"`
	Created bool      `json:"created,omitempty"`
}
