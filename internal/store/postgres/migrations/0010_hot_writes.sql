-- 0010_hot_writes: the sequencer's write path made cheaper per intent, with
-- the same checks (measured with ordo bench burndown; see doc.go).
--
-- Room on every page of the hot tables for an updated row's new version,
-- so that PostgreSQL can write it as a heap-only tuple (HOT) when no
-- indexed column changes (an attempt's outcome, a queue's binding, a
-- sender's nonce): the new version goes on the same page and no index
-- gains an entry. At the default fillfactor (100) an inserted row fills its
-- page, and its first update can never be HOT. Pages written before this
-- migration keep their layout until they are rewritten.
ALTER TABLE transactions SET (fillfactor = 50);
ALTER TABLE attempts SET (fillfactor = 50);
ALTER TABLE queues SET (fillfactor = 50);
ALTER TABLE senders SET (fillfactor = 50);

-- The foreign keys to transactions (uid) go: PostgreSQL checks one with a
-- row lock (FOR KEY SHARE) on the parent for every attempt, history entry
-- and queue binding written, which is a write of the parent's page and a
-- WAL record each, a fifth of the server's time per intent. Transactions
-- are never deleted, so the only rule they kept is that a child names an
-- existing transaction, and Apply checks that itself, once per batch (see
-- applyBatch): the transactions it updates are counted by the UPDATE, and
-- the uids of the other children are counted in one read.
ALTER TABLE attempts DROP CONSTRAINT attempts_uid_fkey;
ALTER TABLE history DROP CONSTRAINT history_uid_fkey;
ALTER TABLE queues DROP CONSTRAINT queues_tx_uid_fkey;
