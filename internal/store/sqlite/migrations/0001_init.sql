-- 0001_init: the sequencer's records (seed 000).
--
-- Times are unix nanoseconds (UTC); NULL where a time may be absent.
-- uint64 values (nonce, fee, height, deadline, next_nonce) are stored as the
-- int64 with the same bits.

-- transactions: one row per accepted intent. seq is the rowid: assigned by
-- SQLite on insert, strictly increasing and, with AUTOINCREMENT, never
-- reused even if rows are deleted later. uid is the record's key (UNIQUE,
-- the parent of attempts and history).
CREATE TABLE transactions (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    uid             TEXT    NOT NULL UNIQUE,
    queue           TEXT    NOT NULL,
    type            TEXT    NOT NULL,
    data            BLOB,
    state           TEXT    NOT NULL
                    CHECK (state IN ('WAITING', 'REVISION', 'RETRY', 'DONE', 'FAILED')),
    retries         INTEGER NOT NULL DEFAULT 0,
    idempotency_key TEXT,
    result          BLOB,
    error           TEXT    NOT NULL DEFAULT '',
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
);

-- An idempotency key maps to one transaction forever; NULL (no key) is not
-- indexed.
CREATE UNIQUE INDEX transactions_idempotency_key
    ON transactions (idempotency_key) WHERE idempotency_key IS NOT NULL;
-- One index serves a queue's FIFO (Waiting), WaitingQueues (a skip-scan over
-- state = 'WAITING'), Active, List by queue (merging the five state ranges),
-- QueueStats and the queue names of Queues. Leading with state rather than
-- queue lets WaitingQueues touch only queues with WAITING rows, without a
-- second per-queue index to maintain on every insert.
CREATE INDEX transactions_state_queue_seq ON transactions (state, queue, seq);
-- List by state in Seq order. New rows land at its end (WAITING sorts last).
CREATE INDEX transactions_state_seq ON transactions (state, seq);

-- attempts: one row per dispatch of a transaction, upserted by (uid, n).
CREATE TABLE attempts (
    uid     TEXT    NOT NULL REFERENCES transactions (uid),
    n       INTEGER NOT NULL,
    sender  TEXT    NOT NULL DEFAULT '',
    nonce   INTEGER NOT NULL DEFAULT 0,
    fee     INTEGER NOT NULL DEFAULT 0,
    hash    TEXT    NOT NULL DEFAULT '',
    at      INTEGER,
    outcome TEXT    NOT NULL DEFAULT '',
    error   TEXT    NOT NULL DEFAULT '',
    height  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (uid, n)
) WITHOUT ROWID;

-- queues: a queue's binding to a sender. A queue without a row is FREE.
CREATE TABLE queues (
    name        TEXT    PRIMARY KEY NOT NULL,
    state       TEXT    NOT NULL
                CHECK (state IN ('FREE', 'BLOCKED', 'INCLUSION', 'WAITING_INCLUSION', 'RETRY', 'DELAY')),
    sender      TEXT    NOT NULL DEFAULT '',
    tx_uid      TEXT    REFERENCES transactions (uid),
    delay_until INTEGER,
    deadline    INTEGER NOT NULL DEFAULT 0,
    updated_at  INTEGER
);

-- senders: signing accounts and the queue holding each.
CREATE TABLE senders (
    id         TEXT    PRIMARY KEY NOT NULL,
    worker     TEXT    NOT NULL DEFAULT '',
    queue      TEXT    NOT NULL DEFAULT '',
    next_nonce INTEGER NOT NULL DEFAULT 0,
    updated_at INTEGER
);

-- history: state transitions, in the order written (id).
CREATE TABLE history (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    uid        TEXT    NOT NULL REFERENCES transactions (uid),
    at         INTEGER NOT NULL,
    from_state TEXT    NOT NULL DEFAULT '',
    to_state   TEXT    NOT NULL,
    binding    TEXT    NOT NULL DEFAULT '',
    note       TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX history_uid_id ON history (uid, id);
