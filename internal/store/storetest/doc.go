// Package storetest is the conformance suite of store.Store,
// store.ProcessorStore, store.LeaderStore, store.DistseqStore and
// store.JobStore, and of store.LeaseStore with Batch.Fence (RunLeases):
// every implementation (SQLite, PostgreSQL, and memstore for distseq and
// jobs) runs Run, RunProcessor, RunLeader, RunDistseq, RunJobs and, when
// it keeps leases, RunLeases from its own tests and must pass all of it.
// The Run* docs list what each pins down beyond the interface; what
// follows is Run's.
//
// Beyond the interface's comments, the suite pins down these behaviours:
//   - times round-trip to the nanosecond and come back in UTC; a zero time
//     given for an optional field (Attempt.At, Queue.DelayUntil, …) comes
//     back zero;
//   - uint64 fields round-trip over their whole range;
//   - Data and Result round-trip as equal JSON; an empty one comes back empty;
//   - Enqueue writes one history entry per created transaction ("" →
//     WAITING, at the transaction's At); a duplicate idempotency key writes
//     none;
//   - Enqueue refuses an empty UID or Queue, and a UID already in the store
//     (without a matching idempotency key): the whole call fails, nothing of
//     it is written;
//   - Apply refuses a TxUpdate of an unknown uid (attempt-only or not) with
//     an error wrapping store.ErrNotFound, and any other invalid part (bad
//     state, history of an unknown uid, a queue bound to an unknown
//     transaction, an attempt-only update without an attempt) with an error;
//     either way nothing of the batch is written;
//   - an attempt-only TxUpdate writes its attempt and leaves the
//     transaction's own fields and UpdatedAt; with an own change of the same
//     transaction in the batch, the change is written;
//   - Attempts come ordered by N; Waiting, List and Active in Seq order;
//     WaitingQueues, Queues and Senders in ascending order of name/id;
//   - List and Waiting: a Limit of 0 or less means 100, more than 1000 means
//     1000;
//   - QueueStats of a name with neither a transaction nor a binding is
//     store.ErrNotFound; of a queue with only a binding, all counts zero;
//   - an Enqueue whose ctx is already done returns ctx.Err() and writes
//     nothing; one whose ctx ends while it waits for the store returns
//     ctx.Err() promptly (WithBlocker);
//   - calls after Close return an error, they do not hang.
package storetest
