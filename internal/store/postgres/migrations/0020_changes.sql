-- 0020_changes: the change feed (issue 29): one row per state transition,
-- beside the history column of its transaction (0012), read in commit
-- order by GET /v1/changes.
--
-- xid is the writing transaction's id, id the row's order within it. Ids
-- of a sequence are not committed in id order when several nodes write,
-- so a reader orders and resumes by (xid, id) and reads only the rows of
-- transactions older than its snapshot's xmin: every transaction that
-- could still commit has an xid at least that xmin, so no row can appear
-- behind a cursor once handed out (changes.go).
--
-- The feed begins with this migration: transitions written before it
-- stay in their transactions' history only.
CREATE TABLE changes (
    xid        xid8   NOT NULL DEFAULT pg_current_xact_id(),
    id         BIGINT GENERATED ALWAYS AS IDENTITY,
    uid        TEXT   NOT NULL,
    queue      TEXT   NOT NULL,
    from_state TEXT   NOT NULL,
    to_state   TEXT   NOT NULL,
    at         BIGINT NOT NULL,
    note       TEXT   NOT NULL DEFAULT '',
    PRIMARY KEY (xid, id)
);
-- A queue's feed (GET /v1/changes?queue=, ordo tx send --wait).
CREATE INDEX changes_queue ON changes (queue, xid, id);
