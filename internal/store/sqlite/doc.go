// Package sqlite is the embedded implementation of store.Store,
// store.ProcessorStore and store.LeaderStore (leader_events, with walk
// unique, and leader_channels; migrations/0004_leader.sql): one SQLite
// database file through the pure-Go driver
// modernc.org/sqlite. It holds the sequencer's records (seed 000):
// transactions (WAITING, REVISION, RETRY, DONE, FAILED) with their attempts
// and the history of their state transitions, queues with their binding to a
// sender (FREE, BLOCKED, INCLUSION, WAITING_INCLUSION, RETRY, DELAY), and
// senders; and the processor's (seed 002): processors, their batches and
// callbacks, and the kernel's event cursors. It is also store.ReplicaStore
// (issue 12, replica.go): the replica sets this node holds and each
// replicated queue's log, written on the primary in the transaction of the
// change it records.
//
// # Durability and concurrency
//
// The database runs in WAL mode with synchronous=FULL: a commit has reached
// the disk when Enqueue or Apply returns (durable before acknowledged).
// Foreign keys are on; busy_timeout bounds waits for locks held by another
// process.
//
// There is one writer connection, owned by one committer goroutine that Open
// starts and Close stops, and a pool of read connections (WAL lets readers
// work alongside the writer and see committed data only). Enqueue, Apply and
// ApplyProcessor do not write themselves: they queue a request and wait for it (or for their
// ctx). The committer takes every request already queued, up to
// Options.MaxGroup records, runs them back to back in one transaction (group
// commit), commits once and wakes each caller with its own results. One fsync
// thus serves a whole group, and requests queue up while a commit is in
// flight, so groups grow with load. A request refused on its own account
// (unknown uid, taken uid) rolls the transaction back and the group is run
// again without it: each call stays atomic, and the common path pays for no
// savepoints. Requests are served in the order they were queued,
// and a request whose ctx has ended before its group starts is dropped.
// StartApply (store.Pipeliner) queues a batch without waiting; one chained
// to a request that failed (dropped, refused, or failed so in turn) is
// failed with store.ErrEarlierFailed, in its group's order, never run. A
// caller whose ctx ends while it waits gets ctx.Err(); its request may still
// commit (a retry with the same idempotency key is safe).
//
// # Schema
//
// Migrations are embedded (migrations/NNNN_name.sql), applied in order on
// Open, each in a transaction together with its row in schema_migrations;
// reopening applies nothing new. A database whose schema is newer than the
// binary is refused.
//
//   - transactions: seq is the rowid (INTEGER PRIMARY KEY AUTOINCREMENT), so
//     SQLite assigns it, strictly increasing and never reused; uid is UNIQUE
//     and is the key the other tables reference; (principal,
//     idempotency_key) has a partial UNIQUE index (key NULL when absent:
//     a key is scoped per principal, migration 0014), which Enqueue's
//     insert uses as its ON CONFLICT target. Indexes: (state, queue, seq) for a queue's FIFO
//     (Waiting), WaitingQueues (a skip-scan of the WAITING range: one seek per
//     waiting queue), List by queue (the five state ranges merged, each read
//     for at most LIMIT rows), QueueStats and the names of Queues; (state,
//     seq) for Active and List by state. Leading with state instead of queue
//     serves WaitingQueues without a second per-queue index, which matters
//     because each per-queue index costs a page write per queue per commit.
//   - attempts: PRIMARY KEY (uid, n), upserted.
//   - queues: one row per queue ever bound; a queue without one is FREE.
//   - senders: PRIMARY KEY id, upserted.
//   - history: id AUTOINCREMENT gives the order written; index (uid, id).
//     It is also the change feed (Changes, changes.go): a change's cursor
//     is its row's id, zero-padded. One writer commits, taking ids in
//     order, so a reader past id n never sees a lower id commit later.
//     Retention deletes a pruned record's history with it: a cursor older
//     than the oldest row kept reads from the oldest kept.
//   - processors: PRIMARY KEY name, upserted.
//   - proc_batches: PRIMARY KEY (processor, id), upserted, never deleted
//     (done ones stay). Indexes: (processor, priority, state, key, id) for a
//     priority queue in queue order (QueuedBatches) and, covering, for
//     ProcessorCounts; partial (processor, priority, key, id) WHERE state <>
//     'done' for the snapshot, which thus never reads the done batches.
//   - proc_callbacks: PRIMARY KEY (processor, seq), upserted; key (the
//     receiver's Idempotency-Key) is UNIQUE, NULL when empty; partial index
//     (processor, seq) WHERE state = 'pending' for the snapshot.
//   - cursors: PRIMARY KEY name, upserted.
//   - replica_sets (0008): PRIMARY KEY queue, upserted unless the version
//     held is newer; secondaries a JSON array.
//   - replication_log (0008): PRIMARY KEY (queue, clock), WITHOUT ROWID;
//     prev, payload and hash BLOBs. The key serves LogHead (the last clock),
//     LogAfter and LogHeads (a skip-scan of the queues).
//   - leases (0009, store.LeaseStore, leases.go): PRIMARY KEY name, WITHOUT
//     ROWID; indexes on holder (renew, release) and token (the next token,
//     MAX(token)+1). Expiry is on Options.Now. Rows are never deleted (a
//     released lease expires, expires_at 0), so a token taken is above
//     every token the lease had. The lease writes are committer requests.
//     ActiveQueues is a skip-scan of the WAITING, REVISION and RETRY
//     ranges of (state, queue, seq).
//
// Times are unix nanoseconds (INTEGER), read back in UTC; a zero time is
// NULL. Durations are nanoseconds. uint64 values are stored as the int64
// with the same bits. JSON bodies are BLOBs, NULL when empty.
//
// # Invariants
//
//   - An acknowledged Enqueue, Apply or ApplyProcessor is committed; a
//     failed one wrote nothing (each call is atomic, even inside a group).
//   - ApplyProcessor refuses records with an empty key (Processor.Name,
//     ProcBatch.Processor or ID, Callback.Processor, Cursor.Name), a Callback
//     Seq below 1, an unknown batch or callback state, and a callback Key
//     that another callback holds.
//   - An idempotency key maps to one uid forever: a known key, in the store or
//     earlier in the same group, returns the existing record with
//     Created=false and writes nothing.
//   - History of a transaction starts with its creation, "" → WAITING at
//     CreatedAt (note "enqueued"); that entry is made from the transactions
//     row rather than written, so Enqueue inserts one row per transaction.
//   - Apply with a TxUpdate of an unknown uid fails with store.ErrNotFound and
//     changes nothing.
//   - Seq orders transactions by acceptance store-wide; FIFO per queue is
//     ascending Seq.
//   - A logged queue's entries commit with the records they describe, in
//     commit order, chained from clock 1; with no SetReplicaSelf or no held
//     set naming it primary, Enqueue and Apply do nothing more than without
//     replication. The committer's cache of heads and sets is never ahead
//     of the database (a rollback drops what the group wrote).
//   - Apply with a Batch.Fence (and ApplyProcessor, ApplyLeader and
//     ApplyDistseq with theirs) checks it in the group's transaction before
//     it writes (checkFence): unless each lease it names is held by its
//     holder with its token and unexpired on Options.Now, the call fails
//     with an error wrapping store.ErrFenced, writes nothing, and the rest
//     of its group goes on (no rollback: nothing was written). One writer:
//     no lease changes between the check and the commit.
package sqlite
