-- 0011_history_key: in PostgreSQL, history keyed by (uid, id) instead of
-- by id with an index on (uid, id). In SQLite id is the rowid, which costs
-- no index of its own; this version is kept so that both stores number
-- their migrations alike.
SELECT 1;
