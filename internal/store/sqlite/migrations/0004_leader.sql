-- 0004_leader: the leader engine's records (seed 001): the indexer's event
-- records and the channels (store.LeaderStore). Its cursors are rows of
-- 0003's cursors table.
--
-- As in 0001 and 0003: times are unix nanoseconds (UTC), NULL for a zero
-- time; uint64 values are stored as the int64 with the same bits; JSON
-- bodies are BLOBs, NULL when empty. Every row is upserted by its key;
-- nothing is deleted.

-- leader_events: one row per indexed RequestWalkExecution event, in every
-- status, ended ones included. id is the event's chain cursor (the rowid);
-- walk is UNIQUE: a walk is indexed once, and an upsert that would give it
-- to a second id fails (ApplyLeader answers store.ErrWalkIndexed).
CREATE TABLE leader_events (
    id         INTEGER PRIMARY KEY NOT NULL,
    walk       TEXT    NOT NULL UNIQUE,
    tool       TEXT    NOT NULL DEFAULT '',
    digest     TEXT    NOT NULL DEFAULT '',
    json       BLOB,
    height     INTEGER NOT NULL DEFAULT 0,
    status     TEXT    NOT NULL
               CHECK (status IN ('Queued', 'Active', 'Successful', 'Dead')),
    retried    INTEGER NOT NULL DEFAULT 0,
    error      TEXT    NOT NULL DEFAULT '',
    phase      TEXT    NOT NULL DEFAULT '',
    ok         INTEGER NOT NULL DEFAULT 0,
    output     BLOB,
    channel    INTEGER NOT NULL DEFAULT -1,
    result_uid TEXT    NOT NULL DEFAULT '',
    reports    INTEGER NOT NULL DEFAULT 0,
    active_at  INTEGER,
    created_at INTEGER,
    updated_at INTEGER
);
-- A status's records in id order (LeaderEvents by status) and, covering,
-- LeaderCounts.
CREATE INDEX leader_events_status ON leader_events (status, id);
-- The records still in play, in id order, for the snapshot a restart reads:
-- it never reads the ended ones, which only grow.
CREATE INDEX leader_events_live ON leader_events (id) WHERE status IN ('Queued', 'Active');

-- leader_channels: one row per channel, by its index.
CREATE TABLE leader_channels (
    idx           INTEGER PRIMARY KEY NOT NULL,
    account       TEXT    NOT NULL DEFAULT '',
    blocked_until INTEGER,
    last_error    TEXT    NOT NULL DEFAULT '',
    updated_at    INTEGER
);
