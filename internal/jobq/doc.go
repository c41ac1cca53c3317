// Package jobq is the kernel's durable job queue (issue 12, "A durable job
// queue in the kernel"): jobs of a kind with JSON arguments on named
// queues, each queue with its own concurrency and a cap on waiting jobs,
// behind the store seam (store.JobStore: SQLite, PostgreSQL, memstore),
// after River's design (read, not copied: ordo does not
// depend on River).
//
// Seed 004 (the state machine manager) runs its four queues on it:
// monitoring (monitor-state, find-sync-requests, find-replica-set-updates;
// one at a time), manual sync (the write-triggered fast lane; 15 at once),
// recurring sync (issue-recurring-sync-request; 5 at once) and replica-set
// update (issue-replica-set-update and the endpoint → node id mapping
// refresh, a periodic job; one at a time): SMMQueues. The jobs themselves
// come with the SMM.
//
// It has the engine shape (docs/ARCHITECTURE.md): a sans-I/O Core
// (core*.go: Step(Input) → Ready{Batch, Effects, Replies}, Advance,
// CheckInvariants; time only from Input.At, job IDs from inputs or from
// the period) and a driver, Node, on internal/engine.Loop, which commits
// each Ready's batch in one store transaction and runs each EffectWork on
// the Worker registered for the job's kind.
//
// A job's life: inserted available (or scheduled, RunAt later); started
// running when due and its queue has a free slot (queues in config order,
// jobs by RunAt then ID), Attempt counting the run; then completed (Work
// returned nil), retryable after Backoff (an error: base doubled per
// failure, capped, plus a jitter drawn from the job's ID), dead once it
// failed MaxAttempts times, scheduled again without counting the attempt
// (Snooze), or cancelled (Cancel, or CancelJob while it waits). A unique
// key is held by at most one live job: an insert whose key (or ID) a live
// job holds answers that job instead. A periodic job is inserted once per
// period under PeriodicKey and PeriodicID, derived from the period, so
// restarts and several inserters make one job per period. A job found
// running at a restart with no live worker is rescued: a failed attempt
// (ErrRescued), retryable or dead.
//
// Invariants (CheckInvariants after every step in tests; Step itself
// panics on a queue above its concurrency): no job runs twice (one run per
// job, in its queue's running set only); a queue's running jobs never
// exceed its concurrency; a unique key is live at most once; every live
// job is in exactly one place (waiting in due order, or running); no job
// runs more than MaxAttempts times. The store holds the same through its
// partial unique index on live keys.
package jobq
