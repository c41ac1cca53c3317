-- 0017_attempt_gas: an attempt's gas limit on a chain with gas (EVM): a
-- replacement at the same nonce keeps it. 0 on devchain.
ALTER TABLE attempts ADD COLUMN gas INTEGER NOT NULL DEFAULT 0;
