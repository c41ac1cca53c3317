-- 0004_leader: the leader engine's records (seed 001): the indexer's event
-- records and the channels (store.LeaderStore). Types as in 0001. Every row
-- is upserted by its key; nothing is deleted.

-- leader_events: one row per indexed RequestWalkExecution event. id is the
-- event's chain cursor; walk is UNIQUE (ApplyLeader answers
-- store.ErrWalkIndexed for a second id).
CREATE TABLE leader_events (
    id         BIGINT  PRIMARY KEY NOT NULL,
    walk       TEXT    NOT NULL UNIQUE,
    tool       TEXT    NOT NULL DEFAULT '',
    digest     TEXT    NOT NULL DEFAULT '',
    json       BYTEA,
    height     BIGINT  NOT NULL DEFAULT 0,
    status     TEXT    NOT NULL
               CHECK (status IN ('Queued', 'Active', 'Successful', 'Dead')),
    retried    BIGINT  NOT NULL DEFAULT 0,
    error      TEXT    NOT NULL DEFAULT '',
    phase      TEXT    NOT NULL DEFAULT '',
    ok         BIGINT  NOT NULL DEFAULT 0,
    output     BYTEA,
    channel    BIGINT  NOT NULL DEFAULT -1,
    result_uid TEXT    NOT NULL DEFAULT '',
    reports    BIGINT  NOT NULL DEFAULT 0,
    active_at  BIGINT,
    created_at BIGINT,
    updated_at BIGINT
);
CREATE INDEX leader_events_status ON leader_events (status, id);
CREATE INDEX leader_events_live ON leader_events (id) WHERE status IN ('Queued', 'Active');

-- leader_channels: one row per channel, by its index.
CREATE TABLE leader_channels (
    idx           BIGINT  PRIMARY KEY NOT NULL,
    account       TEXT    NOT NULL DEFAULT '',
    blocked_until BIGINT,
    last_error    TEXT    NOT NULL DEFAULT '',
    updated_at    BIGINT
);
