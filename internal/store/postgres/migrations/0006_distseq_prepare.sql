-- 0006_distseq_prepare: external submission (issue 11,
-- ptx_prepareTransaction), as SQLite's 0006.
ALTER TABLE distseq_intents ADD COLUMN prepare BIGINT NOT NULL DEFAULT 0;
ALTER TABLE distseq_intents ADD COLUMN prepared BYTEA;
