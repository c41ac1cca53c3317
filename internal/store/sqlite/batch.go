package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math/bits"
	"strings"
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

// Apply writes a batch's rows with multi-row statements: a chunk of up to
// maxChunk rows per statement. A run of n rows takes n/maxChunk full
// chunks, then one chunk per set bit of the remainder (32, 16, …, 1), so a
// kind of row has at most log2(maxChunk)+1 statements, each prepared on the
// writer connection the first time it is needed.
//
// Statement by statement the rows are written in batch order, so where two
// rows of a batch share a key the later one wins, as with one statement per
// row. The exception is the UPDATE of transactions (UPDATE … FROM visits
// its VALUES in no defined order): applyBatch passes it one row per uid,
// the last update of each.

// rowKind is a kind of multi-row statement.
type rowKind int

const (
	kindUpdateTx rowKind = iota
	// kindUpdateTxSame updates a transaction whose state stays: its state
	// indexes are left alone (see applyTxs).
	kindUpdateTxSame
	kindUpsertAttempt
	kindUpsertQueue
	kindUpsertSender
	kindInsertHistory
	// The processor's records (processor.go).
	kindUpsertProcessor
	kindUpsertProcBatch
	kindUpsertCallback
	kindUpsertCursor
	// The leader's records (leader.go); its cursors are kindUpsertCursor.
	kindUpsertLeaderEvent
	kindUpsertLeaderChannel
	numKinds
)

const (
	maxChunkLog = 8
	maxChunk    = 1 << maxChunkLog // rows per statement, at most
)

// kindCols is the number of parameters per row of each kind.
var kindCols = [numKinds]int{
	kindUpdateTx:      6,
	kindUpdateTxSame:  6,
	kindUpsertAttempt: 12,
	kindUpsertQueue:   7,
	kindUpsertSender:  5,
	kindInsertHistory: 6,

	kindUpsertProcessor: 10,
	kindUpsertProcBatch: 8,
	kindUpsertCallback:  11,
	kindUpsertCursor:    2,

	kindUpsertLeaderEvent:   18,
	kindUpsertLeaderChannel: 5,
}

// values returns "(?, ?), (?, ?)" for rows rows of cols parameters.
func values(rows, cols int) string {
	row := "(?" + strings.Repeat(", ?", cols-1) + ")"
	return row + strings.Repeat(", "+row, rows-1)
}

// chunkSQL is the statement of kind k for rows rows.
func chunkSQL(k rowKind, rows int) string {
	v := values(rows, kindCols[k])
	switch k {
	case kindUpdateTx:
		// The CTE drives the join: one uid index seek per row.
		return `WITH v (uid, state, retries, result, error, updated_at) AS (VALUES ` + v + `)
			UPDATE transactions
			SET state = v.state, retries = v.retries, result = v.result,
				error = v.error, updated_at = v.updated_at
			FROM v WHERE transactions.uid = v.uid`
	case kindUpdateTxSame:
		// state is not SET, so SQLite leaves the indexes on state alone;
		// a row whose state differs is not matched (applyTxs writes it
		// again with kindUpdateTx).
		return `WITH v (uid, state, retries, result, error, updated_at) AS (VALUES ` + v + `)
			UPDATE transactions
			SET retries = v.retries, result = v.result,
				error = v.error, updated_at = v.updated_at
			FROM v WHERE transactions.uid = v.uid AND transactions.state = v.state`
	case kindUpsertAttempt:
		return `INSERT INTO attempts (` + attemptCols + `) VALUES ` + v + `
			ON CONFLICT (uid, n) DO UPDATE SET
				sender = excluded.sender, nonce = excluded.nonce, fee = excluded.fee,
				hash = excluded.hash, at = excluded.at, outcome = excluded.outcome,
				error = excluded.error, height = excluded.height, gas = excluded.gas, cancel = excluded.cancel`
	case kindUpsertQueue:
		return `INSERT INTO queues (name, state, sender, tx_uid, delay_until, deadline, updated_at)
			VALUES ` + v + `
			ON CONFLICT (name) DO UPDATE SET
				state = excluded.state, sender = excluded.sender, tx_uid = excluded.tx_uid,
				delay_until = excluded.delay_until, deadline = excluded.deadline,
				updated_at = excluded.updated_at`
	case kindUpsertSender:
		return `INSERT INTO senders (id, worker, queue, next_nonce, updated_at) VALUES ` + v + `
			ON CONFLICT (id) DO UPDATE SET
				worker = excluded.worker, queue = excluded.queue,
				next_nonce = excluded.next_nonce, updated_at = excluded.updated_at`
	case kindInsertHistory:
		return `INSERT INTO history (uid, at, from_state, to_state, binding, note) VALUES ` + v
	case kindUpsertProcessor, kindUpsertProcBatch, kindUpsertCallback, kindUpsertCursor:
		return procChunkSQL(k, v)
	case kindUpsertLeaderEvent, kindUpsertLeaderChannel:
		return leaderChunkSQL(k, v)
	}
	panic(fmt.Sprintf("sqlite: unknown row kind %d", k))
}

// chunkStmt returns the statement of kind k for rows rows (a power of two,
// at most maxChunk), preparing it on the writer connection if needed. Only
// the committer calls it; close releases the statements.
func (w *writeStmts) chunkStmt(ctx context.Context, k rowKind, rows int) (*sql.Stmt, error) {
	i := bits.TrailingZeros(uint(rows))
	if st := w.chunks[k][i]; st != nil {
		return st, nil
	}
	if err := prep(ctx, w.conn, &w.all, &w.chunks[k][i], chunkSQL(k, rows)); err != nil {
		return nil, err
	}
	return w.chunks[k][i], nil
}

// chunkSize is the rows of the next statement for n rows left.
func chunkSize(n int) int {
	if n >= maxChunk {
		return maxChunk
	}
	return 1 << (bits.Len(uint(n)) - 1)
}

// execRows writes n rows of kind k, chunk by chunk; row(i, args) appends
// row i's parameters to args. It returns the rows the statements changed.
// If a statement fails it returns, with the error, the range of rows
// [lo, hi) the statement held; no row of that range was written (SQLite
// undoes a failed statement).
func (s *Store) execRows(ctx context.Context, k rowKind, n int, row func(i int, args []any) []any) (changed int64, lo, hi int, err error) {
	args := s.ws.args[:0]
	defer func() {
		clear(args[:cap(args)])
		s.ws.args = args[:0]
	}()
	for lo = 0; lo < n; lo = hi {
		rows := chunkSize(n - lo)
		hi = lo + rows
		st, err := s.ws.chunkStmt(ctx, k, rows)
		if err != nil {
			return changed, lo, hi, err
		}
		args = args[:0]
		for i := lo; i < hi; i++ {
			args = row(i, args)
		}
		res, err := st.ExecContext(ctx, args...)
		if err != nil {
			return changed, lo, hi, err
		}
		if k == kindUpdateTx || k == kindUpdateTxSame {
			c, err := res.RowsAffected()
			if err != nil {
				return changed, lo, hi, err
			}
			changed += c
		}
	}
	return changed, n, n, nil
}

func (s *Store) applyBatch(ctx context.Context, b *store.Batch) error {
	if err := s.applyTxs(ctx, b.Txs, b.History); err != nil {
		return err
	}
	if err := s.writeRows(ctx, kindUpsertQueue, len(b.Queues), func(i int, args []any) []any {
		q := &b.Queues[i]
		return append(args, q.Name, string(q.State), q.Sender, nullString(q.TxUID), nanos(q.DelayUntil),
			int64(q.Deadline), nanos(q.UpdatedAt))
	}, func(i int) string { return fmt.Sprintf("queue %s: tx %s", b.Queues[i].Name, b.Queues[i].TxUID) }); err != nil {
		return err
	}
	if err := s.writeRows(ctx, kindUpsertSender, len(b.Senders), func(i int, args []any) []any {
		sd := &b.Senders[i]
		return append(args, sd.ID, sd.Worker, sd.Queue, int64(sd.NextNonce), nanos(sd.UpdatedAt))
	}, func(i int) string { return "sender " + b.Senders[i].ID }); err != nil {
		return err
	}
	// A zero time is now; the clock is read once per entry, in batch order.
	ats := make([]int64, len(b.History))
	for i := range b.History {
		ats[i] = s.at(b.History[i].At)
	}
	return s.writeRows(ctx, kindInsertHistory, len(b.History), func(i int, args []any) []any {
		h := &b.History[i]
		return append(args, h.UID, ats[i], string(h.From), string(h.To), string(h.Binding), h.Note)
	}, func(i int) string { return "history of " + b.History[i].UID })
}

// applyTxs updates the transactions and upserts their attempts.
//
// A state change comes with its history entry in the same batch (the
// sequencer's rule), so the updates of uids without one in hist likely
// keep their state: they go through kindUpdateTxSame, which does not SET
// state and so spares SQLite the delete and insert of their entries in
// the three indexes on state (most of an update's cost). The hint is only
// a hint: kindUpdateTxSame matches only rows whose state is the one
// given, and when it matched fewer than it was handed, those updates are
// written again with kindUpdateTx (the same values: an update that did
// match is rewritten to what it already holds).
func (s *Store) applyTxs(ctx context.Context, us []store.TxUpdate, hist []store.HistoryEntry) error {
	if len(us) == 0 {
		return nil
	}
	// A zero time is now; the clock is read once per update, in batch order.
	ats := make([]int64, len(us))
	for i := range us {
		ats[i] = s.at(us[i].At)
	}
	// The moves into DONE or FAILED to log (replica.go), read before the
	// updates; nil when no queue is logged.
	finals, err := s.finalsOf(ctx, us, ats)
	if err != nil {
		return err
	}
	updateRow := func(i int, args []any) []any {
		u := &us[i]
		return append(args, u.UID, string(u.State), u.Retries, blob(u.Result), u.Error, ats[i])
	}
	txName := func(i int) string { return "tx " + us[i].UID }
	// The last own change of each uid, in the order of the uids' first
	// updates. The uids of attempt-only updates are checked by the foreign
	// key of their attempts.
	last, _ := store.RowUpdates(us)
	changes := make(map[string]bool, len(hist))
	for i := range hist {
		changes[hist[i].UID] = true
	}
	var moved, same []int // indexes into us
	for _, i := range last {
		if changes[us[i].UID] {
			moved = append(moved, i)
		} else {
			same = append(same, i)
		}
	}
	if len(same) > 0 {
		n, _, _, err := s.execRows(ctx, kindUpdateTxSame, len(same), func(i int, args []any) []any { return updateRow(same[i], args) })
		if err != nil && !refused(err) {
			return fmt.Errorf("sqlite: apply: %w", err)
		}
		if err != nil || n != int64(len(same)) {
			moved = append(moved, same...) // the full statement finds which, and names it
		}
	}
	movedRow := func(i int, args []any) []any { return updateRow(moved[i], args) }
	movedName := func(i int) string { return txName(moved[i]) }
	if err := s.writeRows(ctx, kindUpdateTx, len(moved), movedRow, movedName); err != nil {
		return err
	}
	// The last version of each (uid, n), in the order of their first
	// versions: an upsert sets every column, so the earlier versions of an
	// attempt in the batch would be overwritten anyway (a turn often plans,
	// signs and sends one attempt).
	type attemptKey struct {
		uid string
		n   int
	}
	with := make([]int, 0, len(us))
	apos := make(map[attemptKey]int, len(us))
	for i := range us {
		a := us[i].Attempt
		if a == nil {
			continue
		}
		k := attemptKey{us[i].UID, a.N}
		if j, ok := apos[k]; ok {
			with[j] = i
			continue
		}
		apos[k] = len(with)
		with = append(with, i)
	}
	if err := s.writeRows(ctx, kindUpsertAttempt, len(with), func(i int, args []any) []any {
		u := &us[with[i]]
		a := u.Attempt
		return append(args, u.UID, a.N, a.Sender, int64(a.Nonce), int64(a.Fee), a.Hash, nanos(a.At),
			a.Outcome, a.Error, int64(a.Height), int64(a.Gas), a.Cancel)
	}, func(i int) string { return fmt.Sprintf("tx %s: attempt %d", us[with[i]].UID, us[with[i]].Attempt.N) }); err != nil {
		return err
	}
	return s.logFinals(ctx, finals)
}

// writeRows writes n rows of kind k with multi-row statements. When a
// statement is refused, or an update finds fewer transactions than it names
// (an unknown uid), it writes the rows again one per statement to report
// the first refused row by name(i) (the batch fails and is rolled back
// anyway).
func (s *Store) writeRows(ctx context.Context, k rowKind, n int, row func(i int, args []any) []any, name func(i int) string) error {
	changed, lo, hi, err := s.execRows(ctx, k, n, row)
	switch {
	case err != nil && refused(err):
	case err != nil:
		return fmt.Errorf("sqlite: apply: %w", err)
	case k == kindUpdateTx && changed != int64(n):
		lo, hi = 0, n
	default:
		return nil
	}
	for i := lo; i < hi; i++ {
		changed, _, _, err := s.execRows(ctx, k, 1, func(_ int, args []any) []any { return row(i, args) })
		switch {
		case err != nil && isForeignKey(err):
			return fmt.Errorf("sqlite: apply: %s: %w", name(i), store.ErrNotFound)
		case err != nil:
			return fmt.Errorf("sqlite: apply: %s: %w", name(i), err)
		case k == kindUpdateTx && changed == 0:
			return fmt.Errorf("sqlite: apply: %s: %w", name(i), store.ErrNotFound)
		}
	}
	if err == nil { // an update's count fell short, yet every row matched alone
		return fmt.Errorf("sqlite: apply: %d of %d transactions updated: %w", changed, n, store.ErrNotFound)
	}
	if isForeignKey(err) {
		return fmt.Errorf("sqlite: apply: %w: %w", err, store.ErrNotFound)
	}
	return fmt.Errorf("sqlite: apply: %w", err)
}

// at is t in unix nanoseconds, or now if t is zero.
func (s *Store) at(t time.Time) int64 {
	if t.IsZero() {
		t = s.opts.Now()
	}
	return t.UnixNano()
}
