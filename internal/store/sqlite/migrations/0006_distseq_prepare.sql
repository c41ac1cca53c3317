-- 0006_distseq_prepare: external submission (issue 11, ptx_prepareTransaction).
-- prepare is 1 for an intent the caller submits itself: its coordinator
-- assembles and endorses it and hands the prepared transaction back
-- instead of dispatching it; prepared is that transaction (the domain's
-- call), NULL until a coordinator asked leave to dispatch it.
ALTER TABLE distseq_intents ADD COLUMN prepare INTEGER NOT NULL DEFAULT 0;
ALTER TABLE distseq_intents ADD COLUMN prepared BLOB;
