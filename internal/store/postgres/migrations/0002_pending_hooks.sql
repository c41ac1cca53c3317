-- 0002_pending_hooks: in SQLite, the index of finished transactions whose
-- hook has not reported. PostgreSQL's 0001 creates it with the table; this
-- version is kept so that both stores number their migrations alike.
SELECT 1;
