package jobq

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// The job queue's defaults, defined once for the core and its driver.
const (
	// DefaultConcurrency is a queue's jobs running at once when its
	// QueueConfig leaves Concurrency zero.
	DefaultConcurrency = 1
	// DefaultMaxWaiting is a queue's cap on waiting jobs (available,
	// scheduled, retryable) when its QueueConfig leaves MaxWaiting zero.
	DefaultMaxWaiting = 10000
	// DefaultMaxAttempts is a job's attempts when its insert names none
	// (River's default).
	DefaultMaxAttempts = 25
	// DefaultBackoffBase is the wait after a job's first failed attempt;
	// each further failure doubles it.
	DefaultBackoffBase = time.Second
	// DefaultBackoffMax caps the backoff before jitter.
	DefaultBackoffMax = time.Hour
	// DefaultErrorsKept is how many of a job's failed attempts its record
	// keeps (the last ones).
	DefaultErrorsKept = 5
)

// QueueConfig is one named queue.
type QueueConfig struct {
	// Name names the queue (non-empty, unique).
	Name string `json:"name"`
	// Concurrency is how many of its jobs run at once. Defaults to 1.
	Concurrency int `json:"concurrency,omitempty"`
	// MaxWaiting caps its waiting jobs (available, scheduled, retryable):
	// an insert beyond it is refused (ErrQueueFull). Periodic jobs are
	// counted but never refused. Defaults to 10000.
	MaxWaiting int `json:"maxWaiting,omitempty"`
}

// PeriodicJob is a job inserted once per period of Every: the period
// starting at a multiple of Every since the Unix epoch gets the unique key
// PeriodicKey(Name, start) and the ID PeriodicID(Name, start), so restarts
// and several inserters make one job per period (River's way). A period
// whose start finds the last period's job still live (waiting or running)
// gets none: a job slower than its period runs again once done, not
// through a backlog.
type PeriodicJob struct {
	// Name names the periodic job (non-empty, unique).
	Name  string `json:"name"`
	Queue string `json:"queue"`
	Kind  string `json:"kind"`
	// Args are its worker's arguments (JSON; empty for none).
	Args json.RawMessage `json:"args,omitempty"`
	// Every is the period (positive).
	Every time.Duration `json:"every"`
	// MaxAttempts is each period's job's attempts. Defaults to
	// CoreConfig.MaxAttempts.
	MaxAttempts int `json:"maxAttempts,omitempty"`
}

// CoreConfig configures a Core.
type CoreConfig struct {
	// Queues are the named queues, in the order a step starts their jobs.
	Queues []QueueConfig `json:"queues"`
	// Periodic are the periodic jobs.
	Periodic []PeriodicJob `json:"periodic,omitempty"`
	// MaxAttempts is a job's attempts when its insert names none. Defaults
	// to 25.
	MaxAttempts int `json:"maxAttempts,omitempty"`
	// BackoffBase is the wait after a first failed attempt, doubled by each
	// further one. Defaults to 1s.
	BackoffBase time.Duration `json:"backoffBase,omitempty"`
	// BackoffMax caps the backoff (before jitter). Defaults to 1h.
	BackoffMax time.Duration `json:"backoffMax,omitempty"`
	// ErrorsKept is how many failed attempts a job's record keeps.
	// Defaults to 5.
	ErrorsKept int `json:"errorsKept,omitempty"`
}

// WithDefaults returns c with its zero fields set to their defaults, or an
// error naming the first invalid field.
func (c CoreConfig) WithDefaults() (CoreConfig, error) {
	if c.MaxAttempts == 0 {
		c.MaxAttempts = DefaultMaxAttempts
	}
	if c.BackoffBase == 0 {
		c.BackoffBase = DefaultBackoffBase
	}
	if c.BackoffMax == 0 {
		c.BackoffMax = DefaultBackoffMax
	}
	if c.ErrorsKept == 0 {
		c.ErrorsKept = DefaultErrorsKept
	}
	if c.MaxAttempts < 0 || c.BackoffBase < 0 || c.BackoffMax < c.BackoffBase || c.ErrorsKept < 0 {
		return c, errors.New("jobq: negative MaxAttempts, BackoffBase or ErrorsKept, or BackoffMax below BackoffBase")
	}
	c.Queues = append([]QueueConfig(nil), c.Queues...)
	names := map[string]bool{}
	for i := range c.Queues {
		q := &c.Queues[i]
		if q.Name == "" || names[q.Name] {
			return c, fmt.Errorf("jobq: queue %d: empty or repeated name %q", i, q.Name)
		}
		names[q.Name] = true
		if q.Concurrency == 0 {
			q.Concurrency = DefaultConcurrency
		}
		if q.MaxWaiting == 0 {
			q.MaxWaiting = DefaultMaxWaiting
		}
		if q.Concurrency < 0 || q.MaxWaiting < 0 {
			return c, fmt.Errorf("jobq: queue %s: negative Concurrency or MaxWaiting", q.Name)
		}
	}
	c.Periodic = append([]PeriodicJob(nil), c.Periodic...)
	pnames := map[string]bool{}
	for i := range c.Periodic {
		p := &c.Periodic[i]
		switch {
		case p.Name == "" || pnames[p.Name]:
			return c, fmt.Errorf("jobq: periodic job %d: empty or repeated name %q", i, p.Name)
		case !names[p.Queue]:
			return c, fmt.Errorf("jobq: periodic job %s: unknown queue %q", p.Name, p.Queue)
		case p.Kind == "":
			return c, fmt.Errorf("jobq: periodic job %s: empty kind", p.Name)
		case p.Every <= 0:
			return c, fmt.Errorf("jobq: periodic job %s: Every %v is not positive", p.Name, p.Every)
		}
		pnames[p.Name] = true
		if p.MaxAttempts == 0 {
			p.MaxAttempts = c.MaxAttempts
		}
	}
	return c, nil
}
