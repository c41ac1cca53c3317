package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/ordolabs/ordo/internal/store"
)

// The read path: the read pool. A call that runs several queries runs them in
// one read transaction, so it sees one snapshot.

// read runs f in a read transaction.
func (s *Store) read(ctx context.Context, f func(tx *sql.Tx) error) error {
	tx, err := s.rdb.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	err = f(tx)
	if cerr := tx.Rollback(); err == nil && cerr != nil && !errors.Is(cerr, sql.ErrTxDone) {
		err = cerr
	}
	return err
}

// Get implements store.Store.
func (s *Store) Get(ctx context.Context, uid string) (store.Transaction, error) {
	txs, err := s.readTxs(ctx, s.rs.txByUID, uid)
	if err == nil && len(txs) == 0 {
		err = store.ErrNotFound
	}
	if err != nil {
		return store.Transaction{}, fmt.Errorf("sqlite: get %s: %w", uid, err)
	}
	return txs[0], nil
}

// History implements store.Store. Its first entry, "" → WAITING at the
// creation time, is made from the transaction's row.
func (s *Store) History(ctx context.Context, uid string) ([]store.HistoryEntry, error) {
	hs := []store.HistoryEntry{}
	err := s.read(ctx, func(tx *sql.Tx) error {
		var created sql.NullInt64
		err := tx.StmtContext(ctx, s.rs.createdAt).QueryRowContext(ctx, uid).Scan(&created)
		if errors.Is(err, sql.ErrNoRows) {
			return store.ErrNotFound
		}
		if err != nil {
			return err
		}
		// The creation entry is the transactions row itself; Enqueue does
		// not write it to history.
		hs = append(hs, store.HistoryEntry{UID: uid, At: fromNanos(created), To: store.Waiting, Note: "enqueued"})
		rows, err := tx.StmtContext(ctx, s.rs.historyByUID).QueryContext(ctx, uid)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				h              store.HistoryEntry
				at             sql.NullInt64
				from, to, bind string
			)
			if err := rows.Scan(&h.UID, &at, &from, &to, &bind, &h.Note); err != nil {
				return err
			}
			h.At = fromNanos(at)
			h.From, h.To, h.Binding = store.TxState(from), store.TxState(to), store.BindingState(bind)
			hs = append(hs, h)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: history %s: %w", uid, err)
	}
	return hs, nil
}

// List implements store.Store.
func (s *Store) List(ctx context.Context, f store.Filter) ([]store.Transaction, error) {
	if f.State != "" && !f.State.Valid() {
		return nil, fmt.Errorf("sqlite: list: invalid state %q", f.State)
	}
	limit := store.ClampLimit(f.Limit)
	var (
		st   *sql.Stmt
		args []any
	)
	switch {
	case f.Queue != "" && f.State != "":
		st, args = s.rs.listQueueState, []any{string(f.State), f.Queue, f.After, limit}
	case f.Queue != "":
		st, args = s.rs.listQueue, []any{f.Queue, f.After, limit}
	case f.State != "":
		st, args = s.rs.listState, []any{string(f.State), f.After, limit}
	default:
		st, args = s.rs.list, []any{f.After, limit}
	}
	txs, err := s.readTxs(ctx, st, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list: %w", err)
	}
	return txs, nil
}

// Waiting implements store.Store. limit defaults to 100 and is capped at
// 1000, as for List.
func (s *Store) Waiting(ctx context.Context, queue string, after int64, limit int) ([]store.Transaction, error) {
	txs, err := s.readTxs(ctx, s.rs.waiting, queue, after, store.ClampLimit(limit))
	if err != nil {
		return nil, fmt.Errorf("sqlite: waiting %s: %w", queue, err)
	}
	return txs, nil
}

// Active implements store.Store. Transactions come in Seq order.
func (s *Store) Active(ctx context.Context) ([]store.Transaction, error) {
	txs, err := s.readTxs(ctx, s.rs.active)
	if err != nil {
		return nil, fmt.Errorf("sqlite: active: %w", err)
	}
	return txs, nil
}

// PendingHooks implements store.Store.
func (s *Store) PendingHooks(ctx context.Context, after int64, limit int) ([]store.Transaction, error) {
	if limit <= 0 || limit > 1000 {
		limit = 1000
	}
	txs, err := s.readTxs(ctx, s.rs.pendingHooks, after, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: pending hooks: %w", err)
	}
	return txs, nil
}

// readTxs runs a transaction query and loads the rows' attempts, in one read
// transaction so that both come from the same snapshot.
func (s *Store) readTxs(ctx context.Context, st *sql.Stmt, args ...any) ([]store.Transaction, error) {
	var txs []store.Transaction
	err := s.read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.StmtContext(ctx, st).QueryContext(ctx, args...)
		if err != nil {
			return err
		}
		if txs, err = scanTxs(rows); err != nil {
			return err
		}
		return attachAttempts(ctx, tx, txs)
	})
	return txs, err
}

// attachAttempts loads the attempts of txs, ordered by n.
func attachAttempts(ctx context.Context, tx *sql.Tx, txs []store.Transaction) error {
	if len(txs) == 0 {
		return nil
	}
	idx := make(map[string]int, len(txs))
	for i := range txs {
		txs[i].Attempts = []store.Attempt{}
		idx[txs[i].UID] = i
	}
	const chunk = 500
	for lo := 0; lo < len(txs); lo += chunk {
		hi := min(lo+chunk, len(txs))
		args := make([]any, 0, hi-lo)
		for i := lo; i < hi; i++ {
			args = append(args, txs[i].UID)
		}
		q := `SELECT ` + attemptCols + ` FROM attempts WHERE uid IN (?` +
			strings.Repeat(", ?", hi-lo-1) + `) ORDER BY uid, n`
		rows, err := tx.QueryContext(ctx, q, args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			uid, a, err := scanAttempt(rows)
			if err != nil {
				rows.Close()
				return err
			}
			if i, ok := idx[uid]; ok {
				txs[i].Attempts = append(txs[i].Attempts, a)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// WaitingQueues implements store.Store. Names come in ascending order.
func (s *Store) WaitingQueues(ctx context.Context) ([]string, error) {
	names, err := collect(ctx, s.rs.waitingQueues, func(r scanner) (string, error) {
		var n string
		return n, r.Scan(&n)
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: waiting queues: %w", err)
	}
	return names, nil
}

// Queues implements store.Store. Queues come in ascending order of name.
func (s *Store) Queues(ctx context.Context) ([]store.Queue, error) {
	qs, err := collect(ctx, s.rs.queues, scanQueue)
	if err != nil {
		return nil, fmt.Errorf("sqlite: queues: %w", err)
	}
	return qs, nil
}

// Bindings implements store.Store.
func (s *Store) Bindings(ctx context.Context) ([]store.Queue, error) {
	qs, err := collect(ctx, s.rs.bindings, scanQueue)
	if err != nil {
		return nil, fmt.Errorf("sqlite: bindings: %w", err)
	}
	return qs, nil
}

// QueueStats implements store.Store. Counts holds an entry for each of the
// five states, zero included.
func (s *Store) QueueStats(ctx context.Context, name string) (store.QueueStats, error) {
	st := store.QueueStats{Counts: zeroCounts()}
	err := s.read(ctx, func(tx *sql.Tx) error {
		q, err := scanQueue(tx.StmtContext(ctx, s.rs.queueByName).QueryRowContext(ctx, name))
		found := err == nil
		switch {
		case errors.Is(err, sql.ErrNoRows):
			q = store.Queue{Name: name, State: store.Free}
		case err != nil:
			return err
		}
		st.Queue = q
		rows, err := tx.StmtContext(ctx, s.rs.queueCounts).QueryContext(ctx, name)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				state string
				n     int
			)
			if err := rows.Scan(&state, &n); err != nil {
				return err
			}
			st.Counts[store.TxState(state)] = n
			found = true
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if !found {
			return store.ErrNotFound
		}
		return nil
	})
	if err != nil {
		return store.QueueStats{}, fmt.Errorf("sqlite: queue stats %s: %w", name, err)
	}
	return st, nil
}

// Senders implements store.Store. Senders come in ascending order of id.
func (s *Store) Senders(ctx context.Context) ([]store.Sender, error) {
	out, err := collect(ctx, s.rs.senders, scanSender)
	if err != nil {
		return nil, fmt.Errorf("sqlite: senders: %w", err)
	}
	return out, nil
}

// collect runs a prepared query with no arguments and scans every row; the
// result is never nil.
func collect[T any](ctx context.Context, st *sql.Stmt, scan func(scanner) (T, error)) ([]T, error) {
	rows, err := st.QueryContext(ctx)
	if err != nil {
		return nil, err
	}
	return collectRows(rows, scan)
}

// collectRows scans every row and closes rows; the result is never nil.
func collectRows[T any](rows *sql.Rows, scan func(scanner) (T, error)) ([]T, error) {
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// CountByState implements store.Store.
func (s *Store) CountByState(ctx context.Context) (map[store.TxState]int, error) {
	type row struct {
		state string
		n     int
	}
	rows, err := collect(ctx, s.rs.countByState, func(r scanner) (row, error) {
		var v row
		return v, r.Scan(&v.state, &v.n)
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: count by state: %w", err)
	}
	out := zeroCounts()
	for _, r := range rows {
		out[store.TxState(r.state)] = r.n
	}
	return out, nil
}

// zeroCounts is a count of zero for each of the five states.
func zeroCounts() map[store.TxState]int {
	return map[store.TxState]int{store.Waiting: 0, store.Revision: 0, store.Retry: 0, store.Done: 0, store.Failed: 0}
}
