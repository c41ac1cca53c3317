package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"

	"github.com/ordolabs/ordo/internal/store"
)

// changesSQL reads the change feed: history rows after a cursor (their id),
// with their transaction's queue, in id order. SQLite has one writer, whose
// commits take ids in order, so a reader past id n never sees one below n
// commit later.
const changesSQL = `SELECT h.id, h.uid, t.queue, h.from_state, h.to_state, h.at, h.note
	FROM history h JOIN transactions t ON t.uid = h.uid
	WHERE h.id > ?1 AND (?2 = '' OR t.queue = ?2)
	ORDER BY h.id LIMIT ?3`

// changeID is the cursor of history row id: its decimal, zero-padded to
// 19 digits, so that cursors compare as strings as they do as numbers.
func changeID(id int64) string { return fmt.Sprintf("%019d", id) }

// Changes implements store.ChangeFeed: the cursor is the history row's id.
// Retention deletes a pruned transaction's history with it, so a cursor
// older than the oldest row kept reads from the oldest kept.
func (s *Store) Changes(ctx context.Context, f store.ChangeFilter) ([]store.TxChange, error) {
	var after int64
	if f.After != "" {
		n, err := strconv.ParseInt(f.After, 10, 64)
		if err != nil || n < 0 || len(f.After) != 19 {
			return nil, fmt.Errorf("sqlite: changes after %q: %w", f.After, store.ErrBadCursor)
		}
		after = n
	}
	rows, err := s.rdb.QueryContext(ctx, changesSQL, after, f.Queue, store.ClampLimit(f.Limit))
	if err != nil {
		return nil, fmt.Errorf("sqlite: changes: %w", err)
	}
	out, err := collectRows(rows, func(r scanner) (store.TxChange, error) {
		var (
			c        store.TxChange
			id       int64
			at       sql.NullInt64
			from, to string
		)
		if err := r.Scan(&id, &c.UID, &c.Queue, &from, &to, &at, &c.Note); err != nil {
			return c, err
		}
		c.ID, c.At, c.From, c.To = changeID(id), fromNanos(at), store.TxState(from), store.TxState(to)
		return c, nil
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: changes: %w", err)
	}
	return out, nil
}

// ChangesTail implements store.ChangeFeed: the newest history row's id.
func (s *Store) ChangesTail(ctx context.Context) (string, error) {
	var id sql.NullInt64
	if err := s.rdb.QueryRowContext(ctx, `SELECT MAX(id) FROM history`).Scan(&id); err != nil {
		return "", fmt.Errorf("sqlite: changes tail: %w", err)
	}
	if !id.Valid {
		return "", nil
	}
	return changeID(id.Int64), nil
}
