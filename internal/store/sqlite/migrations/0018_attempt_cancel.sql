-- 0018_attempt_cancel: an attempt an operator asked for to cancel its
-- nonce (a no-op in the transaction's place): 'fail' or 'requeue', what
-- becomes of the transaction once the no-op takes the nonce; '' for the
-- transaction's own attempts.
ALTER TABLE attempts ADD COLUMN cancel TEXT NOT NULL DEFAULT '';
