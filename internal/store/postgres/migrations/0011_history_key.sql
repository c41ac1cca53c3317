-- 0011_history_key: history keyed by (uid, id), the one order it is read
-- in (a transaction's entries, oldest first), instead of by id with a second
-- index on (uid, id): each entry written is one index entry fewer, the same
-- reads. id stays an identity, strictly increasing in the order written.
ALTER TABLE history DROP CONSTRAINT history_pkey;
ALTER TABLE history ADD PRIMARY KEY (uid, id);
DROP INDEX history_uid_id;
