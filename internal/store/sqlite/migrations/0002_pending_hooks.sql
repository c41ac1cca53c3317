-- Finished transactions whose hook (onSuccess/onFailure) has not reported:
-- the sequencer runs their hooks again after a restart.
CREATE INDEX IF NOT EXISTS transactions_pending_hooks ON transactions (seq)
    WHERE result IS NULL AND state IN ('DONE', 'FAILED');
