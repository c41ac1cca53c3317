-- 0005_distseq: the distributed sequencer's records (seed 003,
-- store.DistseqStore). Types as in 0001. Nothing is deleted but a group's
-- members, which a replaced group rewrites.

CREATE TABLE distseq_groups (
    contract  TEXT    COLLATE "C" PRIMARY KEY NOT NULL,
    threshold BIGINT  NOT NULL DEFAULT 0,
    height    BIGINT  NOT NULL DEFAULT 0
);

CREATE TABLE distseq_members (
    contract   TEXT    COLLATE "C" NOT NULL,
    idx        BIGINT  NOT NULL,
    id         TEXT    NOT NULL,
    public_key TEXT    NOT NULL DEFAULT '',
    PRIMARY KEY (contract, idx)
);

-- distseq_intents: idempotency_key NULL when empty and UNIQUE otherwise
-- (ApplyDistseq answers store.ErrDuplicateKey).
CREATE TABLE distseq_intents (
    tx_id           TEXT    COLLATE "C" PRIMARY KEY NOT NULL,
    contract        TEXT    COLLATE "C" NOT NULL DEFAULT '',
    idempotency_key TEXT,
    payload         BYTEA,
    status          TEXT    NOT NULL CHECK (status IN ('pending', 'confirmed', 'reverted')),
    reason          TEXT    NOT NULL DEFAULT '',
    attempts        BIGINT  NOT NULL DEFAULT 0,
    created_at      BIGINT,
    updated_at      BIGINT
);
CREATE UNIQUE INDEX distseq_intents_key ON distseq_intents (idempotency_key)
    WHERE idempotency_key IS NOT NULL;
CREATE INDEX distseq_intents_created ON distseq_intents (created_at, tx_id);
CREATE INDEX distseq_intents_status ON distseq_intents (status, created_at, tx_id);
CREATE INDEX distseq_intents_contract ON distseq_intents (contract, status, created_at, tx_id);

CREATE TABLE distseq_dispatches (
    tx_id         TEXT    COLLATE "C" PRIMARY KEY NOT NULL,
    contract      TEXT    NOT NULL DEFAULT '',
    sender        TEXT    NOT NULL DEFAULT '',
    delegation_id TEXT    NOT NULL DEFAULT '',
    payload       BYTEA,
    height        BIGINT  NOT NULL DEFAULT 0,
    status        TEXT    NOT NULL CHECK (status IN ('dispatched', 'confirmed', 'reverted')),
    created_at    BIGINT,
    updated_at    BIGINT
);
CREATE INDEX distseq_dispatches_open ON distseq_dispatches (created_at, tx_id)
    WHERE status = 'dispatched';

CREATE TABLE distseq_outbox (
    id         TEXT    COLLATE "C" PRIMARY KEY NOT NULL,
    contract   TEXT    NOT NULL DEFAULT '',
    recipient  TEXT    NOT NULL DEFAULT '',
    payload    BYTEA,
    acked      BIGINT  NOT NULL DEFAULT 0,
    created_at BIGINT,
    updated_at BIGINT
);
CREATE INDEX distseq_outbox_pending ON distseq_outbox (created_at, id) WHERE acked = 0;

CREATE TABLE distseq_states (
    contract   TEXT    COLLATE "C" NOT NULL,
    id         TEXT    COLLATE "C" NOT NULL,
    data       BYTEA,
    created_by TEXT    NOT NULL DEFAULT '',
    spent      BIGINT  NOT NULL DEFAULT 0,
    spent_by   TEXT    NOT NULL DEFAULT '',
    height     BIGINT  NOT NULL DEFAULT 0,
    PRIMARY KEY (contract, id)
);
CREATE INDEX distseq_states_height ON distseq_states (contract, height, id);
CREATE INDEX distseq_states_unspent ON distseq_states (contract, height, id) WHERE spent = 0;

CREATE TABLE distseq_received (
    id TEXT COLLATE "C" PRIMARY KEY NOT NULL
);

CREATE TABLE distseq_cursor (
    k     BIGINT  PRIMARY KEY NOT NULL CHECK (k = 0),
    value BIGINT  NOT NULL
);
