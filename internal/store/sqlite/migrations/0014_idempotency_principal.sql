-- 0014_idempotency_principal: idempotency keys are scoped per principal
-- (issue 24). A key names one transaction of one principal: the same key
-- under another principal is another transaction, and never finds, nor
-- names, the first one.
--
-- principal is the name of the principal that submitted the intent: a
-- configured principal (the public intake), an engine's reserved one
-- (engine:processor, engine:leader, engine:distseq, engine:smm; a colon
-- is never in a configured name), or '' (callers that name none).
--
-- Existing rows: the engines' keys go to their engine, by the queue they
-- submit to (leader/, processor/, distseq/ and nodes/ (the node's
-- registration, by its distseq wiring), smm/replicasets), so that an
-- engine resubmitting an execution after the upgrade finds its record;
-- every other row takes '' (its principal was never recorded), and a key
-- of before the upgrade is found again only by a caller naming none.
ALTER TABLE transactions ADD COLUMN principal TEXT NOT NULL DEFAULT '';

UPDATE transactions SET principal = CASE
        WHEN substr(queue, 1, 7) = 'leader/'    THEN 'engine:leader'
        WHEN substr(queue, 1, 10) = 'processor/' THEN 'engine:processor'
        WHEN substr(queue, 1, 8) = 'distseq/'   THEN 'engine:distseq'
        WHEN substr(queue, 1, 6) = 'nodes/'     THEN 'engine:distseq'
        WHEN queue = 'smm/replicasets'          THEN 'engine:smm'
    END
    WHERE idempotency_key IS NOT NULL
      AND (substr(queue, 1, 7) = 'leader/' OR substr(queue, 1, 10) = 'processor/'
           OR substr(queue, 1, 8) = 'distseq/' OR substr(queue, 1, 6) = 'nodes/'
           OR queue = 'smm/replicasets');

DROP INDEX transactions_idempotency_key;
CREATE UNIQUE INDEX transactions_principal_key
    ON transactions (principal, idempotency_key) WHERE idempotency_key IS NOT NULL;
