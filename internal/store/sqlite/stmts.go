package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/ordolabs/ordo/internal/store"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// txCols are the columns scanTx reads, in its order.
const txCols = `seq, uid, queue, type, data, state, retries, idempotency_key, result, error, created_at, updated_at`

const attemptCols = `uid, n, sender, nonce, fee, hash, at, outcome, error, height, gas, cancel`

// writeStmts are prepared on the writer connection and used only by the
// committer.
type writeStmts struct {
	begin, commit, rollback *sql.Stmt
	insertTx                *sql.Stmt
	txByKey, attemptsByUID  *sql.Stmt
	all                     []*sql.Stmt

	// conn is the writer connection; chunks are the multi-row statements
	// of applyBatch, by kind and log2 of their rows, prepared on first use
	// (see chunkStmt) and closed with the others (they join all).
	conn   *sql.Conn
	chunks [numKinds][maxChunkLog + 1]*sql.Stmt
	args   []any // the chunks' parameters, reused
}

type preparer interface {
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

func prep(ctx context.Context, p preparer, all *[]*sql.Stmt, dst **sql.Stmt, query string) error {
	st, err := p.PrepareContext(ctx, query)
	if err != nil {
		return fmt.Errorf("prepare %q: %w", query, err)
	}
	*dst = st
	*all = append(*all, st)
	return nil
}

func (w *writeStmts) prepare(ctx context.Context, c *sql.Conn) error {
	w.conn = c
	for _, q := range []struct {
		dst **sql.Stmt
		sql string
	}{
		// The connection's _txlock=immediate does not apply to a bare
		// BEGIN statement: ask for the write lock explicitly.
		{&w.begin, `BEGIN IMMEDIATE`},
		{&w.commit, `COMMIT`},
		{&w.rollback, `ROLLBACK`},
		{&w.insertTx, `INSERT INTO transactions
			(uid, queue, type, data, state, retries, principal, idempotency_key, result, error, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, 0, ?, ?, NULL, '', ?, ?)
			ON CONFLICT (principal, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING`},
		{&w.txByKey, `SELECT ` + txCols + ` FROM transactions WHERE principal = ? AND idempotency_key = ?`},
		{&w.attemptsByUID, `SELECT ` + attemptCols + ` FROM attempts WHERE uid = ? ORDER BY n`},
	} {
		if err := prep(ctx, c, &w.all, q.dst, q.sql); err != nil {
			return err
		}
	}
	return nil
}

func (w *writeStmts) close() error { return closeStmts(w.all) }

// readStmts are prepared on the read pool (database/sql prepares each on a
// connection the first time it is used there).
type readStmts struct {
	txByUID, createdAt, historyByUID                              *sql.Stmt
	list, listQueue, listState, listQueueState                    *sql.Stmt
	waiting, active, waitingQueues, queues, bindings, queueByName *sql.Stmt
	pendingHooks, countByState                                    *sql.Stmt
	queueCounts, senders                                          *sql.Stmt
	all                                                           []*sql.Stmt
	proc                                                          procReadStmts   // processor_read.go
	leader                                                        leaderReadStmts // leader_read.go
}

// states are the transaction states, in the order of their SQL text (the
// order of the (state, …) indexes).
var states = []store.TxState{store.Done, store.Failed, store.Retry, store.Revision, store.Waiting}

// listQueueSQL lists a queue's transactions in Seq order: the first ? rows
// of each state's range of (state, queue, seq), merged. Each range is read
// for at most LIMIT rows, however long the queue's history.
func listQueueSQL() string {
	var parts []string
	for _, st := range states {
		parts = append(parts, `SELECT * FROM (SELECT `+txCols+` FROM transactions
			WHERE state = '`+string(st)+`' AND queue = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3)`)
	}
	return `SELECT * FROM (` + strings.Join(parts, "\nUNION ALL\n") + `) ORDER BY seq LIMIT ?3`
}

// queuesSQL lists every queue name with a transaction or a binding row, with
// its binding. The names with transactions come from a skip-scan of
// (state, queue, seq) per state: one index seek per (state, queue) pair.
func queuesSQL() string {
	var ctes, names []string
	for i, st := range states {
		cte := fmt.Sprintf("s%d", i)
		ctes = append(ctes, cte+`(name) AS (
			SELECT MIN(queue) FROM transactions WHERE state = '`+string(st)+`'
			UNION ALL
			SELECT (SELECT MIN(queue) FROM transactions WHERE state = '`+string(st)+`' AND queue > `+cte+`.name)
			FROM `+cte+` WHERE `+cte+`.name IS NOT NULL)`)
		names = append(names, `SELECT name FROM `+cte+` WHERE name IS NOT NULL`)
	}
	return `WITH RECURSIVE ` + strings.Join(ctes, ",\n") + `,
		names(name) AS (` + strings.Join(names, "\nUNION\n") + `
			UNION SELECT name FROM queues)
		SELECT n.name, q.state, q.sender, q.tx_uid, q.delay_until, q.deadline, q.updated_at
		FROM names n LEFT JOIN queues q ON q.name = n.name
		ORDER BY n.name`
}

func (r *readStmts) prepare(ctx context.Context, db *sql.DB) error {
	const order = ` ORDER BY seq LIMIT ?`
	for _, q := range []struct {
		dst **sql.Stmt
		sql string
	}{
		{&r.txByUID, `SELECT ` + txCols + ` FROM transactions WHERE uid = ?`},
		{&r.createdAt, `SELECT created_at FROM transactions WHERE uid = ?`},
		{&r.historyByUID, `SELECT uid, at, from_state, to_state, binding, note FROM history WHERE uid = ? ORDER BY id`},
		{&r.list, `SELECT ` + txCols + ` FROM transactions WHERE seq > ?` + order},
		{&r.listQueue, listQueueSQL()},
		{&r.listState, `SELECT ` + txCols + ` FROM transactions WHERE state = ? AND seq > ?` + order},
		{&r.listQueueState, `SELECT ` + txCols + ` FROM transactions WHERE state = ? AND queue = ? AND seq > ?` + order},
		{&r.waiting, `SELECT ` + txCols + ` FROM transactions WHERE state = 'WAITING' AND queue = ? AND seq > ?` + order},
		{&r.active, `SELECT ` + txCols + ` FROM transactions WHERE state IN ('REVISION', 'RETRY') ORDER BY seq`},
		{&r.pendingHooks, `SELECT ` + txCols + ` FROM transactions
			WHERE result IS NULL AND state IN ('DONE', 'FAILED') AND seq > ? ORDER BY seq LIMIT ?`},
		{&r.countByState, `SELECT state, COUNT(*) FROM transactions GROUP BY state`},
		// A skip-scan over the WAITING range of (state, queue, seq): one
		// index seek per waiting queue, however many rows each holds.
		{&r.waitingQueues, `WITH RECURSIVE w(name) AS (
				SELECT MIN(queue) FROM transactions WHERE state = 'WAITING'
				UNION ALL
				SELECT (SELECT MIN(queue) FROM transactions WHERE state = 'WAITING' AND queue > w.name)
				FROM w WHERE w.name IS NOT NULL
			)
			SELECT name FROM w WHERE name IS NOT NULL`},
		{&r.queues, queuesSQL()},
		{&r.queueByName, `SELECT name, state, sender, tx_uid, delay_until, deadline, updated_at FROM queues WHERE name = ?`},
		{&r.bindings, `SELECT name, state, sender, tx_uid, delay_until, deadline, updated_at FROM queues ORDER BY name`},
		{&r.queueCounts, `SELECT state, COUNT(*) FROM transactions
			WHERE state IN ('DONE', 'FAILED', 'RETRY', 'REVISION', 'WAITING') AND queue = ?
			GROUP BY state`},
		{&r.senders, `SELECT id, worker, queue, next_nonce, updated_at FROM senders ORDER BY id`},
	} {
		if err := prep(ctx, db, &r.all, q.dst, q.sql); err != nil {
			return err
		}
	}
	if err := r.proc.prepare(ctx, db, &r.all); err != nil {
		return err
	}
	return r.leader.prepare(ctx, db, &r.all)
}

func (r *readStmts) close() error { return closeStmts(r.all) }

func closeStmts(all []*sql.Stmt) error {
	var errs []error
	for _, st := range all {
		errs = append(errs, st.Close())
	}
	return errors.Join(errs...)
}

type scanner interface {
	Scan(dest ...any) error
}

func scanTx(row scanner) (store.Transaction, error) {
	var (
		t                store.Transaction
		state            string
		key              sql.NullString
		data, result     []byte
		created, updated sql.NullInt64
	)
	if err := row.Scan(&t.Seq, &t.UID, &t.Queue, &t.Type, &data, &state, &t.Retries, &key,
		&result, &t.Error, &created, &updated); err != nil {
		return store.Transaction{}, err
	}
	t.State = store.TxState(state)
	t.IdempotencyKey = key.String
	t.Data = rawOrNil(data)
	t.Result = rawOrNil(result)
	t.CreatedAt = fromNanos(created)
	t.UpdatedAt = fromNanos(updated)
	return t, nil
}

func scanTxs(rows *sql.Rows) ([]store.Transaction, error) { return collectRows(rows, scanTx) }

// scanAttempt reads attemptCols; it returns the uid the row belongs to.
func scanAttempt(row scanner) (string, store.Attempt, error) {
	var (
		uid                string
		a                  store.Attempt
		nonce, fee, height int64
		gas                int64
		at                 sql.NullInt64
	)
	if err := row.Scan(&uid, &a.N, &a.Sender, &nonce, &fee, &a.Hash, &at, &a.Outcome, &a.Error, &height, &gas, &a.Cancel); err != nil {
		return "", store.Attempt{}, err
	}
	a.Nonce, a.Fee, a.Height, a.Gas = uint64(nonce), uint64(fee), uint64(height), uint64(gas)
	a.At = fromNanos(at)
	return uid, a, nil
}

func scanAttempts(rows *sql.Rows) ([]store.Attempt, error) {
	return collectRows(rows, func(r scanner) (store.Attempt, error) {
		_, a, err := scanAttempt(r)
		return a, err
	})
}

func scanQueue(row scanner) (store.Queue, error) {
	var (
		q                    store.Queue
		state, sender, txUID sql.NullString
		delay, updated       sql.NullInt64
		deadline             sql.NullInt64
	)
	if err := row.Scan(&q.Name, &state, &sender, &txUID, &delay, &deadline, &updated); err != nil {
		return store.Queue{}, err
	}
	if !state.Valid {
		// No binding row: the queue is FREE.
		q.State = store.Free
		return q, nil
	}
	q.State = store.BindingState(state.String)
	q.Sender = sender.String
	q.TxUID = txUID.String
	q.DelayUntil = fromNanos(delay)
	q.Deadline = uint64(deadline.Int64)
	q.UpdatedAt = fromNanos(updated)
	return q, nil
}

func scanSender(row scanner) (store.Sender, error) {
	var (
		sd      store.Sender
		nonce   int64
		updated sql.NullInt64
	)
	if err := row.Scan(&sd.ID, &sd.Worker, &sd.Queue, &nonce, &updated); err != nil {
		return store.Sender{}, err
	}
	sd.NextNonce = uint64(nonce)
	sd.UpdatedAt = fromNanos(updated)
	return sd, nil
}

// isForeignKey reports whether err is SQLite refusing a row whose parent
// (a transaction uid) does not exist.
func isForeignKey(err error) bool {
	var se *msqlite.Error
	return errors.As(err, &se) && se.Code() == sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY
}
