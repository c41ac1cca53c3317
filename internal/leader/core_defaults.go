package leader

import "time"

// The engine's defaults, defined once for the core and its driver.
const (
	// DefaultCapacity is the high-integrity channel's capacity: how many
	// Queued records wait in the execution engine's run queue; the others
	// stay saved until the retrier resends them.
	DefaultCapacity = 256
	// DefaultMaxActive is how many tools run at once.
	DefaultMaxActive = 32
	// DefaultMaxRetries is how many retriable failures a request survives.
	DefaultMaxRetries = 5
	// DefaultRetryEvery is the retrier's period.
	DefaultRetryEvery = time.Second
	// DefaultSweepAfter is how long an Active record whose execution is no
	// longer running (its node restarted) waits before the sweeper puts it
	// back to Queued.
	DefaultSweepAfter = 30 * time.Second
	// DefaultStaleAfter is the age at which an Active record is disposed
	// of: Dead, with a failure result that tells the workflow.
	DefaultStaleAfter = 10 * time.Minute
	// DefaultBlockFor is how long a channel is blocked after its result
	// transaction failed on chain (the seed's 24 hours).
	DefaultBlockFor = 24 * time.Hour
	// DefaultCheckEvery is how often a result transaction the sequencer has
	// not finished is asked about again (resubmitted under its key).
	DefaultCheckEvery = 30 * time.Second
	// DefaultResubmitAfter is the wait before a refused submission is tried
	// again.
	DefaultResubmitAfter = time.Second
	// CursorName is the leader's event cursor.
	CursorName = "leader"
	// QueuePrefix starts the sequencer queues of the channels:
	// leader/<channel>.
	QueuePrefix = "leader/"
	// Phases of an Active record.
	PhaseInvoke = "invoke"
	PhaseReport = "report"
	PhaseSent   = "sent"
	// ReasonAlreadyReported is the workflow's failure reason of a second
	// result for a walk.
	ReasonAlreadyReported = "already_reported"
	// ReasonNoSuchWalk is the workflow's failure reason of a result for a
	// walk it does not hold (its request was reorged out).
	ReasonNoSuchWalk = "no_such_walk"
)

// CoreConfig tunes a core. Zero fields take their defaults.
type CoreConfig struct {
	Capacity      int           `json:"capacity,omitempty"`
	MaxActive     int           `json:"maxActive,omitempty"`
	MaxRetries    int           `json:"maxRetries,omitempty"`
	RetryEvery    time.Duration `json:"retryEvery,omitempty"`
	SweepAfter    time.Duration `json:"sweepAfter,omitempty"`
	StaleAfter    time.Duration `json:"staleAfter,omitempty"`
	BlockFor      time.Duration `json:"blockFor,omitempty"`
	CheckEvery    time.Duration `json:"checkEvery,omitempty"`
	ResubmitAfter time.Duration `json:"resubmitAfter,omitempty"`
	// Accounts are the channels' accounts, one per leader cap, in channel
	// order. Required.
	Accounts []string `json:"accounts"`
}

func (c CoreConfig) withDefaults() CoreConfig {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	if c.Capacity <= 0 {
		c.Capacity = DefaultCapacity
	}
	if c.MaxActive <= 0 {
		c.MaxActive = DefaultMaxActive
	}
	if c.MaxRetries <= 0 {
		c.MaxRetries = DefaultMaxRetries
	}
	def(&c.RetryEvery, DefaultRetryEvery)
	def(&c.SweepAfter, DefaultSweepAfter)
	def(&c.StaleAfter, DefaultStaleAfter)
	def(&c.BlockFor, DefaultBlockFor)
	def(&c.CheckEvery, DefaultCheckEvery)
	def(&c.ResubmitAfter, DefaultResubmitAfter)
	return c
}
