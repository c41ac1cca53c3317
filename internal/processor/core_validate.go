package processor

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
)

// FieldError is a refused batch or processor: the JSON path of the field
// at fault and why.
type FieldError struct {
	Field  string
	Reason string
}

// Error returns "field: reason".
func (e *FieldError) Error() string { return e.Field + ": " + e.Reason }

func fieldErr(field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// Limits of a batch.
const (
	// MaxMsgs is the most messages in a batch.
	MaxMsgs = 64
	// MaxIDLen is the longest batch id or processor name.
	MaxIDLen = 64
	// MaxArgsBytes bounds one message's args.
	MaxArgsBytes = 8 << 10
	// MaxAmount bounds RetryTimes.Amount.
	MaxAmount = 1_000_000
	// MaxInterval bounds a retry interval's duration.
	MaxInterval = 30 * 24 * time.Hour
	// MaxIntervalBlocks bounds a retry interval in blocks.
	MaxIntervalBlocks = 1_000_000
	// AutoIDPrefix starts the ids a processor assigns; given ids may not.
	AutoIDPrefix = "auto-"
)

// validID reports whether s is 1-64 of [A-Za-z0-9._:-].
func validID(s string) bool {
	if len(s) == 0 || len(s) > MaxIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._:-", c) >= 0
		if !ok {
			return false
		}
	}
	return true
}

// Validate checks a batch as submitted, naming the first field at fault.
func (s *BatchSpec) Validate() *FieldError {
	if s.ID != "" {
		if !validID(s.ID) {
			return fieldErr("id", "must be 1-%d characters of [A-Za-z0-9._:-]", MaxIDLen)
		}
		if strings.HasPrefix(s.ID, AutoIDPrefix) {
			return fieldErr("id", "must not start with %q (the processor's own ids)", AutoIDPrefix)
		}
	}
	if !s.Priority.Valid() {
		return fieldErr("priority", `must be "high" or "medium"`)
	}
	if len(s.Msgs) == 0 || len(s.Msgs) > MaxMsgs {
		return fieldErr("msgs", "must hold 1 to %d messages, got %d", MaxMsgs, len(s.Msgs))
	}
	for i, m := range s.Msgs {
		if err := m.validate(fmt.Sprintf("msgs[%d]", i)); err != nil {
			return err
		}
	}
	if s.Position != nil && *s.Position < 0 {
		return fieldErr("position", "must not be negative")
	}
	if e := s.Expiration; e != nil && e.Height == 0 && e.Time.IsZero() {
		return fieldErr("expiration", "needs a height or a time")
	}
	return s.ActionsConfig.validate(s.Msgs)
}

func (m Msg) validate(field string) *FieldError {
	if !chain.ValidName(m.Contract) {
		return fieldErr(field+".contract", "must be 1-%d characters of [a-z0-9_-]", MaxIDLen)
	}
	if !chain.ValidName(m.Method) {
		return fieldErr(field+".method", "must be 1-%d characters of [a-z0-9_-]", MaxIDLen)
	}
	if len(m.Args) > MaxArgsBytes {
		return fieldErr(field+".args", "is %d bytes, the limit is %d", len(m.Args), MaxArgsBytes)
	}
	if len(m.Args) > 0 && !json.Valid(m.Args) {
		return fieldErr(field+".args", "is not valid JSON")
	}
	return nil
}

func (ac ActionsConfig) validate(msgs []Msg) *FieldError {
	if (ac.Atomic == nil) == (ac.NonAtomic == nil) {
		return fieldErr("actionsConfig", "must be exactly one of atomic and nonAtomic")
	}
	if a := ac.Atomic; a != nil {
		if err := validActions("actionsConfig.atomic.actions", a.Actions, msgs, false); err != nil {
			return err
		}
		return a.RetryLogic.validate("actionsConfig.atomic.retryLogic")
	}
	return validActions("actionsConfig.nonAtomic.actions", ac.NonAtomic.Actions, msgs, true)
}

func validActions(field string, acts []Action, msgs []Msg, nonAtomic bool) *FieldError {
	if len(acts) != len(msgs) {
		return fieldErr(field, "must hold one action per message: %d actions for %d messages", len(acts), len(msgs))
	}
	for i, a := range acts {
		f := fmt.Sprintf("%s[%d]", field, i)
		if a.Contract != "" && a.Contract != msgs[i].Contract {
			return fieldErr(f+".contract", "authorizes %q but msgs[%d] calls %q", a.Contract, i, msgs[i].Contract)
		}
		if !nonAtomic && (a.RetryLogic != nil || a.CallbackConfirmation != nil) {
			return fieldErr(f, "an atomic batch's actions take no retryLogic or callbackConfirmation (the batch's retryLogic applies)")
		}
		if err := a.RetryLogic.validate(f + ".retryLogic"); err != nil {
			return err
		}
		if cc := a.CallbackConfirmation; cc != nil && !chain.ValidName(cc.Contract) {
			return fieldErr(f+".callbackConfirmation.contract", "must be 1-%d characters of [a-z0-9_-]", MaxIDLen)
		}
	}
	return nil
}

func (rl *RetryLogic) validate(field string) *FieldError {
	if rl == nil {
		return nil
	}
	if !rl.Times.Indefinitely && (rl.Times.Amount < 0 || rl.Times.Amount > MaxAmount) {
		return fieldErr(field+".times.amount", "must be from 0 to %d", MaxAmount)
	}
	iv := rl.Interval
	if iv.Duration < 0 || iv.Duration > MaxInterval {
		return fieldErr(field+".interval.duration", "must be from 0 to %s", MaxInterval)
	}
	if iv.Blocks > MaxIntervalBlocks {
		return fieldErr(field+".interval.blocks", "must be at most %d", MaxIntervalBlocks)
	}
	return nil
}

// CreateSpec is a new processor as an admin creates it.
type CreateSpec struct {
	Name  string `json:"name"`
	Owner string `json:"owner"`
	// CallbackURL is where outcomes are POSTed; empty keeps them in the
	// store (GET …/callbacks).
	CallbackURL string `json:"callbackURL,omitempty"`
	// AutoTick, a duration ("1s"), turns the auto-ticker on.
	AutoTick string `json:"autoTick,omitempty"`
	// Lanes spreads executions over this many sequencer queues. Defaults
	// to 1: executions land in the order ticks started them.
	Lanes int `json:"lanes,omitempty"`
}

// MaxLanes bounds CreateSpec.Lanes.
const MaxLanes = 256

// MinAutoTick is the shortest auto-tick period.
const MinAutoTick = 10 * time.Millisecond

// Validate checks a new processor, naming the first field at fault, and
// returns its auto-tick period.
func (s *CreateSpec) Validate() (time.Duration, *FieldError) {
	if !chain.ValidName(s.Name) {
		return 0, fieldErr("name", "must be 1-%d characters of [a-z0-9_-]", MaxIDLen)
	}
	if s.Owner == "" || len(s.Owner) > MaxIDLen {
		return 0, fieldErr("owner", "must name a principal (1-%d bytes)", MaxIDLen)
	}
	if u := s.CallbackURL; u != "" && !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return 0, fieldErr("callbackURL", "must be an http:// or https:// URL")
	}
	if len(s.CallbackURL) > 2048 {
		return 0, fieldErr("callbackURL", "must be at most 2048 bytes")
	}
	if s.Lanes < 0 || s.Lanes > MaxLanes {
		return 0, fieldErr("lanes", "must be from 1 to %d", MaxLanes)
	}
	var d time.Duration
	if s.AutoTick != "" {
		var err error
		if d, err = time.ParseDuration(s.AutoTick); err != nil || d < MinAutoTick {
			return 0, fieldErr("autoTick", "must be a duration of at least %s", MinAutoTick)
		}
	}
	return d, nil
}
