-- 0017_attempt_gas: as SQLite's 0017 (an attempt's gas limit; 0 on devchain).
ALTER TABLE attempts ADD COLUMN gas BIGINT NOT NULL DEFAULT 0;
