-- 0003_processor: the processor engine's records (seed 002) and the kernel's
-- event cursors (store.ProcessorStore).
--
-- As in 0001: times are unix nanoseconds (UTC), NULL for a zero time;
-- durations are nanoseconds; uint64 values are stored as the int64 with the
-- same bits; JSON bodies are BLOBs, NULL when empty. Every row is upserted by
-- its key; nothing is deleted. There are no foreign keys: the processor core
-- writes a processor before its batches, and the store checks nothing it
-- does not need to.

-- processors: one row per processor, with its settings and counters.
CREATE TABLE processors (
    name          TEXT    PRIMARY KEY NOT NULL,
    owner         TEXT    NOT NULL DEFAULT '',
    callback_url  TEXT    NOT NULL DEFAULT '',
    auto_tick     INTEGER NOT NULL DEFAULT 0,
    lanes         INTEGER NOT NULL DEFAULT 0,
    paused        INTEGER NOT NULL DEFAULT 0,
    next_id       INTEGER NOT NULL DEFAULT 0,
    next_callback INTEGER NOT NULL DEFAULT 0,
    created_at    INTEGER,
    updated_at    INTEGER
);

-- proc_batches: a processor's batches in every state, done included.
CREATE TABLE proc_batches (
    processor  TEXT    NOT NULL,
    id         TEXT    NOT NULL,
    priority   TEXT    NOT NULL DEFAULT '',
    state      TEXT    NOT NULL
               CHECK (state IN ('queued', 'executing', 'pending', 'done')),
    key        INTEGER NOT NULL DEFAULT 0,
    body       BLOB,
    created_at INTEGER,
    updated_at INTEGER,
    PRIMARY KEY (processor, id)
);
-- One index serves a priority queue in queue order (QueuedBatches: the
-- 'queued' range of (processor, priority), ascending key, id breaking ties)
-- and ProcessorCounts (it covers processor, priority and state: the count
-- reads the processor's range of the index, never the table).
CREATE INDEX proc_batches_queue ON proc_batches (processor, priority, state, key, id);
-- The batches not done, in the snapshot's order: a restart reads them
-- without scanning the done ones, which only grow.
CREATE INDEX proc_batches_live ON proc_batches (processor, priority, key, id) WHERE state <> 'done';

-- proc_callbacks: batch outcomes to report, in Seq order per processor. key
-- (the receiver's Idempotency-Key) belongs to one callback: NULL when empty.
CREATE TABLE proc_callbacks (
    processor    TEXT    NOT NULL,
    seq          INTEGER NOT NULL,
    batch_id     TEXT    NOT NULL DEFAULT '',
    key          TEXT    UNIQUE,
    body         BLOB,
    state        TEXT    NOT NULL
                 CHECK (state IN ('pending', 'delivered', 'stored')),
    attempts     INTEGER NOT NULL DEFAULT 0,
    next_at      INTEGER,
    last_error   TEXT    NOT NULL DEFAULT '',
    delivered_at INTEGER,
    created_at   INTEGER,
    PRIMARY KEY (processor, seq)
);
-- The callbacks still to deliver, for the snapshot a restart reads.
CREATE INDEX proc_callbacks_pending ON proc_callbacks (processor, seq) WHERE state = 'pending';

-- cursors: a named position in a chain's event stream.
CREATE TABLE cursors (
    name  TEXT    PRIMARY KEY NOT NULL,
    value INTEGER NOT NULL DEFAULT 0
);
