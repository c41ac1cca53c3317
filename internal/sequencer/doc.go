// Package sequencer is the node's transaction manager (seed 000): durable
// per-queue FIFO queues of transactions, a pool of senders bound to one queue
// at a time, a dispatcher per transaction type, retries with a delay and a
// rising fee, and waiting for inclusion.
//
// # The core
//
// The run cycle is Core (files core*.go), a deterministic state machine with
// no I/O, no clock and no goroutines: one entry, Step(Input), takes typed,
// plain-data inputs (new transactions, a tick of the clock, a new head with
// receipts, dispatch/sign/status/hook results, load results), each stamped
// with the time it is stepped; Ready hands over the store batch to commit and
// the effects (dispatch, submit, status checks, hooks, loads) to perform
// after the commit, in a deterministic order. A new head visits only the
// queues it may move (waiting for an inclusion, or a check waiting for a
// head), and a tick only those in DELAY, in the order the core made them:
// the cost of a head follows the queues in flight, not the queues known.
// The Ready type's comment is the driver's contract (what to do, in which
// order, what not to do between Ready and Advance). Sub-states are typed
// (core_state.go); the seed's states are the store's (store.TxState,
// store.BindingState), and attempts end in one vocabulary, store.Outcome.
//
// # The driver
//
// Node owns the intake (Submit) and Run; Run turns a Loop (loop.go) from one
// goroutine and hands the effects to a fixed pool of workers, whose results
// come back as inputs through a mailbox. The loop commits in the background,
// in order: up to maxInFlight batches at once on a store.Pipeliner (each
// chained to the one before), one otherwise; a Ready's effects go out only
// once its batch and every one before it are committed. Loads of WAITING transactions have
// workers of their own and an unbounded line, so a start over a backlog in
// many queues dispatches once the first windows are loaded, not after the
// last; and such a start keeps fewer WAITING transactions a queue in memory
// (Config.WaitingWindow: WaitingBudget shared among the queues). A simulation (internal/sim) turns
// the same Loop by hand with Config.Inline. Config.Owner (owner.go) limits a
// node sharing its store with others to the queues and senders whose
// leases it holds: the snapshot, its intake and its senders are filtered,
// each batch carries the fence of the leases its core was built on, the
// core reads intake from the store in Seq order (CoreConfig.Shared), nothing
// is sent once the leases may have lapsed, and a change of leases or a
// fenced commit starts the loop over from the store. InputGate closes a
// queue (no new transaction; the state machine manager closes a queue this
// node was deposed from). With Config.Trace, the loop
// records every input and Ready; Replay checks a recording against fresh
// cores. Dispatchers live in the dispatch package.
//
// # Nonce-ordered pipelining
//
// CoreConfig.Pipelines (the node's sequencer.pipelines) gives the queues
// whose name starts with a rule's prefix (the longest wins) up to InFlight
// transactions in flight; every other queue has 1, as seed 000 says. A
// pipelined queue's lead (the transaction its binding names) runs the
// seed's cycle exactly as a lone transaction does; behind it, the next
// WAITING transactions are sent in FIFO order on the same sender at the
// next nonces, each once the one before it is signed (so a build or submit
// error can only hit the newest). These followers only record what the
// chain and their dispatch say; each is acted on when it leads, so DONE and
// FAILED come per transaction, in queue order. The distributed sequencer
// (seed 003) dispatches to such queues so that chained transactions share a
// block. Worker senders keep one in flight (an unreported attempt makes a
// nonce uncertain). After a restart the queue's lead is the transaction its
// binding names; the others it had sent (REVISION, or WAITING with attempts:
// Snapshot.Sent) come back in Seq order and are taken in again or lead in
// turn, on the same sender, which the queue keeps for them.
//
// A transaction whose nonce a failure on chain used is FAILED when later
// transactions were sent behind it: a retry on a fresh nonce would land
// after them, out of order (a call-once revert is FAILED at once in any
// queue, with the chain's reason in the record). A nonce that would be left
// unused below a follower's (an attempt dropped from the mempool, timed
// out or refused at submit, with no retry left) is filled by re-sending
// the transaction at its nonce, a replacement at a higher fee, instead of
// FAILED. We chose re-sending over cancelling with a no-op self-transfer:
// the chain has no native transfer to cancel with, and at most one attempt
// at a nonce can land, so re-sending never applies an intent twice, and
// the queue's later transactions land as they were sent; a cancel would
// need a second kind of attempt that no dispatcher builds. The one case not
// covered is a lead whose re-send can no longer be built (a Builder that is
// not deterministic): it ends FAILED and its followers wait on its nonce.
//
// # Invariants
//
//   - FIFO per queue: a queue dispatches its WAITING transactions in Seq order
//     and at most its InFlight at a time (1 unless CoreConfig.Pipelines says
//     more: the seed's "one transaction per block, per zkApp"), and ends
//     them DONE or FAILED in Seq order;
//   - a pipelined queue's transactions in flight are all on its one sender,
//     at consecutive nonces (their pipe nonces, in flight order);
//   - at most one transaction per queue is in REVISION or RETRY, but for the
//     followers of a pipelined queue (REVISION);
//   - a sender is bound to at most one queue, from dispatch until its
//     transaction is DONE or FAILED; queues wanting a sender are served in the
//     order they asked (no queue starves); a queue pinned to a sender
//     (CoreConfig.Pins) is bound only to it, and a sender named by a pin
//     serves only the queues pinned to it;
//   - every attempt's sender and nonce are committed before it is sent; a
//     retry reuses the nonce of an attempt that never landed, and before any
//     re-dispatch or FAILED the chain is asked about every earlier attempt, so
//     an intent is never applied twice and never declared FAILED while an
//     attempt of it can still land; an attempt a remote worker may have sent
//     without its hash is settled by the transaction that took its nonce
//     (core_lookup.go): the intent's own is its inclusion, another one frees
//     a fresh nonce, and with neither the transaction ends FAILED as
//     ambiguous, never sent again on another nonce;
//   - a transaction is DONE only once its inclusion has Confirmations blocks,
//     or an attempt of it failed with chain.ReasonDuplicateIntent (the chain
//     applies a memo, the record's uid, at most once: an earlier
//     transaction, another attempt or another node's, applied the intent)
//     and that failure has Confirmations blocks (NoteAppliedEarlier); DONE
//     and FAILED are final;
//   - a state change is in the same store batch as its history entry;
//   - the same inputs give the same Readys (Replay checks it);
//   - intake (Submit): an idempotency key is its Intake.Principal's (another
//     principal's record is never answered nor named); only an engine's
//     principal (EnginePrincipalPrefix) may use the engines' queues and keys
//     (ReservedPrefixes); data holds no number the chain's encoding refuses
//     (chain.CheckNumber).
//
// The core asserts the invariants of what each step touched and panics on a
// broken one; CheckInvariants walks the whole core for tests and simulations.
package sequencer
