-- 0007_jobs: the kernel's durable job queue (issue 12; store.JobStore).
-- Types as in 0001, except run_at, never NULL (0 for a zero time), which
-- the due-jobs read orders by. Nothing is deleted.

CREATE TABLE jobs (
    id           BIGINT  PRIMARY KEY NOT NULL,
    queue        TEXT    COLLATE "C" NOT NULL,
    kind         TEXT    COLLATE "C" NOT NULL,
    args         BYTEA,
    unique_key   TEXT    COLLATE "C",
    state        TEXT    NOT NULL
                 CHECK (state IN ('available', 'scheduled', 'running', 'retryable',
                                  'completed', 'dead', 'cancelled')),
    attempt      BIGINT  NOT NULL DEFAULT 0,
    max_attempts BIGINT  NOT NULL DEFAULT 0,
    run_at       BIGINT  NOT NULL DEFAULT 0,
    errors       BYTEA,
    created_at   BIGINT,
    updated_at   BIGINT,
    finalized_at BIGINT
);
CREATE INDEX jobs_due ON jobs (queue, run_at, id)
    WHERE state IN ('available', 'scheduled', 'retryable');
-- A unique key is held by at most one live job: the database refuses a
-- second (ApplyJobs answers store.ErrUniqueLive for an update).
CREATE UNIQUE INDEX jobs_unique_live ON jobs (unique_key)
    WHERE unique_key IS NOT NULL AND state IN ('available', 'scheduled', 'running', 'retryable');
CREATE INDEX jobs_unique_key ON jobs (unique_key, created_at, id) WHERE unique_key IS NOT NULL;
CREATE INDEX jobs_queue_state ON jobs (queue, state, id);
CREATE INDEX jobs_live ON jobs (id) WHERE state IN ('available', 'scheduled', 'running', 'retryable');
