-- 0003_processor: the processor engine's records (seed 002) and the kernel's
-- event cursors (store.ProcessorStore). Types as in 0001. Every row is
-- upserted by its key; nothing is deleted; no foreign keys.

-- processors: one row per processor, with its settings and counters.
CREATE TABLE processors (
    name          TEXT    COLLATE "C" PRIMARY KEY NOT NULL,
    owner         TEXT    NOT NULL DEFAULT '',
    callback_url  TEXT    NOT NULL DEFAULT '',
    auto_tick     BIGINT  NOT NULL DEFAULT 0,
    lanes         BIGINT  NOT NULL DEFAULT 0,
    paused        BIGINT  NOT NULL DEFAULT 0,
    next_id       BIGINT  NOT NULL DEFAULT 0,
    next_callback BIGINT  NOT NULL DEFAULT 0,
    created_at    BIGINT,
    updated_at    BIGINT
);

-- proc_batches: a processor's batches in every state, done included.
CREATE TABLE proc_batches (
    processor  TEXT    COLLATE "C" NOT NULL,
    id         TEXT    COLLATE "C" NOT NULL,
    priority   TEXT    COLLATE "C" NOT NULL DEFAULT '',
    state      TEXT    NOT NULL
               CHECK (state IN ('queued', 'executing', 'pending', 'done')),
    key        BIGINT  NOT NULL DEFAULT 0,
    body       BYTEA,
    created_at BIGINT,
    updated_at BIGINT,
    PRIMARY KEY (processor, id)
);
CREATE INDEX proc_batches_queue ON proc_batches (processor, priority, state, key, id);
CREATE INDEX proc_batches_live ON proc_batches (processor, priority, key, id) WHERE state <> 'done';

-- proc_callbacks: batch outcomes to report, in Seq order per processor. key
-- (the receiver's Idempotency-Key) belongs to one callback: NULL when empty.
CREATE TABLE proc_callbacks (
    processor    TEXT    COLLATE "C" NOT NULL,
    seq          BIGINT  NOT NULL,
    batch_id     TEXT    NOT NULL DEFAULT '',
    key          TEXT    UNIQUE,
    body         BYTEA,
    state        TEXT    NOT NULL
                 CHECK (state IN ('pending', 'delivered', 'stored')),
    attempts     BIGINT  NOT NULL DEFAULT 0,
    next_at      BIGINT,
    last_error   TEXT    NOT NULL DEFAULT '',
    delivered_at BIGINT,
    created_at   BIGINT,
    PRIMARY KEY (processor, seq)
);
CREATE INDEX proc_callbacks_pending ON proc_callbacks (processor, seq) WHERE state = 'pending';

-- cursors: a named position in a chain's event stream.
CREATE TABLE cursors (
    name  TEXT    COLLATE "C" PRIMARY KEY NOT NULL,
    value BIGINT  NOT NULL DEFAULT 0
);
