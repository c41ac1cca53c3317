-- 0016_distseq_granted: a parked intent reverts only when no dispatch it
-- granted can still land. granted is JSON: for each granted assembly that
-- may still land, the ids of the states it spends; NULL for none.
ALTER TABLE distseq_intents ADD COLUMN granted BLOB;
