-- 0015_retention: finished transactions by their last update, for the
-- node's retention (PruneFinished: the oldest DONE and FAILED first, a
-- batch at a time, without reading the young ones each time).
CREATE INDEX IF NOT EXISTS transactions_finished ON transactions (updated_at, seq)
    WHERE state IN ('DONE', 'FAILED');
