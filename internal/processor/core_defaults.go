package processor

import "time"

// The engine's defaults, defined once for the core and its driver.
const (
	// DefaultCheckEvery is how often an execution the sequencer has not
	// finished is asked about again (a resubmission under its idempotency
	// key, which answers its record's state): it covers a finish the
	// driver missed.
	DefaultCheckEvery = 30 * time.Second
	// DefaultResubmitAfter is how long after a refused submission (a store
	// error) it is tried again.
	DefaultResubmitAfter = time.Second
	// DefaultMaxDeliveries is how many callbacks of one processor are
	// delivered at once.
	DefaultMaxDeliveries = 16
	// DefaultBackoffMin and DefaultBackoffMax bound the wait between two
	// deliveries of one callback: it doubles from the first to the second.
	DefaultBackoffMin = time.Second
	DefaultBackoffMax = 5 * time.Minute
	// DefaultMaxQueued is the most batches one processor holds queued.
	DefaultMaxQueued = 100_000
	// SubmitType is the sequencer transaction type of executions: a
	// contract call (or multi-call) the sequencer sends at most once,
	// since the processor owns retries (its RetryLogic).
	SubmitType = "call-once"
	// QueuePrefix starts the sequencer queues of executions:
	// processor/<name>, or processor/<name>/<lane> with several lanes.
	QueuePrefix = "processor/"
	// CursorName is the event cursor of callback confirmations.
	CursorName = "processor"
	// ConfirmEvent is the chain event that carries a callback confirmation:
	// data {executionId, success}.
	ConfirmEvent = "CallbackConfirmation"
)

// CoreConfig tunes a core. Zero fields take their defaults.
type CoreConfig struct {
	// CheckEvery defaults to DefaultCheckEvery (30s).
	CheckEvery time.Duration `json:"checkEvery,omitempty"`
	// ResubmitAfter defaults to DefaultResubmitAfter (1s).
	ResubmitAfter time.Duration `json:"resubmitAfter,omitempty"`
	// MaxDeliveries defaults to DefaultMaxDeliveries (16).
	MaxDeliveries int `json:"maxDeliveries,omitempty"`
	// BackoffMin defaults to 1s; BackoffMax to 5m.
	BackoffMin time.Duration `json:"backoffMin,omitempty"`
	BackoffMax time.Duration `json:"backoffMax,omitempty"`
	// MaxQueued defaults to DefaultMaxQueued (100,000).
	MaxQueued int `json:"maxQueued,omitempty"`
}

func (c CoreConfig) withDefaults() CoreConfig {
	if c.CheckEvery <= 0 {
		c.CheckEvery = DefaultCheckEvery
	}
	if c.ResubmitAfter <= 0 {
		c.ResubmitAfter = DefaultResubmitAfter
	}
	if c.MaxDeliveries <= 0 {
		c.MaxDeliveries = DefaultMaxDeliveries
	}
	if c.BackoffMin <= 0 {
		c.BackoffMin = DefaultBackoffMin
	}
	if c.BackoffMax <= 0 {
		c.BackoffMax = DefaultBackoffMax
	}
	if c.BackoffMax < c.BackoffMin {
		c.BackoffMax = c.BackoffMin
	}
	if c.MaxQueued <= 0 {
		c.MaxQueued = DefaultMaxQueued
	}
	return c
}
