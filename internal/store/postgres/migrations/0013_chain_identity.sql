-- 0013: the store's own facts, one row a key. 'chain' is the identity of
-- the ledger the store belongs to (JSON {"chainId","genesis"}), written by
-- the first node that reaches its chain and never changed after.
CREATE TABLE store_meta (
	key    TEXT   PRIMARY KEY,
	value  TEXT   NOT NULL,
	set_at BIGINT NOT NULL
);
