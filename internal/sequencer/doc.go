// Package sequencer is the node's transaction manager (seed 000): durable
// per-queue FIFO queues of transactions, a pool of senders bound to one queue
// at a time, a dispatcher per transaction type, retries with a delay and a
// rising fee, and waiting for inclusion.
//
// The run cycle is Core, a deterministic state machine with no I/O: inputs
// (new transactions, ticks of the injected clock, new heads and receipts,
// dispatch and status results) go in through Step; a Ready comes out with the
// store batch to commit and the effects (dispatch, status checks, hooks,
// loads) to perform after the commit. Node is the driver around it: one loop
// goroutine owns the Core, a fixed pool of workers performs effects.
//
// Invariants:
//   - FIFO per queue: a queue dispatches its WAITING transactions in Seq order
//     and at most one at a time (InFlightPerQueue, 1 by default);
//   - at most one transaction per queue is in REVISION or RETRY;
//   - a sender is bound to at most one queue, from dispatch until its
//     transaction is DONE or FAILED; queues wanting a sender are served in the
//     order they asked (no queue starves);
//   - every attempt's sender and nonce are committed before it is sent; a
//     retry reuses the nonce of an attempt that never landed, and before any
//     re-dispatch or FAILED the chain is asked about every earlier attempt, so
//     an intent is never applied twice and never declared FAILED while an
//     attempt of it can still land;
//   - a state change is in the same store batch as its history entry.
package sequencer
