-- 0021_changes_batch: the change feed (0020) as one row per Apply that
-- has history entries, instead of one per state transition (issue 31):
-- a third of the rows and index entries, and one join on transactions
-- per batch.
--
-- A row holds its batch's entries in order, as parallel arrays (entry k
-- is uids[k], queues[k], froms[k], tos[k], ats[k], notes[k]); at is the
-- newest entry's time, for retention. Rows are ordered and read as in
-- 0020: by (xid, id), below the snapshot's xmin (changes.go). A cursor
-- names an entry of a row: (xid, id, k).
--
-- The queue filter reads the rows after the cursor whose queues hold the
-- queue: no index of its own (changes.go says why).
--
-- The feed's old rows are dropped: a reader resuming from a cursor of
-- 0020 (xid, id) resumes after that row, and reads the feed from this
-- migration on; the transitions before it stay in their records'
-- history.
DROP TABLE changes;
CREATE TABLE changes (
    xid    xid8     NOT NULL DEFAULT pg_current_xact_id(),
    id     BIGINT   GENERATED ALWAYS AS IDENTITY,
    at     BIGINT   NOT NULL,
    uids   TEXT[]   NOT NULL,
    queues TEXT[]   NOT NULL,
    froms  TEXT[]   NOT NULL,
    tos    TEXT[]   NOT NULL,
    ats    BIGINT[] NOT NULL,
    notes  TEXT[]   NOT NULL,
    PRIMARY KEY (xid, id)
);
