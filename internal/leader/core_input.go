package leader

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

// InputKind names an input to the core.
type InputKind uint8

// The inputs Step takes. Each says which of Input's fields it sets.
const (
	// InputTime: the clock moved; Rand is the driver's random number for
	// the retrier's pick.
	InputTime InputKind = iota + 1
	// InputEvents: the listener read up to Cursor; Requests are the
	// RequestWalkExecution events among them (Known: the store already
	// indexed the walk).
	InputEvents
	// InputExecuted: the execution of event ID (its Attempt) ended:
	// Outcome, with Output or Err.
	InputExecuted
	// InputReported: the sequencer holds event ID's result transaction as
	// record UID in State (Err: the record's error when FAILED), or refused
	// it: Err, Permanent.
	InputReported
	// InputFinished: the sequencer record UID ended DONE (Success) or
	// FAILED (Err).
	InputFinished
	// InputChecked: after an already_reported failure, the walk's recorded
	// result is Ours or not.
	InputChecked
	// InputRetry: an admin puts Dead record Record back to Queued. Req.
	InputRetry
)

// String returns the kind's name.
func (k InputKind) String() string {
	names := [...]string{"", "time", "events", "executed", "reported", "finished", "checked", "retry"}
	if k != 0 && int(k) < len(names) {
		return names[k]
	}
	return fmt.Sprintf("InputKind(%d)", k)
}

// Outcome is how an execution ended.
type Outcome string

// Execution outcomes (seed 001: Successful, Failed.Retriable, Failed.Fatal;
// and Gone, a request no longer on chain).
const (
	OutcomeOK        Outcome = "ok"
	OutcomeRetriable Outcome = "retriable"
	OutcomeFatal     Outcome = "fatal"
	OutcomeGone      Outcome = "gone"
)

// Request is a RequestWalkExecution event as the listener read it.
type Request struct {
	ID     int64           `json:"id"`
	Walk   string          `json:"walk"`
	Tool   string          `json:"tool"`
	Digest string          `json:"digest"`
	Height uint64          `json:"height"`
	JSON   json.RawMessage `json:"json"`
	Known  bool            `json:"known,omitempty"`
}

// Input is one input to the core: plain data, so a run replays.
type Input struct {
	Kind      InputKind       `json:"kind"`
	At        time.Time       `json:"at"`
	Req       uint64          `json:"req,omitempty"`
	Rand      uint64          `json:"rand,omitempty"`
	Cursor    uint64          `json:"cursor,omitempty"`
	Requests  []Request       `json:"requests,omitempty"`
	ID        int64           `json:"id,omitempty"`
	Attempt   int             `json:"attempt,omitempty"`
	Outcome   Outcome         `json:"outcome,omitempty"`
	Output    json.RawMessage `json:"output,omitempty"`
	Err       string          `json:"err,omitempty"`
	UID       string          `json:"uid,omitempty"`
	State     store.TxState   `json:"state,omitempty"`
	Permanent bool            `json:"permanent,omitempty"`
	Success   bool            `json:"success,omitempty"`
	Ours      bool            `json:"ours,omitempty"`
	// Recorded, with Ours, says what our recorded result is: "ok",
	// "failed", or "" when the driver did not say (then the record's own
	// OK is taken).
	Recorded string `json:"recorded,omitempty"`
	// Key, on InputReported, is the idempotency key the answer is for; an
	// answer for another key than the record's current one is stale.
	Key    string             `json:"key,omitempty"`
	Record *store.LeaderEvent `json:"record,omitempty"`
}

// Time is InputTime.
func Time(at time.Time, rand uint64) Input { return Input{Kind: InputTime, At: at, Rand: rand} }

// Events is InputEvents.
func Events(at time.Time, cursor uint64, reqs []Request) Input {
	return Input{Kind: InputEvents, At: at, Cursor: cursor, Requests: reqs}
}

// Executed is InputExecuted.
func Executed(at time.Time, id int64, attempt int, o Outcome, output json.RawMessage, err string) Input {
	return Input{Kind: InputExecuted, At: at, ID: id, Attempt: attempt, Outcome: o, Output: output, Err: err}
}

// Reported is InputReported for a record the sequencer holds.
func Reported(at time.Time, id int64, uid string, state store.TxState, recErr string) Input {
	return Input{Kind: InputReported, At: at, ID: id, UID: uid, State: state, Err: recErr}
}

// ReportFailed is InputReported for a result the sequencer refused.
func ReportFailed(at time.Time, id int64, err string, permanent bool) Input {
	return Input{Kind: InputReported, At: at, ID: id, Err: err, Permanent: permanent}
}

// Finished is InputFinished.
func Finished(at time.Time, uid string, success bool, err string) Input {
	return Input{Kind: InputFinished, At: at, UID: uid, Success: success, Err: err}
}

// Checked is InputChecked.
func Checked(at time.Time, id int64, ours bool) Input {
	return Input{Kind: InputChecked, At: at, ID: id, Ours: ours}
}

// Retry is InputRetry.
func Retry(at time.Time, req uint64, rec store.LeaderEvent) Input {
	return Input{Kind: InputRetry, At: at, Req: req, ID: rec.ID, Record: &rec}
}
