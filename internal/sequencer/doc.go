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
// after the commit, in a deterministic order. The Ready type's comment is the
// driver's contract (what to do, in which order, what not to do between Ready
// and Advance). Sub-states are typed (core_state.go); the seed's states are
// the store's (store.TxState, store.BindingState), and attempts end in one
// vocabulary, store.Outcome.
//
// # The driver
//
// Node owns the intake (Submit) and Run; Run turns a Loop (loop.go) from one
// goroutine and hands the effects to a fixed pool of workers, whose results
// come back as inputs through a mailbox. A simulation (internal/sim) turns
// the same Loop by hand with Config.Inline. With Config.Trace, the loop
// records every input and Ready; Replay checks a recording against fresh
// cores. Dispatchers live in the dispatch package.
//
// # Invariants
//
//   - FIFO per queue: a queue dispatches its WAITING transactions in Seq order
//     and at most InFlightPerQueue at a time (1, the seed's "one transaction
//     per block, per zkApp");
//   - at most one transaction per queue is in REVISION or RETRY;
//   - a sender is bound to at most one queue, from dispatch until its
//     transaction is DONE or FAILED; queues wanting a sender are served in the
//     order they asked (no queue starves); a queue pinned to a sender
//     (CoreConfig.Pins) is bound only to it, and a sender named by a pin
//     serves only the queues pinned to it;
//   - every attempt's sender and nonce are committed before it is sent; a
//     retry reuses the nonce of an attempt that never landed, and before any
//     re-dispatch or FAILED the chain is asked about every earlier attempt, so
//     an intent is never applied twice and never declared FAILED while an
//     attempt of it can still land;
//   - a transaction is DONE only once its inclusion has Confirmations blocks;
//     DONE and FAILED are final;
//   - a state change is in the same store batch as its history entry;
//   - the same inputs give the same Readys (Replay checks it).
//
// The core asserts the invariants of what each step touched and panics on a
// broken one; CheckInvariants walks the whole core for tests and simulations.
package sequencer
