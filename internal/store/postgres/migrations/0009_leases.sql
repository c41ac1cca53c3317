-- 0009_leases: leases of the nodes sharing a database (issue 13;
-- store.LeaseStore), as SQLite's 0009. Types as in 0001; expires_at is on
-- the database's clock (clock_timestamp()), never a node's.
--
-- Tokens come from lease_tokens: a token taken is above every token any
-- lease had. A row is never deleted by the store: a released lease keeps
-- its holder and token and expires (expires_at 0).
CREATE SEQUENCE lease_tokens;

-- leases: one row per lease name ("queue/…", "sender/…", "node/…"). A
-- lease is held while expires_at is after the database's now.
CREATE TABLE leases (
    name       TEXT    COLLATE "C" PRIMARY KEY NOT NULL,
    holder     TEXT    COLLATE "C" NOT NULL,
    token      BIGINT  NOT NULL,
    expires_at BIGINT  NOT NULL
);
-- RenewLeases and ReleaseLeases of every lease of a holder.
CREATE INDEX leases_holder ON leases (holder);
