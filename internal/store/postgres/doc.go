// Package postgres is the PostgreSQL implementation of the node's store
// (issue 13), on pgx v5 (a pgxpool): store.Store (the sequencer's records,
// seed 000), store.ProcessorStore, store.LeaderStore, store.DistseqStore,
// store.JobStore (the kernel's job queue, issue 12), store.ChainStore,
// store.LeaseStore, store.EnqueueWatcher and store.Pruner, each in files of
// its own on the base below. store.ReplicaStore is not implemented:
// replica sets are refused on PostgreSQL (0008's tables stay empty).
//
// # Files
//
// postgres.go (Open, Options, Close, inTx and the value helpers),
// migrate.go (the migrations), committer.go (the group commit and the
// write helper every engine's Apply is built on), store_write.go and
// store_read.go (store.Store), processor*.go, leader*.go, distseq*.go
// (the engines' stores), jobs*.go (store.JobStore), chainid.go
// (store.ChainStore), leases*.go (store.LeaseStore, the fence,
// store.EnqueueWatcher), retention.go (store.Pruner), history.go (the history column).
//
// # Durability and concurrency
//
// synchronous_commit is left on (PostgreSQL's default, never lowered by
// this package): a commit has been flushed to the server's WAL when Enqueue,
// Apply or ApplyJobs returns (durable before acknowledged). The server's
// fsync must be on as well (the test harness's is).
//
// Writes go through one committer goroutine, as SQLite's: Enqueue, Apply
// and ApplyJobs queue a request and wait for it (or for their ctx). The
// committer takes every request already queued, up to Options.MaxGroup
// records, runs them back to back in one transaction on a pooled
// connection, commits once and wakes each caller. Each request writes its
// rows with one multi-row statement per kind of row (unnest of arrays;
// Apply's statements go in one pgx.Batch). A request refused on its own
// account (a constraint, an unknown uid) rolls the transaction back and
// the group runs again without it: each call stays atomic. A request whose
// ctx ended before its group starts is dropped; a caller whose ctx ends
// while it waits gets ctx.Err(), and its request may still commit.
// StartApply (store.Pipeliner) queues a batch without waiting; one chained
// to a request that failed (dropped, refused, or failed so in turn) is
// failed with store.ErrEarlierFailed, in its group's order, never run.
//
// A group that enqueues first takes pg_advisory_xact_lock(seqLockKey):
// groups that create transactions commit one at a time across every store
// open on the database (several nodes), so seq is assigned in commit order
// and a reader never sees a smaller seq appear after a larger one. Reads
// run on the pool; a read of several queries runs in one read-only
// REPEATABLE READ transaction (one snapshot).
//
// # Schema
//
// Migrations are embedded (migrations/NNNN_name.sql, numbered as SQLite's:
// 0002 is empty here, its index being in 0001), applied in order on Open,
// each in a transaction with its row in schema_migrations, under the
// session advisory lock migrateLockKey, so several nodes opening one
// database at once apply each once. A database whose schema is newer than
// the binary is refused. Tables and indexes mirror SQLite's, with these
// types: times are unix nanoseconds in BIGINT (UTC; NULL for a zero time),
// not TIMESTAMPTZ, which keeps microseconds only; uint64 values are the
// BIGINT with the same bits; JSON bodies are BYTEA, kept byte for byte
// (NULL when empty), not JSONB, which would rewrite them; text keys that
// are ordered or ranged over are COLLATE "C" (byte order, as SQLite's,
// whatever the database's locale). transactions.seq is an identity column.
// Where the schemas part: since migration 0012 a transaction's history is
// a column of its row (transactions.history, JSON lines: history.go), not
// SQLite's history table, so an intent's transitions cost no row of their
// own and reading them is reading one row.
//
// # Invariants
//
//   - An acknowledged Enqueue, Apply or ApplyJobs is committed; a failed one
//     wrote nothing (each call is atomic, even inside a group).
//   - An idempotency key of a principal maps to one uid forever: a known
//     (principal, key), in the store or earlier in the same group or call,
//     returns the existing record with Created=false and writes nothing; the
//     same key under another principal is another transaction (migration
//     0014).
//   - Seq orders transactions by acceptance store-wide, in commit order,
//     across every store on the database; FIFO per queue is ascending Seq.
//   - The notifier (SetOnEnqueued) is called by the committer with the
//     transactions each commit created, in Seq order, before their callers
//     are woken; a known key is not reported.
//   - History of a transaction starts with its creation, "" → WAITING at
//     CreatedAt (note "enqueued"), made from the transactions row; the
//     entries after it are transactions.history's lines, in the order
//     written: a batch appends each uid's entries in its own order, in the
//     UPDATE that writes the transaction or in one of their own.
//   - Apply with a TxUpdate of an unknown uid (attempt-only or not), or a
//     history entry or queue binding of one, fails with store.ErrNotFound
//     and changes nothing; within a batch the last write of a key (uid,
//     (uid, n), queue, sender) wins. Since migration 0010 no foreign key
//     checks it: the UPDATEs of transactions (its fields, its history)
//     count the rows they matched, and one read counts the other uids the
//     batch names (otherParents), which costs no row lock on the parents. Transactions are never deleted, so
//     the check cannot be overtaken.
//
// # The other engines' stores
//
// store.ProcessorStore (processor*.go), store.LeaderStore (leader*.go) and
// store.DistseqStore (distseq*.go) are built on the same base: each Apply
// (ApplyProcessor, ApplyLeader, ApplyDistseq) is one committer request
// (write), atomic on its own inside a group, its statements (one multi-row
// unnest upsert per kind of record and per run of rows whose keys are
// distinct, engRuns) sent in one pgx.Batch, rebuilt on a rerun (engBatch).
// Records are written kind by kind in the call's order, as SQLite's, so the
// later record of a key wins, and a unique key (a callback's Key, an
// event's Walk, an intent's idempotency key) given up earlier in a call
// may be taken later in it; one held twice is refused, wrapping
// store.ErrWalkIndexed (walk) or store.ErrDuplicateKey (intent). Their
// reads of several queries run in one snapshot. The distseq lists ordered
// by created_at put a zero time (NULL) last, where SQLite puts it first.
//
// # Several nodes: leases, the fence, intake notifications
//
// store.LeaseStore (leases.go) keeps the leases table (0009: name, holder,
// token, expires_at; an index on holder). Expiry is on the database's
// clock (clock_timestamp() in unix nanoseconds), never a node's. A token
// taken comes from the sequence lease_tokens, so it is above every token
// any lease had; a renewal keeps it. AcquireLeases is one transaction: the
// database's now, FOR UPDATE on the rows it takes from another holder or
// after an expiry, one INSERT … ON CONFLICT DO UPDATE … WHERE (holder's
// own or expired) RETURNING. RenewLeases is one UPDATE; a released lease
// expires (expires_at 0) and keeps its row; no row is deleted.
// ActiveQueues is a skip-scan of the WAITING, REVISION and RETRY ranges of
// (state, queue, seq).
//
// Apply with a Batch.Fence (and ApplyProcessor, ApplyLeader and
// ApplyDistseq with theirs: fenced) first reads the fence's leases FOR KEY SHARE in
// the group's transaction (checkFence): unless each is held by the fence's
// holder with its token and unexpired at that read, the request fails with
// an error wrapping store.ErrFenced and the group runs again without it.
// The lock holds until the group commits: a takeover (which takes FOR
// UPDATE) waits for the write's commit, and a write checked after a
// takeover's lock waits and then sees the new holder. A renewal (FOR NO
// KEY UPDATE) does not conflict with FOR KEY SHARE: a node's renewals
// never wait for its own writes.
//
// A group that created transactions calls pg_notify('ordo_enqueued',
// queue) once per queue, before its commit (leases_watch.go); PostgreSQL
// delivers the notifications at the commit. WatchEnqueued
// (store.EnqueueWatcher) LISTENs on a connection of its own, outside the
// pool, reconnects once when it drops and then returns the error;
// notifications sent while it was reconnecting are lost.
//
// The change feed (Changes, changes.go, migration 0021) is a table of its
// own, one row per Apply that has history entries (its entries in the
// batch's order, as arrays), inserted in the batch's transaction with that
// transaction's xid (xid8, pg_current_xact_id()). A cursor names an entry
// of a row: (xid, id, k), zero-padded, so cursors compare as strings as
// they do as triples. The rule that never skips a committed change with
// several nodes writing: rows are ordered and cursored by (xid, id), and
// a read returns only rows whose xid is below
// pg_snapshot_xmin(pg_current_snapshot()).
// Every transaction that may still commit has an xid at least that xmin,
// or none yet (it will take a larger one), so no row can later appear
// behind a cursor already handed out. A change is read once every older
// write transaction of the server has ended: a long one delays the feed.
// Retention prunes the feed by age, its oldest rows first, a row once its
// newest entry is old enough (retention.go): a cursor older than the
// oldest row kept reads from the oldest kept.
//
//   - A fenced Apply changes nothing, fails with store.ErrFenced, and does
//     not undo the requests of its group.
//   - A lease's token never falls: it rises on every takeover, by another
//     holder or after an expiry, and stays on a renewal.
//   - A write whose fence passed commits before any takeover of its leases.
package postgres
