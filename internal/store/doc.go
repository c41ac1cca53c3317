// Package store is the node's durable state behind one interface, so SQLite
// (the embedded default, package store/sqlite) and PostgreSQL (package
// store/postgres) are interchangeable and pass one conformance suite
// (package store/storetest).
//
// It holds the sequencer's records (seed 000): transactions with their
// attempts and the history of their state transitions, queues with their
// sender binding, and senders.
//
// Invariants every implementation keeps:
//   - Enqueue returns only after its records are committed (durable before
//     acknowledged); an idempotency key of a principal maps to exactly one
//     uid for as long as that record is kept (the same key under another
//     principal is another transaction; a record pruned by retention,
//     Pruner.PruneFinished, frees its key);
//   - a Batch is applied atomically: all of it or none of it;
//   - Seq orders transactions by acceptance, store-wide and strictly
//     increasing, so FIFO per queue is "ascending Seq";
//   - history entries of a transaction are returned in the order written;
//   - only DONE or FAILED records whose hook reported and that no binding
//     names are ever deleted (PruneFinished), with their attempts and
//     history.
package store
