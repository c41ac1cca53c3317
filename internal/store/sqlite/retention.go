package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

var _ store.Pruner = (*Store)(nil)

// pruneChunk is how many uids one DELETE names.
const pruneChunk = 500

// finishedSQL lists the finished transactions a prune may delete, oldest
// update first (index transactions_finished, migration 0015).
const finishedSQL = `SELECT uid FROM transactions
	WHERE state IN ('DONE', 'FAILED') AND updated_at < ?1 AND result IS NOT NULL
		AND NOT EXISTS (SELECT 1 FROM queues WHERE queues.tx_uid = transactions.uid)
	ORDER BY updated_at, seq LIMIT ?2`

// PruneFinished implements store.Pruner: one request of the committer, so
// it shares a group's transaction with the writes queued beside it and
// holds the writer no longer than a group does.
func (s *Store) PruneFinished(ctx context.Context, before time.Time, limit int) (store.Pruned, error) {
	if limit <= 0 {
		return store.Pruned{}, fmt.Errorf("sqlite: prune: limit %d, want > 0", limit)
	}
	var out store.Pruned
	_, err := s.submitReplica(ctx, limit, func(ctx context.Context, _ *request) error {
		out = store.Pruned{}
		rows, err := s.wconn.QueryContext(ctx, finishedSQL, before.UnixNano(), limit)
		if err != nil {
			return err
		}
		var uids []any
		for rows.Next() {
			var uid string
			if err := rows.Scan(&uid); err != nil {
				rows.Close()
				return err
			}
			uids = append(uids, uid)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for lo := 0; lo < len(uids); lo += pruneChunk {
			part := uids[lo:min(lo+pruneChunk, len(uids))]
			in := inNames(1, len(part))
			for _, del := range []struct {
				table string
				n     *int
			}{{"history", &out.History}, {"attempts", &out.Attempts}, {"transactions", &out.Transactions}} {
				res, err := s.wconn.ExecContext(ctx, `DELETE FROM `+del.table+` WHERE uid IN `+in, part...)
				if err != nil {
					return fmt.Errorf("%s: %w", del.table, err)
				}
				n, err := res.RowsAffected()
				if err != nil {
					return err
				}
				*del.n += int(n)
			}
		}
		return nil
	})
	if err != nil {
		return store.Pruned{}, fmt.Errorf("sqlite: prune: %w", err)
	}
	return out, nil
}
