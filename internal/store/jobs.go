package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// This file holds the kernel's durable job queue (issue 12, "A durable job
// queue in the kernel"; the job queues of seed 004 run on it): jobs of a
// kind with JSON arguments on named queues, scheduled, retried and
// finalized by package jobq's core and committed by a JobStore.

// JobState is a job's state (River's vocabulary, less its pending and
// discarded: a job past its attempts is dead).
type JobState string

// Job states.
const (
	// JobAvailable: due; waiting for a free slot of its queue.
	JobAvailable JobState = "available"
	// JobScheduled: waiting for its RunAt (inserted for later, or snoozed).
	JobScheduled JobState = "scheduled"
	// JobRunning: a worker has it (Attempt counts this run).
	JobRunning JobState = "running"
	// JobRetryable: its last attempt failed; it runs again at RunAt.
	JobRetryable JobState = "retryable"
	// JobCompleted: a worker finished it (final).
	JobCompleted JobState = "completed"
	// JobDead: it failed MaxAttempts times (final).
	JobDead JobState = "dead"
	// JobCancelled: its worker or a caller cancelled it (final).
	JobCancelled JobState = "cancelled"
)

// Valid reports whether s is one of the seven states.
func (s JobState) Valid() bool {
	switch s {
	case JobAvailable, JobScheduled, JobRunning, JobRetryable, JobCompleted, JobDead, JobCancelled:
		return true
	}
	return false
}

// Live reports whether s is not final: a job in a live state holds its
// unique key (River's default unique states, less completed: a finished
// job's key may be used again).
func (s JobState) Live() bool {
	switch s {
	case JobAvailable, JobScheduled, JobRunning, JobRetryable:
		return true
	default: // completed, dead or cancelled: ended
	}
	return false
}

// Waiting reports whether s waits to run (available, scheduled or
// retryable): the states a queue's cap on waiting jobs counts.
func (s JobState) Waiting() bool {
	return s == JobAvailable || s == JobScheduled || s == JobRetryable
}

// JobError is one failed attempt of a job.
type JobError struct {
	Attempt int       `json:"attempt"`
	At      time.Time `json:"at"`
	Error   string    `json:"error"`
}

// Job is one job and its life.
type Job struct {
	// ID is the job's id (positive), chosen by whoever inserts it.
	ID    int64  `json:"id"`
	Queue string `json:"queue"`
	Kind  string `json:"kind"`
	// Args are the worker's arguments (JSON; empty for none).
	Args json.RawMessage `json:"args,omitempty"`
	// UniqueKey, when set, is held by at most one live job.
	UniqueKey string   `json:"uniqueKey,omitempty"`
	State     JobState `json:"state"`
	// Attempt counts the runs started (a snoozed run is not counted).
	Attempt     int `json:"attempt"`
	MaxAttempts int `json:"maxAttempts"`
	// RunAt is when the job is due (scheduled, retryable) or was due.
	RunAt time.Time `json:"runAt"`
	// Errors are the last failed attempts, oldest first.
	Errors      []JobError `json:"errors,omitempty"`
	CreatedAt   time.Time  `json:"createdAt"`
	UpdatedAt   time.Time  `json:"updatedAt"`
	FinalizedAt time.Time  `json:"finalizedAt,omitzero"`
}

// JobBatch is a set of job writes applied in one store transaction.
//
// Update rewrites whole records of jobs the store holds, by ID, in order,
// before any insert (so an update that ends a job frees its unique key for
// an insert of the same batch: a job finished and its successor inserted
// in one turn); an unknown ID fails the batch with ErrNotFound, and an
// update that would make a second live job hold a unique key fails it
// with ErrUniqueLive. Insert then adds new jobs, in order. An insert is
// not added, and its result is the stored job instead, when the store
// holds its ID already or when a live job (in the store, as updated, or
// earlier in the batch) holds its UniqueKey: so an insert is idempotent by
// ID, and several inserters of one unique key make one job.
type JobBatch struct {
	Insert []Job
	Update []Job
}

// Empty reports whether the batch writes nothing.
func (b *JobBatch) Empty() bool { return len(b.Insert) == 0 && len(b.Update) == 0 }

// Validate refuses a batch holding a record no store accepts: an ID below
// 1, an empty queue or kind, a state outside the seven, a negative attempt
// count.
func (b *JobBatch) Validate() error {
	for _, list := range [][]Job{b.Insert, b.Update} {
		for i := range list {
			j := &list[i]
			switch {
			case j.ID < 1:
				return fmt.Errorf("job id %d below 1", j.ID)
			case j.Queue == "":
				return fmt.Errorf("job %d: empty queue", j.ID)
			case j.Kind == "":
				return fmt.Errorf("job %d: empty kind", j.ID)
			case !j.State.Valid():
				return fmt.Errorf("job %d: invalid state %q", j.ID, j.State)
			case j.Attempt < 0 || j.MaxAttempts < 0:
				return fmt.Errorf("job %d: negative attempt or max attempts", j.ID)
			}
		}
	}
	return nil
}

// JobInserted answers one insert: the job as stored, and whether this
// insert created it.
type JobInserted struct {
	Job     Job
	Created bool
}

// JobFilter selects jobs: a Queue, State and Kind (empty: any), IDs greater
// than After, at most Limit (default 100, cap 1000), in ID order.
type JobFilter struct {
	Queue string
	State JobState
	Kind  string
	After int64
	Limit int
}

// ErrUniqueLive is returned by ApplyJobs for an update that would make a
// second live job hold a unique key.
var ErrUniqueLive = errors.New("unique key held by another live job")

// JobStore is the job queue's durable state; SQLite and memstore implement
// it and run storetest.RunJobs.
type JobStore interface {
	// ApplyJobs commits b atomically and answers each insert, in order.
	ApplyJobs(ctx context.Context, b JobBatch) ([]JobInserted, error)
	// Job returns one job by ID, or ErrNotFound.
	Job(ctx context.Context, id int64) (Job, error)
	// JobByUniqueKey returns the live job holding key or, when none does,
	// the last created (greatest ID among equal creation times) of the
	// final jobs that held it, or ErrNotFound.
	JobByUniqueKey(ctx context.Context, key string) (Job, error)
	// DueJobs returns up to limit (default 100, cap 1000) jobs of a queue
	// that are due at now: available, or scheduled or retryable with RunAt
	// at or before now; ordered by RunAt, then ID.
	DueJobs(ctx context.Context, queue string, now time.Time, limit int) ([]Job, error)
	// LiveJobs returns every job in a live state, in ID order: what the
	// job queue's core is rebuilt from.
	LiveJobs(ctx context.Context) ([]Job, error)
	// JobCounts counts jobs per queue and state (only the pairs present).
	JobCounts(ctx context.Context) (map[string]map[JobState]int, error)
	// Jobs lists jobs matching f.
	Jobs(ctx context.Context, f JobFilter) ([]Job, error)
}

// JobFilterLimit is f.Limit with its default (100) and cap (1000): the
// listing contract of ClampLimit.
func JobFilterLimit(n int) int { return ClampLimit(n) }

// NormJob is j as a store's read returns it: UTC times at nanosecond
// precision (the zero time kept), its own copies of Args and Errors, nil
// when empty. The stores answer an inserted job with it.
func NormJob(j Job) Job {
	if len(j.Args) == 0 {
		j.Args = nil
	} else {
		j.Args = append(json.RawMessage(nil), j.Args...)
	}
	if len(j.Errors) == 0 {
		j.Errors = nil
	} else {
		j.Errors = append([]JobError(nil), j.Errors...)
		for i := range j.Errors {
			j.Errors[i].At = UTCOrZero(j.Errors[i].At)
		}
	}
	j.RunAt, j.CreatedAt = UTCOrZero(j.RunAt), UTCOrZero(j.CreatedAt)
	j.UpdatedAt, j.FinalizedAt = UTCOrZero(j.UpdatedAt), UTCOrZero(j.FinalizedAt)
	return j
}

// UTCOrZero is t in UTC at nanosecond precision (what a store keeps), the
// zero time kept zero.
func UTCOrZero(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return time.Unix(0, t.UnixNano()).UTC()
}
