-- 0005_distseq: the distributed sequencer's records (seed 003,
-- store.DistseqStore): privacy groups and their members, the sender's
-- intents, the coordinator's dispatches, the outgoing distributions, the
-- states this node holds, the ids of distributions received, and the
-- node's chain cursor for the distributed sequencer.
--
-- As in the earlier migrations: times are unix nanoseconds (UTC), NULL for
-- a zero time; uint64 values are stored as the int64 with the same bits;
-- payloads are BLOBs, NULL when empty. Nothing is deleted but a group's
-- members, which a replaced group rewrites.

-- distseq_groups: one row per privacy group, by its contract address.
CREATE TABLE distseq_groups (
    contract  TEXT    PRIMARY KEY NOT NULL,
    threshold INTEGER NOT NULL DEFAULT 0,
    height    INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

-- distseq_members: a group's committee, idx its place in the committee.
CREATE TABLE distseq_members (
    contract   TEXT    NOT NULL,
    idx        INTEGER NOT NULL,
    id         TEXT    NOT NULL,
    public_key TEXT    NOT NULL DEFAULT '',
    PRIMARY KEY (contract, idx)
) WITHOUT ROWID;

-- distseq_intents: the sender's intents. idempotency_key is NULL when
-- empty and UNIQUE otherwise: an upsert that would give a key to a second
-- tx_id fails (ApplyDistseq answers store.ErrDuplicateKey).
CREATE TABLE distseq_intents (
    tx_id           TEXT    PRIMARY KEY NOT NULL,
    contract        TEXT    NOT NULL DEFAULT '',
    idempotency_key TEXT,
    payload         BLOB,
    status          TEXT    NOT NULL CHECK (status IN ('pending', 'confirmed', 'reverted')),
    reason          TEXT    NOT NULL DEFAULT '',
    attempts        INTEGER NOT NULL DEFAULT 0,
    created_at      INTEGER,
    updated_at      INTEGER
);
CREATE UNIQUE INDEX distseq_intents_key ON distseq_intents (idempotency_key)
    WHERE idempotency_key IS NOT NULL;
-- DistseqIntents: all, by status, by contract (and status), each in
-- (created_at, tx_id) order. A contract alone reads the contract's range of
-- the third index and sorts it.
CREATE INDEX distseq_intents_created ON distseq_intents (created_at, tx_id);
CREATE INDEX distseq_intents_status ON distseq_intents (status, created_at, tx_id);
CREATE INDEX distseq_intents_contract ON distseq_intents (contract, status, created_at, tx_id);

-- distseq_dispatches: the coordinator's dispatches, by tx_id.
CREATE TABLE distseq_dispatches (
    tx_id         TEXT    PRIMARY KEY NOT NULL,
    contract      TEXT    NOT NULL DEFAULT '',
    sender        TEXT    NOT NULL DEFAULT '',
    delegation_id TEXT    NOT NULL DEFAULT '',
    payload       BLOB,
    height        INTEGER NOT NULL DEFAULT 0,
    status        TEXT    NOT NULL CHECK (status IN ('dispatched', 'confirmed', 'reverted')),
    created_at    INTEGER,
    updated_at    INTEGER
);
-- The open dispatches, in order, for a restart: the final ones, which only
-- grow, are never read.
CREATE INDEX distseq_dispatches_open ON distseq_dispatches (created_at, tx_id)
    WHERE status = 'dispatched';

-- distseq_outbox: the sender side of assured delivery, by distribution id.
CREATE TABLE distseq_outbox (
    id         TEXT    PRIMARY KEY NOT NULL,
    contract   TEXT    NOT NULL DEFAULT '',
    recipient  TEXT    NOT NULL DEFAULT '',
    payload    BLOB,
    acked      INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER,
    updated_at INTEGER
);
-- The distributions still to resend, in order.
CREATE INDEX distseq_outbox_pending ON distseq_outbox (created_at, id) WHERE acked = 0;

-- distseq_states: the states this node holds, by (contract, id). data is
-- written once (a row without data, left by a spend seen first, takes it
-- later); an upsert only ever sets spent, never clears it.
CREATE TABLE distseq_states (
    contract   TEXT    NOT NULL,
    id         TEXT    NOT NULL,
    data       BLOB,
    created_by TEXT    NOT NULL DEFAULT '',
    spent      INTEGER NOT NULL DEFAULT 0,
    spent_by   TEXT    NOT NULL DEFAULT '',
    height     INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (contract, id)
) WITHOUT ROWID;
-- A contract's states in (height, id) order; the unspent ones alone.
CREATE INDEX distseq_states_height ON distseq_states (contract, height, id);
CREATE INDEX distseq_states_unspent ON distseq_states (contract, height, id) WHERE spent = 0;

-- distseq_received: the receiver side of assured delivery: the ids of the
-- distributions received, for dedup.
CREATE TABLE distseq_received (
    id TEXT PRIMARY KEY NOT NULL
) WITHOUT ROWID;

-- distseq_cursor: the node's chain cursor, one row at most.
CREATE TABLE distseq_cursor (
    k     INTEGER PRIMARY KEY NOT NULL CHECK (k = 0),
    value INTEGER NOT NULL
);
