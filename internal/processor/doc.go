// Package processor is the processor engine (seed 002): named processors,
// each with a High and a Medium queue of message batches that a tick
// executes in priority order, retries as their owner configured, and
// reports exactly once by a callback.
//
// # The seed, in ordo
//
//   - The Authorization contract is the processor's owner: a principal of
//     the node (internal/auth), checked when an admin creates the
//     processor (another name is refused, but in dev mode). Only it (or an
//     admin) adds batches, pauses, resumes, removes and confirms; the API
//     checks the caller against the owner before it reads the request, so
//     a stranger hears 403, never what is wrong with its body.
//   - A tick (anyone may tick, unless the operator turns that off) takes
//     the first batch of High, else of Medium: an expired batch ends
//     Expired; a batch whose retry cooldown has not passed rotates to the
//     back of its queue; otherwise the batch (atomic) or its next action
//     (non-atomic) starts executing. An execution is a contract call (an
//     atomic batch: a multi-call, applied all or none) handed to the
//     sequencer under the type SubmitType and the idempotency key of its
//     execution id; it lands blocks later and its end (DONE or FAILED)
//     comes back as an input, never inside the tick.
//   - Retries: RetryLogic.Times Amount(n) gives n+1 attempts (Valence's
//     count), Indefinitely no bound; the interval (blocks or a duration)
//     is a cooldown during which ticks rotate the batch. Non-atomic
//     actions count their attempts each from zero.
//   - A non-atomic action with a CallbackConfirmation waits, after its
//     transaction succeeded, in the pending map until its owner confirms
//     the execution id or the named contract emits a CallbackConfirmation
//     event carrying it (read by the kernel's chain-event listener, whose
//     cursor commits in the same batch as the confirmation); a failure
//     confirmation counts as a failed attempt.
//   - Outcomes: Executed, Rejected, PartiallyExecuted(n), and ordo's
//     Expired and RemovedByOwner. Each outcome is one callback, kept in the
//     store and POSTed to the processor's callback URL with the
//     Idempotency-Key CallbackKey(processor, batch) until a 2xx, with
//     backoff, across restarts.
//   - The optional auto-ticker ticks every AutoTick while work is queued.
//   - QueueMap: an implicit treap (core_queue.go), O(log n) insert and
//     remove at any position where Valence's is O(n).
//
// # The engine shape
//
// The sans-I/O Core (core*.go) takes Inputs through Step and hands out a
// Ready (store writes, effects, replies to callers); see Ready for the
// driver's duties. The driver (Node, Loop) commits through the store's
// ProcessorStore, submits executions to the sequencer, delivers callbacks
// over HTTP and feeds the chain's heads and events back in.
//
// # Invariants
//
//   - Every live batch is in exactly one place: its priority's queue
//     (queued), the executions (executing, found by execution id and, once
//     known, by sequencer record) or the pending map (pending).
//   - Queue keys ascend in queue order, so the store's order by key is the
//     queue's order.
//   - A batch ends once: its outcome and its callback are written in the
//     same batch; a live batch has made fewer failed attempts of its unit
//     than its RetryLogic allows.
//   - A pending callback is either being delivered or waiting in its
//     processor's delivery heap, never both; at most MaxDeliveries of a
//     processor are in flight.
//   - Every execution has one id (processor/batch/unit/attempt), which is
//     also its sequencer idempotency key: submitting it again after a crash
//     returns the same record, so an execution runs on chain at most once.
package processor
