package processor

import (
	"fmt"
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

// InputKind names an input to the core.
type InputKind uint8

// The inputs Step takes. Each says which of Input's fields it sets. Kinds
// that answer a caller carry Req (non-zero), and Ready holds the answer.
const (
	// InputTime: the clock moved (auto-ticks, callback retries, checks). At only.
	InputTime InputKind = iota + 1
	// InputCreate: an admin creates Create. Req.
	InputCreate
	// InputAdd: Caller adds Batch to Processor; Used says the store already
	// has a batch with the given id. Req.
	InputAdd
	// InputTick: someone ticks Processor (the seed's permissionless tick). Req.
	InputTick
	// InputPause and InputResume: Caller pauses or resumes Processor. Req.
	InputPause
	InputResume
	// InputRemove: Caller removes the batch at Position of Priority's queue. Req.
	InputRemove
	// InputConfirm: Caller confirms execution Exec with Success. Req.
	InputConfirm
	// InputEvents: the chain-event listener read up to Cursor; Confirms are
	// the callback confirmations those events carried.
	InputEvents
	// InputSubmitted: the sequencer holds execution Exec as record UID in
	// State (with Err, the record's error, when FAILED), or refused it: Err
	// with Permanent (the intent can never be accepted) or not (try again).
	InputSubmitted
	// InputFinished: the sequencer record UID ended DONE (Success) or FAILED
	// (Err).
	InputFinished
	// InputHead: the chain's head is at Height.
	InputHead
	// InputDelivered: the delivery of callback Seq of Processor succeeded
	// (Success) or failed with Err.
	InputDelivered
)

// String returns the input kind's name.
func (k InputKind) String() string {
	names := [...]string{"", "time", "create", "add", "tick", "pause", "resume", "remove", "confirm", "events",
		"submitted", "finished", "head", "delivered"}
	if int(k) < len(names) && k != 0 {
		return names[k]
	}
	return fmt.Sprintf("InputKind(%d)", k)
}

// Confirm is a callback confirmation carried by a chain event: its emitting
// contract, the execution id and the result.
type Confirm struct {
	Contract string `json:"contract"`
	Exec     string `json:"exec"`
	Success  bool   `json:"success"`
}

// Input is one input to the core: plain data, so a run can be recorded and
// replayed.
type Input struct {
	Kind InputKind `json:"kind"`
	// At is the time of the step; the core's clock never moves back.
	At     time.Time `json:"at"`
	Req    uint64    `json:"req,omitempty"`
	Caller string    `json:"caller,omitempty"`
	// Admin says the caller is an admin, who may act as any owner.
	Admin     bool        `json:"admin,omitempty"`
	Processor string      `json:"processor,omitempty"`
	Create    *CreateSpec `json:"create,omitempty"`
	Batch     *BatchSpec  `json:"batch,omitempty"`
	Used      bool        `json:"used,omitempty"`
	Priority  Priority    `json:"priority,omitempty"`
	Position  int         `json:"position,omitempty"`
	Exec      string      `json:"exec,omitempty"`
	UID       string      `json:"uid,omitempty"`
	State     string      `json:"state,omitempty"`
	Success   bool        `json:"success,omitempty"`
	Err       string      `json:"err,omitempty"`
	Permanent bool        `json:"permanent,omitempty"`
	Cursor    uint64      `json:"cursor,omitempty"`
	Confirms  []Confirm   `json:"confirms,omitempty"`
	Height    uint64      `json:"height,omitempty"`
	Seq       int64       `json:"seq,omitempty"`
}

// Time is InputTime.
func Time(at time.Time) Input { return Input{Kind: InputTime, At: at} }

// Create is InputCreate.
func Create(at time.Time, req uint64, caller string, s CreateSpec) Input {
	return Input{Kind: InputCreate, At: at, Req: req, Caller: caller, Create: &s}
}

// Add is InputAdd.
func Add(at time.Time, req uint64, caller, processor string, b BatchSpec, used bool) Input {
	return Input{Kind: InputAdd, At: at, Req: req, Caller: caller, Processor: processor, Batch: &b, Used: used}
}

// Tick is InputTick.
func Tick(at time.Time, req uint64, processor string) Input {
	return Input{Kind: InputTick, At: at, Req: req, Processor: processor}
}

// Pause is InputPause (resume false) or InputResume (resume true).
func Pause(at time.Time, req uint64, caller, processor string, resume bool) Input {
	k := InputPause
	if resume {
		k = InputResume
	}
	return Input{Kind: k, At: at, Req: req, Caller: caller, Processor: processor}
}

// Remove is InputRemove.
func Remove(at time.Time, req uint64, caller, processor string, p Priority, position int) Input {
	return Input{Kind: InputRemove, At: at, Req: req, Caller: caller, Processor: processor, Priority: p, Position: position}
}

// ConfirmBy is InputConfirm.
func ConfirmBy(at time.Time, req uint64, caller, processor, exec string, success bool) Input {
	return Input{Kind: InputConfirm, At: at, Req: req, Caller: caller, Processor: processor, Exec: exec, Success: success}
}

// Events is InputEvents.
func Events(at time.Time, cursor uint64, confirms []Confirm) Input {
	return Input{Kind: InputEvents, At: at, Cursor: cursor, Confirms: confirms}
}

// Submitted is InputSubmitted for a record the sequencer holds.
func Submitted(at time.Time, exec, uid string, state store.TxState, recErr string) Input {
	return Input{Kind: InputSubmitted, At: at, Exec: exec, UID: uid, State: string(state), Err: recErr}
}

// SubmitFailed is InputSubmitted for an intent the sequencer refused.
func SubmitFailed(at time.Time, exec, err string, permanent bool) Input {
	return Input{Kind: InputSubmitted, At: at, Exec: exec, Err: err, Permanent: permanent}
}

// Finished is InputFinished.
func Finished(at time.Time, uid string, success bool, err string) Input {
	return Input{Kind: InputFinished, At: at, UID: uid, Success: success, Err: err}
}

// Head is InputHead.
func Head(at time.Time, height uint64) Input { return Input{Kind: InputHead, At: at, Height: height} }

// Delivered is InputDelivered.
func Delivered(at time.Time, processor string, seq int64, ok bool, err string) Input {
	return Input{Kind: InputDelivered, At: at, Processor: processor, Seq: seq, Success: ok, Err: err}
}
