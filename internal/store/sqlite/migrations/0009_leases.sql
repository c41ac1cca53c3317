-- 0009_leases: leases of the nodes sharing a database (issue 13;
-- store.LeaseStore): a queue's, a sender's and a node's, each held by one
-- node until it expires, with a fencing token.
--
-- As in the earlier migrations: times are unix nanoseconds (UTC). A row is
-- never deleted by the store: a released lease keeps its holder and token
-- and expires (expires_at 0), so that the next token taken, the greatest
-- token plus one (read from leases_token), is above every token a lease
-- ever had.

-- leases: one row per lease name ("queue/…", "sender/…", "node/…"). A
-- lease is held while expires_at is after the store's now.
CREATE TABLE leases (
    name       TEXT    PRIMARY KEY NOT NULL,
    holder     TEXT    NOT NULL,
    token      INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
) WITHOUT ROWID;
-- RenewLeases and ReleaseLeases of every lease of a holder.
CREATE INDEX leases_holder ON leases (holder);
-- The next token: MAX(token) + 1.
CREATE INDEX leases_token ON leases (token);
