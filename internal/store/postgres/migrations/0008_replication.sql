-- 0008_replication: the replication of sequencer queues (issue 12;
-- store.ReplicaStore), as SQLite's 0008, so that both stores number their
-- migrations alike. The PostgreSQL store does not implement ReplicaStore
-- (a replica set is refused on it): these tables stay empty.
CREATE TABLE replica_sets (
    queue        TEXT    COLLATE "C" PRIMARY KEY NOT NULL,
    primary_node TEXT    NOT NULL,
    secondaries  BYTEA   NOT NULL,
    version      BIGINT  NOT NULL
);

CREATE TABLE replication_log (
    queue   TEXT    COLLATE "C" NOT NULL,
    clock   BIGINT  NOT NULL,
    version BIGINT  NOT NULL,
    prev    BYTEA   NOT NULL,
    payload BYTEA   NOT NULL,
    hash    BYTEA   NOT NULL,
    PRIMARY KEY (queue, clock)
);
