// Package writeq is the write queue both stores' committers are built on
// (internal/store/sqlite, internal/store/postgres): callers hand a request
// to the one goroutine that writes, the committer, and wait for it; the
// committer takes every request already waiting, up to a weight, as one
// group, runs the group in one database transaction and commits once, so
// that the cost of a durable commit is shared by the group. What a request
// writes and how a group is run, retried and committed stay each store's.
//
// It serves the stores' write path for every engine (seed 000's records and
// the other engines' durable state), and store.Pipeliner's StartApply
// (chained requests).
//
// Invariants:
//   - A request sent (Send returned nil) is served: Close waits for every
//     caller between its closed check and its send, then closes the
//     channel, and the committer drains it before Next reports the end.
//   - After Close, Send fails with the queue's closed error.
//   - Next never returns an empty group, and a group weighs at most the
//     maximum given, unless its first request alone weighs more; a request
//     that would pass the maximum waits, first, for the next group, so
//     requests keep their order.
//   - Commit wakes every request of its group exactly once: a request whose
//     caller gave up, unrun; a request refused on its own account, with its
//     error, the others run again without it; on the group's own error,
//     every request left, with it.
//   - A request chained to another (Chain) is not run when that one failed
//     (Chained returns store.ErrEarlierFailed), so a store never holds a
//     later batch without an earlier one.
package writeq
