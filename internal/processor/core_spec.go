package processor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Priority is the queue a batch waits in (seed 002, "two execution queues").
type Priority string

// The two priorities. High is drained before Medium.
const (
	High   Priority = "high"
	Medium Priority = "medium"
)

// index is the priority's queue index: High 0, Medium 1.
func (p Priority) index() int {
	if p == High {
		return 0
	}
	return 1
}

// Valid reports whether p is High or Medium.
func (p Priority) Valid() bool { return p == High || p == Medium }

// Msg is one message of a batch: a contract call (the seed's
// ProcessorMessage).
type Msg struct {
	Contract string          `json:"contract"`
	Method   string          `json:"method"`
	Args     json.RawMessage `json:"args,omitempty"`
}

// RetryTimes is how many times a failed unit is retried: Indefinitely, or
// Amount more times (Amount n gives n+1 attempts, as Valence counts). In
// JSON: "indefinitely" or {"amount": n}.
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
		Amount *int `json:"amount,omitempty"`
	}
	if err := strictUnmarshal(b, &a); err != nil || a.Amount == nil {
		return errors.New(`times must be "indefinitely" or {"amount": n}`)
	}
	*t = RetryTimes{Amount: *a.Amount}
	return nil
}

// RetryInterval is how long a failed unit cools down before a tick may run
// it again: Blocks on the chain, or a Duration. In JSON: {"blocks": b} or
// {"duration": "30s"}.
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
		Blocks   *uint64 `json:"blocks,omitempty"`
		Duration *string `json:"duration,omitempty"`
	}
	if err := strictUnmarshal(b, &a); err != nil || (a.Blocks == nil) == (a.Duration == nil) {
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
type RetryLogic struct {
	Times    RetryTimes    `json:"times"`
	Interval RetryInterval `json:"interval"`
}

// attempts is how many attempts rl allows; 0 means no bound. A nil
// RetryLogic allows one.
func (rl *RetryLogic) attempts() int {
	switch {
	case rl == nil:
		return 1
	case rl.Times.Indefinitely:
		return 0
	}
	return rl.Times.Amount + 1
}

// CallbackConfirmation makes a non-atomic action wait, after its
// transaction succeeded, for a confirmation of its execution id: from the
// owner (POST …/confirmations) or a CallbackConfirmation event emitted by
// Contract.
type CallbackConfirmation struct {
	Contract string `json:"contract"`
}

// Action is the authorization of one message: which contract it may call
// (empty: the message's own) and, in a non-atomic batch, its retry logic and
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

// ActionsConfig is exactly one of Atomic and NonAtomic.
type ActionsConfig struct {
	Atomic    *AtomicConfig    `json:"atomic,omitempty"`
	NonAtomic *NonAtomicConfig `json:"nonAtomic,omitempty"`
}

// Expiration ends a batch that is still queued at a block Height or a Time
// (whichever is set; both: the first reached) with the outcome Expired.
type Expiration struct {
	Height uint64    `json:"height,omitempty"`
	Time   time.Time `json:"time,omitzero"`
}

// BatchSpec is a MessageBatch as its owner submits it.
type BatchSpec struct {
	// ID is unique per processor for ever; empty asks the processor to
	// assign one ("auto-<n>").
	ID            string        `json:"id,omitempty"`
	Msgs          []Msg         `json:"msgs"`
	ActionsConfig ActionsConfig `json:"actionsConfig"`
	Priority      Priority      `json:"priority"`
	Expiration    *Expiration   `json:"expiration,omitempty"`
	// Position, when set, inserts the batch at that index of its queue (0
	// is the front) instead of at the back.
	Position *int `json:"position,omitempty"`
}

// Status is a batch outcome's status (seed 002, plus Expired and
// RemovedByOwner; see the seeds' README).
type Status string

// Batch outcomes.
const (
	Executed          Status = "Executed"
	Rejected          Status = "Rejected"
	PartiallyExecuted Status = "PartiallyExecuted"
	Expired           Status = "Expired"
	RemovedByOwner    Status = "RemovedByOwner"
)

// Outcome is a batch's end: its Status and, for non-atomic batches, how
// many actions were executed.
type Outcome struct {
	Status Status `json:"status"`
	// Executed is the number of actions executed (PartiallyExecuted(n)).
	Executed int    `json:"executed"`
	Error    string `json:"error,omitempty"`
}

// CallbackBody is what a callback carries to the owner: the outcome and
// the execution information (how many executions the batch started, and
// the last one's id: its sequencer idempotency key).
type CallbackBody struct {
	Processor     string    `json:"processor"`
	BatchID       string    `json:"batchId"`
	Key           string    `json:"key"`
	Outcome       Outcome   `json:"outcome"`
	Executions    int       `json:"executions"`
	LastExecution string    `json:"lastExecution,omitempty"`
	At            time.Time `json:"at"`
}

// strictUnmarshal decodes one JSON object into v, a pointer to a struct of
// pointer fields, refusing keys that are not exactly a field's JSON name
// (encoding/json would take case variants) and keys given twice.
func strictUnmarshal(b []byte, v any) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil || m == nil {
		return errors.New("not an object")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		return err
	}
	seen := map[string]bool{}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := k.(string)
		if seen[key] {
			return fmt.Errorf("duplicate field %q", key)
		}
		seen[key] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return err
		}
	}
	dec2 := json.NewDecoder(bytes.NewReader(b))
	dec2.DisallowUnknownFields()
	if err := dec2.Decode(v); err != nil {
		return err
	}
	out, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var back map[string]json.RawMessage
	if err := json.Unmarshal(out, &back); err != nil {
		return err
	}
	for k := range m {
		if _, ok := back[k]; !ok {
			return fmt.Errorf("unknown field %q", k)
		}
	}
	return nil
}
