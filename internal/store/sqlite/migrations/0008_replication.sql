-- 0008_replication: the replication of sequencer queues (issue 12;
-- store.ReplicaStore): the replica sets this node holds, and each queue's
-- replication log (internal/replog), written on a primary in the same
-- transaction as the records it describes, applied on a secondary.
--
-- As in the earlier migrations: uint64 values (version, clock) are stored
-- as the int64 with the same bits. Plain SQL that ports to PostgreSQL.

-- replica_sets: a queue's set as last read from the chain (upserted; an
-- older version never replaces a newer one). secondaries is a JSON array of
-- node ids.
CREATE TABLE replica_sets (
    queue        TEXT    PRIMARY KEY NOT NULL,
    primary_node TEXT    NOT NULL,
    secondaries  BLOB    NOT NULL,
    version      INTEGER NOT NULL
);

-- replication_log: a queue's log, one row per entry, clock from 1 without a
-- gap. The primary key serves the head (the last clock of a queue), the
-- entries after a clock, and the skip-scan of the queues with a log.
CREATE TABLE replication_log (
    queue   TEXT    NOT NULL,
    clock   INTEGER NOT NULL,
    version INTEGER NOT NULL,
    prev    BLOB    NOT NULL,
    payload BLOB    NOT NULL,
    hash    BLOB    NOT NULL,
    PRIMARY KEY (queue, clock)
) WITHOUT ROWID;
