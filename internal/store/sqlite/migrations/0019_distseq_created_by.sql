-- 0019_distseq_created_by: a contract's states by the transaction that
-- created them (a parked intent's sender reads whether a creator it
-- counted on confirmed without the state it granted a spend of).
CREATE INDEX distseq_states_created_by ON distseq_states (contract, created_by, id);
