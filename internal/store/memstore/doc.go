// Package memstore holds in-memory implementations of the store seams, for
// simulations: Distseq, the distributed sequencer's durable state
// (store.DistseqStore, seed 003's persistence points: the sender's intent,
// the coordinator's dispatch, assured delivery data distribution on both
// sides, with ordo's privacy-group records, states and chain cursor), and
// Jobs, the kernel job queue's (store.JobStore, issue 12).
//
// A simulation models a node's crash by keeping its store and dropping its
// memory: Clone copies what the node has committed, and the copy is what
// the restarted node opens.
//
// Invariants (the ones package store/sqlite keeps, checked by the same
// conformance suites, storetest.RunDistseq and storetest.RunJobs):
//   - a batch is applied atomically: all of it or none (a refused batch
//     writes nothing);
//   - values are copied in and out: a caller's later change to a batch or
//     to a returned value changes nothing in the store;
//   - times are kept to the nanosecond, in UTC, as sqlite returns them;
//   - it is safe for concurrent use, and an idle record costs only itself
//     (no per-record goroutine or timer).
package memstore
