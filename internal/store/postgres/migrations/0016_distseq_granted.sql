-- 0016_distseq_granted: as SQLite's 0016 (JSON spend sets of the granted
-- dispatches that may still land; NULL for none).
ALTER TABLE distseq_intents ADD COLUMN granted BYTEA;
