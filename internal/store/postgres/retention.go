package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ordolabs/ordo/internal/store"
)

var _ store.Pruner = (*Store)(nil)

// pruneSQL deletes at most $2 finished transactions updated before $1,
// oldest update first (index transactions_finished, migration 0015), with
// their attempts; history is inline (0012). Rows another transaction
// holds are skipped, so that nodes pruning at once do not wait on each
// other.
const pruneSQL = `WITH doomed AS (
		SELECT uid FROM transactions t
		WHERE state IN ('DONE', 'FAILED') AND updated_at < $1::bigint AND result IS NOT NULL
			AND NOT EXISTS (SELECT 1 FROM queues q WHERE q.tx_uid = t.uid)
		ORDER BY updated_at, seq LIMIT $2
		FOR UPDATE SKIP LOCKED
	), a AS (
		DELETE FROM attempts WHERE uid IN (SELECT uid FROM doomed) RETURNING 1
	), x AS (
		DELETE FROM transactions WHERE uid IN (SELECT uid FROM doomed) RETURNING 1
	)
	SELECT (SELECT count(*) FROM x), (SELECT count(*) FROM a)`

// PruneFinished implements store.Pruner in one statement, in a
// transaction of its own beside the committer's.
func (s *Store) PruneFinished(ctx context.Context, before time.Time, limit int) (store.Pruned, error) {
	if limit <= 0 {
		return store.Pruned{}, fmt.Errorf("postgres: prune: limit %d, want > 0", limit)
	}
	var txs, attempts int64
	err := s.inTx(ctx, pgx.TxOptions{}, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, pruneSQL, before.UnixNano(), limit).Scan(&txs, &attempts); err != nil {
			return err
		}
		// The change feed (changes.go) is pruned by age, its oldest rows
		// first (a row once its newest entry is old enough), up to
		// changesPerRecord rows a record.
		_, err := tx.Exec(ctx, pruneChangesSQL, before.UnixNano(), changesPerRecord*limit)
		return err
	})
	if err != nil {
		return store.Pruned{}, fmt.Errorf("postgres: prune: %w", err)
	}
	return store.Pruned{Transactions: int(txs), Attempts: int(attempts)}, nil
}

// changesPerRecord bounds the feed rows one prune deletes, per record it
// may delete. A row is one Apply's entries; an intent has about three
// transitions (WAITING → REVISION → DONE), each in an Apply, so the feed
// gains at most about three rows a record (fewer when Applies carry
// several intents) and is pruned as fast as it grows.
const changesPerRecord = 4
