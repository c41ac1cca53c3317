-- 0011: withdrawn before any release (it keyed history by (uid, id)). The
-- version stays taken, here and in SQLite, so that a database that ran it
-- and one that did not reach 0012 alike: 0012 reads history's columns
-- whatever its key.
SELECT 1;
