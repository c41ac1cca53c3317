-- 0007_jobs: the kernel's durable job queue (issue 12; store.JobStore):
-- jobs of a kind with JSON arguments on named queues, the job queues of
-- seed 004 run on it.
--
-- As in the earlier migrations: times are unix nanoseconds (UTC), NULL for
-- a zero time, except run_at, which the due-jobs read orders by and is
-- never NULL (0 for a zero time); JSON bodies are BLOBs, NULL when empty.
-- Plain SQL that ports to PostgreSQL as it stands (partial indexes
-- included); nothing is deleted.

-- jobs: one row per job, in every state. id is chosen by the inserter.
-- unique_key is NULL when the job has none; errors is a JSON array of the
-- last failed attempts ({attempt, at, error}).
CREATE TABLE jobs (
    id           INTEGER PRIMARY KEY NOT NULL,
    queue        TEXT    NOT NULL,
    kind         TEXT    NOT NULL,
    args         BLOB,
    unique_key   TEXT,
    state        TEXT    NOT NULL
                 CHECK (state IN ('available', 'scheduled', 'running', 'retryable',
                                  'completed', 'dead', 'cancelled')),
    attempt      INTEGER NOT NULL DEFAULT 0,
    max_attempts INTEGER NOT NULL DEFAULT 0,
    run_at       INTEGER NOT NULL DEFAULT 0,
    errors       BLOB,
    created_at   INTEGER,
    updated_at   INTEGER,
    finalized_at INTEGER
);
-- The due jobs of a queue, by run_at then id (DueJobs): only the jobs that
-- wait to run are in it.
CREATE INDEX jobs_due ON jobs (queue, run_at, id)
    WHERE state IN ('available', 'scheduled', 'retryable');
-- A unique key is held by at most one live job: the database itself refuses
-- a second (ApplyJobs answers store.ErrUniqueLive for an update).
CREATE UNIQUE INDEX jobs_unique_live ON jobs (unique_key)
    WHERE unique_key IS NOT NULL AND state IN ('available', 'scheduled', 'running', 'retryable');
-- Every job of a unique key, for JobByUniqueKey once no live job holds it.
CREATE INDEX jobs_unique_key ON jobs (unique_key, created_at, id) WHERE unique_key IS NOT NULL;
-- Counts per queue and state (covering) and Jobs by queue and state.
CREATE INDEX jobs_queue_state ON jobs (queue, state, id);
-- The live jobs a restart rebuilds the core from, in id order.
CREATE INDEX jobs_live ON jobs (id) WHERE state IN ('available', 'scheduled', 'running', 'retryable');
