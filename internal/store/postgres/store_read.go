package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/ordolabs/ordo/internal/store"
)

// The sequencer's reads, on the pool. A call that runs several queries runs
// them in one read-only repeatable-read transaction: one snapshot.

// txCols are the columns scanTx reads, in its order.
const txCols = `seq, uid, queue, type, data, state, retries, idempotency_key, result, error, created_at, updated_at`

const attemptCols = `uid, n, sender, nonce, fee, hash, at, outcome, error, height, gas, cancel`

const queueCols = `name, state, sender, tx_uid, delay_until, deadline, updated_at`

// querier is a pool or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// states are the transaction states.
var states = []store.TxState{store.Done, store.Failed, store.Retry, store.Revision, store.Waiting}

// listQueueSQL lists a queue's transactions in Seq order: the first $3 rows
// of each state's range of (state, queue, seq), merged.
func listQueueSQL() string {
	var parts []string
	for _, st := range states {
		parts = append(parts, `(SELECT `+txCols+` FROM transactions
			WHERE state = '`+string(st)+`' AND queue = $1 AND seq > $2 ORDER BY seq LIMIT $3)`)
	}
	return `SELECT * FROM (` + strings.Join(parts, "\nUNION ALL\n") + `) u ORDER BY seq LIMIT $3`
}

// skipScan is a recursive CTE named cte listing the distinct queues of a
// state's range of (state, queue, seq): one index seek per queue.
func skipScan(cte string, st store.TxState) string {
	return cte + `(name) AS (
		SELECT MIN(queue) FROM transactions WHERE state = '` + string(st) + `'
		UNION ALL
		SELECT (SELECT MIN(queue) FROM transactions WHERE state = '` + string(st) + `' AND queue > ` + cte + `.name)
		FROM ` + cte + ` WHERE ` + cte + `.name IS NOT NULL)`
}

// queuesSQL lists every queue name with a transaction or a binding row, with
// its binding.
func queuesSQL() string {
	var ctes, names []string
	for i, st := range states {
		cte := fmt.Sprintf("s%d", i)
		ctes = append(ctes, skipScan(cte, st))
		names = append(names, `SELECT name FROM `+cte+` WHERE name IS NOT NULL`)
	}
	return `WITH RECURSIVE ` + strings.Join(ctes, ",\n") + `,
		names(name) AS (` + strings.Join(names, "\nUNION\n") + `
			UNION SELECT name FROM queues)
		SELECT n.name, q.state, q.sender, q.tx_uid, q.delay_until, q.deadline, q.updated_at
		FROM names n LEFT JOIN queues q ON q.name = n.name
		ORDER BY n.name`
}

var (
	sqlListQueue     = listQueueSQL()
	sqlQueues        = queuesSQL()
	sqlBindings      = `SELECT ` + queueCols + ` FROM queues ORDER BY name`
	sqlWaitingQueues = `WITH RECURSIVE ` + skipScan("w", store.Waiting) + ` SELECT name FROM w WHERE name IS NOT NULL`
)

const order = ` ORDER BY seq LIMIT `

// Get implements store.Store.
func (s *Store) Get(ctx context.Context, uid string) (store.Transaction, error) {
	txs, err := s.readTxsTx(ctx, `SELECT `+txCols+` FROM transactions WHERE uid = $1`, uid)
	if err == nil && len(txs) == 0 {
		err = store.ErrNotFound
	}
	if err != nil {
		return store.Transaction{}, fmt.Errorf("postgres: get %s: %w", uid, err)
	}
	return txs[0], nil
}

// History implements store.Store. Its first entry, "" → WAITING at the
// creation time, is made from the transaction's row.
func (s *Store) History(ctx context.Context, uid string) ([]store.HistoryEntry, error) {
	if s.isClosed() {
		return nil, ErrClosed
	}
	var (
		created *int64
		text    []byte
	)
	err := s.pool.QueryRow(ctx, `SELECT created_at, history FROM transactions WHERE uid = $1`, uid).Scan(&created, &text)
	if errors.Is(err, pgx.ErrNoRows) {
		err = store.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: history %s: %w", uid, err)
	}
	rest, err := decodeHistory(uid, text)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	created0 := store.HistoryEntry{UID: uid, At: fromNanos(created), To: store.Waiting, Note: "enqueued"}
	return append([]store.HistoryEntry{created0}, rest...), nil
}

// List implements store.Store.
func (s *Store) List(ctx context.Context, f store.Filter) ([]store.Transaction, error) {
	if f.State != "" && !f.State.Valid() {
		return nil, fmt.Errorf("postgres: list: invalid state %q", f.State)
	}
	limit := store.ClampLimit(f.Limit)
	var (
		q    string
		args []any
	)
	switch {
	case f.Queue != "" && f.State != "":
		q, args = `SELECT `+txCols+` FROM transactions WHERE state = $1 AND queue = $2 AND seq > $3`+order+`$4`,
			[]any{string(f.State), f.Queue, f.After, limit}
	case f.Queue != "":
		q, args = sqlListQueue, []any{f.Queue, f.After, limit}
	case f.State != "":
		q, args = `SELECT `+txCols+` FROM transactions WHERE state = $1 AND seq > $2`+order+`$3`, []any{string(f.State), f.After, limit}
	default:
		q, args = `SELECT `+txCols+` FROM transactions WHERE seq > $1`+order+`$2`, []any{f.After, limit}
	}
	txs, err := s.readTxsTx(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: list: %w", err)
	}
	return txs, nil
}

// Waiting implements store.Store. limit defaults to 100 and is capped at
// 1000, as for List.
func (s *Store) Waiting(ctx context.Context, queue string, after int64, limit int) ([]store.Transaction, error) {
	txs, err := s.readTxsTx(ctx, `SELECT `+txCols+` FROM transactions
		WHERE state = 'WAITING' AND queue = $1 AND seq > $2`+order+`$3`, queue, after, store.ClampLimit(limit))
	if err != nil {
		return nil, fmt.Errorf("postgres: waiting %s: %w", queue, err)
	}
	return txs, nil
}

// Active implements store.Store. Transactions come in Seq order.
func (s *Store) Active(ctx context.Context) ([]store.Transaction, error) {
	txs, err := s.readTxsTx(ctx, `SELECT `+txCols+` FROM transactions WHERE state IN ('REVISION', 'RETRY') ORDER BY seq`)
	if err != nil {
		return nil, fmt.Errorf("postgres: active: %w", err)
	}
	return txs, nil
}

// PendingHooks implements store.Store.
func (s *Store) PendingHooks(ctx context.Context, after int64, limit int) ([]store.Transaction, error) {
	if limit <= 0 || limit > 1000 {
		limit = 1000
	}
	txs, err := s.readTxsTx(ctx, `SELECT `+txCols+` FROM transactions
		WHERE result IS NULL AND state IN ('DONE', 'FAILED') AND seq > $1`+order+`$2`, after, limit)
	if err != nil {
		return nil, fmt.Errorf("postgres: pending hooks: %w", err)
	}
	return txs, nil
}

// readTxsTx runs readTxs in a snapshot.
func (s *Store) readTxsTx(ctx context.Context, q string, args ...any) ([]store.Transaction, error) {
	var txs []store.Transaction
	err := s.inTx(ctx, snapshot, func(tx pgx.Tx) error {
		var err error
		txs, err = readTxs(ctx, tx, q, args...)
		return err
	})
	return txs, err
}

// readTxs runs a transaction query and loads the rows' attempts; the
// result is never nil.
func readTxs(ctx context.Context, q querier, sql string, args ...any) ([]store.Transaction, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	txs := []store.Transaction{}
	for rows.Next() {
		t, err := scanTx(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		txs = append(txs, t)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return txs, attachAttempts(ctx, q, txs)
}

// attachAttemptsSQL reads the attempts of a list of uids, one index range
// per uid (the LATERAL subquery cannot be turned into a join): a plan over
// "uid = ANY($1)" is chosen from the table's statistics, which lag behind a
// table growing under load, and a sequential scan of attempts chosen while
// the table looked small cost a start of 100,000 WAITING intents seconds of
// server time, for no rows.
const attachAttemptsSQL = `SELECT a.* FROM unnest($1::text[]) AS u(uid)
	CROSS JOIN LATERAL (SELECT ` + attemptCols + ` FROM attempts
		WHERE attempts.uid = u.uid ORDER BY n) AS a`

// attachAttempts loads the attempts of txs, ordered by n.
func attachAttempts(ctx context.Context, q querier, txs []store.Transaction) error {
	if len(txs) == 0 {
		return nil
	}
	idx := make(map[string]int, len(txs))
	uids := make([]string, len(txs))
	for i := range txs {
		txs[i].Attempts = []store.Attempt{}
		idx[txs[i].UID] = i
		uids[i] = txs[i].UID
	}
	rows, err := q.Query(ctx, attachAttemptsSQL, uids)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		uid, a, err := scanAttempt(rows)
		if err != nil {
			return err
		}
		if i, ok := idx[uid]; ok {
			txs[i].Attempts = append(txs[i].Attempts, a)
		}
	}
	return rows.Err()
}

// WaitingQueues implements store.Store. Names come in ascending order.
func (s *Store) WaitingQueues(ctx context.Context) ([]string, error) {
	if s.isClosed() {
		return nil, ErrClosed
	}
	rows, err := s.pool.Query(ctx, sqlWaitingQueues)
	if err == nil {
		var names []string
		names, err = pgx.CollectRows(rows, pgx.RowTo[string])
		if err == nil {
			if names == nil {
				names = []string{}
			}
			return names, nil
		}
	}
	return nil, fmt.Errorf("postgres: waiting queues: %w", err)
}

// Queues implements store.Store. Queues come in ascending order of name.
func (s *Store) Queues(ctx context.Context) ([]store.Queue, error) {
	qs, err := collect(ctx, s, sqlQueues, scanQueue)
	if err != nil {
		return nil, fmt.Errorf("postgres: queues: %w", err)
	}
	return qs, nil
}

// Bindings implements store.Store.
func (s *Store) Bindings(ctx context.Context) ([]store.Queue, error) {
	qs, err := collect(ctx, s, sqlBindings, scanQueue)
	if err != nil {
		return nil, fmt.Errorf("postgres: bindings: %w", err)
	}
	return qs, nil
}

// QueueStats implements store.Store. Counts holds an entry for each of the
// five states, zero included.
func (s *Store) QueueStats(ctx context.Context, name string) (store.QueueStats, error) {
	st := store.QueueStats{Counts: zeroCounts()}
	err := s.inTx(ctx, snapshot, func(tx pgx.Tx) error {
		q, err := scanQueue(tx.QueryRow(ctx, `SELECT `+queueCols+` FROM queues WHERE name = $1`, name))
		found := err == nil
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			q = store.Queue{Name: name, State: store.Free}
		case err != nil:
			return err
		}
		st.Queue = q
		rows, err := tx.Query(ctx, `SELECT state, COUNT(*) FROM transactions
			WHERE state IN ('DONE', 'FAILED', 'RETRY', 'REVISION', 'WAITING') AND queue = $1
			GROUP BY state`, name)
		if err != nil {
			return err
		}
		var (
			state string
			n     int
		)
		if _, err := pgx.ForEachRow(rows, []any{&state, &n}, func() error {
			st.Counts[store.TxState(state)] = n
			found = true
			return nil
		}); err != nil {
			return err
		}
		if !found {
			return store.ErrNotFound
		}
		return nil
	})
	if err != nil {
		return store.QueueStats{}, fmt.Errorf("postgres: queue stats %s: %w", name, err)
	}
	return st, nil
}

// Senders implements store.Store. Senders come in ascending order of id.
func (s *Store) Senders(ctx context.Context) ([]store.Sender, error) {
	out, err := collect(ctx, s, `SELECT id, worker, queue, next_nonce, updated_at FROM senders ORDER BY id`, scanSender)
	if err != nil {
		return nil, fmt.Errorf("postgres: senders: %w", err)
	}
	return out, nil
}

// CountByState implements store.Store.
func (s *Store) CountByState(ctx context.Context) (map[store.TxState]int, error) {
	if s.isClosed() {
		return nil, ErrClosed
	}
	rows, err := s.pool.Query(ctx, `SELECT state, COUNT(*) FROM transactions GROUP BY state`)
	if err != nil {
		return nil, fmt.Errorf("postgres: count by state: %w", err)
	}
	out := zeroCounts()
	var (
		state string
		n     int
	)
	if _, err := pgx.ForEachRow(rows, []any{&state, &n}, func() error {
		out[store.TxState(state)] = n
		return nil
	}); err != nil {
		return nil, fmt.Errorf("postgres: count by state: %w", err)
	}
	return out, nil
}

// zeroCounts is a count of zero for each of the five states.
func zeroCounts() map[store.TxState]int {
	return map[store.TxState]int{store.Waiting: 0, store.Revision: 0, store.Retry: 0, store.Done: 0, store.Failed: 0}
}

// collect runs a query on the pool and scans every row; the result is never
// nil.
func collect[T any](ctx context.Context, s *Store, sql string, scan func(pgx.Row) (T, error), args ...any) ([]T, error) {
	if s.isClosed() {
		return nil, ErrClosed
	}
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
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

func scanTx(row pgx.Row) (store.Transaction, error) {
	var (
		t                store.Transaction
		state            string
		key              *string
		data, result     []byte
		created, updated *int64
		retries          int64
	)
	if err := row.Scan(&t.Seq, &t.UID, &t.Queue, &t.Type, &data, &state, &retries, &key,
		&result, &t.Error, &created, &updated); err != nil {
		return store.Transaction{}, err
	}
	t.State = store.TxState(state)
	t.Retries = int(retries)
	if key != nil {
		t.IdempotencyKey = *key
	}
	t.Data = blob(data)
	t.Result = blob(result)
	t.CreatedAt = fromNanos(created)
	t.UpdatedAt = fromNanos(updated)
	return t, nil
}

// scanAttempt reads attemptCols; it returns the uid the row belongs to.
func scanAttempt(row pgx.Row) (string, store.Attempt, error) {
	var (
		uid                   string
		a                     store.Attempt
		n, nonce, fee, height int64
		gas                   int64
		outcome               string
		at                    *int64
	)
	if err := row.Scan(&uid, &n, &a.Sender, &nonce, &fee, &a.Hash, &at, &outcome, &a.Error, &height, &gas, &a.Cancel); err != nil {
		return "", store.Attempt{}, err
	}
	a.N = int(n)
	a.Outcome = store.Outcome(outcome)
	a.Nonce, a.Fee, a.Height, a.Gas = uint64(nonce), uint64(fee), uint64(height), uint64(gas)
	a.At = fromNanos(at)
	return uid, a, nil
}

func scanQueue(row pgx.Row) (store.Queue, error) {
	var (
		q                    store.Queue
		state, sender, txUID *string
		delay, updated       *int64
		deadline             *int64
	)
	if err := row.Scan(&q.Name, &state, &sender, &txUID, &delay, &deadline, &updated); err != nil {
		return store.Queue{}, err
	}
	if state == nil {
		// No binding row: the queue is FREE.
		q.State = store.Free
		return q, nil
	}
	q.State = store.BindingState(*state)
	q.Sender = deref(sender)
	q.TxUID = deref(txUID)
	q.DelayUntil = fromNanos(delay)
	if deadline != nil {
		q.Deadline = uint64(*deadline)
	}
	q.UpdatedAt = fromNanos(updated)
	return q, nil
}

func scanSender(row pgx.Row) (store.Sender, error) {
	var (
		sd      store.Sender
		nonce   int64
		updated *int64
	)
	if err := row.Scan(&sd.ID, &sd.Worker, &sd.Queue, &nonce, &updated); err != nil {
		return store.Sender{}, err
	}
	sd.NextNonce = uint64(nonce)
	sd.UpdatedAt = fromNanos(updated)
	return sd, nil
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
