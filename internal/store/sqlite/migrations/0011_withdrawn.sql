-- 0011: withdrawn before any release (in PostgreSQL it keyed history by
-- (uid, id); here it was a placeholder). The version stays taken so that
-- both stores number their migrations alike.
SELECT 1;
