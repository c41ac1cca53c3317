-- 0010_hot_writes: in PostgreSQL, the hot tables' fillfactor and its
-- foreign keys to transactions replaced by Apply's own check. SQLite keeps
-- its foreign keys (a check is an index probe, with no lock to write); this
-- version is kept so that both stores number their migrations alike.
SELECT 1;
