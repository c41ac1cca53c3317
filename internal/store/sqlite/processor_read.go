package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

// The processor's reads, on the read pool. A call that runs several queries
// runs them in one read transaction (one snapshot).

// procReadStmts are the processor's read statements, prepared with the
// others (readStmts.prepare) and closed with them.
type procReadStmts struct {
	processors, liveBatches, pendingCallbacks, cursors *sql.Stmt
	processor, batch, queued, callbacks, cursor        *sql.Stmt
	list                                               *sql.Stmt
	batchCounts, callbackCounts                        *sql.Stmt
}

func (r *procReadStmts) prepare(ctx context.Context, db *sql.DB, all *[]*sql.Stmt) error {
	for _, q := range []struct {
		dst **sql.Stmt
		sql string
	}{
		{&r.processors, `SELECT ` + processorCols + ` FROM processors ORDER BY name`},
		// The WHERE is the partial index's own: it serves the order too.
		{&r.liveBatches, `SELECT ` + procBatchCols + ` FROM proc_batches
			WHERE state <> 'done' ORDER BY processor, priority, key, id`},
		{&r.pendingCallbacks, `SELECT ` + callbackCols + ` FROM proc_callbacks
			WHERE state = 'pending' ORDER BY processor, seq`},
		{&r.cursors, `SELECT name, value FROM cursors ORDER BY name`},
		{&r.processor, `SELECT ` + processorCols + ` FROM processors WHERE name = ?`},
		{&r.list, `SELECT ` + processorCols + ` FROM processors WHERE name > ? ORDER BY name LIMIT ?`},
		{&r.batch, `SELECT ` + procBatchCols + ` FROM proc_batches WHERE processor = ? AND id = ?`},
		{&r.queued, `SELECT ` + procBatchCols + ` FROM proc_batches
			WHERE processor = ? AND priority = ? AND state = 'queued'
			ORDER BY key, id LIMIT ? OFFSET ?`},
		{&r.callbacks, `SELECT ` + callbackCols + ` FROM proc_callbacks
			WHERE processor = ? AND seq > ? ORDER BY seq LIMIT ?`},
		{&r.cursor, `SELECT value FROM cursors WHERE name = ?`},
		{&r.batchCounts, `SELECT priority, state, COUNT(*) FROM proc_batches
			WHERE processor = ? GROUP BY priority, state`},
		{&r.callbackCounts, `SELECT state, COUNT(*) FROM proc_callbacks
			WHERE processor = ? GROUP BY state`},
	} {
		if err := prep(ctx, db, all, q.dst, q.sql); err != nil {
			return err
		}
	}
	return nil
}

func scanProcessor(row scanner) (store.Processor, error) {
	var (
		p                store.Processor
		tick             int64
		created, updated sql.NullInt64
	)
	if err := row.Scan(&p.Name, &p.Owner, &p.CallbackURL, &tick, &p.Lanes, &p.Paused,
		&p.NextID, &p.NextCallback, &created, &updated); err != nil {
		return store.Processor{}, err
	}
	p.AutoTick = time.Duration(tick)
	p.CreatedAt = fromNanos(created)
	p.UpdatedAt = fromNanos(updated)
	return p, nil
}

func scanProcBatch(row scanner) (store.ProcBatch, error) {
	var (
		b                store.ProcBatch
		state            string
		body             []byte
		created, updated sql.NullInt64
	)
	if err := row.Scan(&b.Processor, &b.ID, &b.Priority, &state, &b.Key, &body, &created, &updated); err != nil {
		return store.ProcBatch{}, err
	}
	b.State = store.BatchState(state)
	b.Body = rawOrNil(body)
	b.CreatedAt = fromNanos(created)
	b.UpdatedAt = fromNanos(updated)
	return b, nil
}

func scanCallback(row scanner) (store.Callback, error) {
	var (
		c                        store.Callback
		key                      sql.NullString
		state                    string
		body                     []byte
		next, delivered, created sql.NullInt64
	)
	if err := row.Scan(&c.Processor, &c.Seq, &c.BatchID, &key, &body, &state, &c.Attempts, &next,
		&c.LastError, &delivered, &created); err != nil {
		return store.Callback{}, err
	}
	c.Key = key.String
	c.Body = rawOrNil(body)
	c.State = store.CallbackState(state)
	c.NextAt = fromNanos(next)
	c.DeliveredAt = fromNanos(delivered)
	c.CreatedAt = fromNanos(created)
	return c, nil
}

func scanCursor(row scanner) (store.Cursor, error) {
	var (
		c store.Cursor
		v int64
	)
	if err := row.Scan(&c.Name, &v); err != nil {
		return store.Cursor{}, err
	}
	c.Value = uint64(v)
	return c, nil
}

// ProcessorSnapshot implements store.ProcessorStore: the four lists come
// from one read transaction. They are never nil.
func (s *Store) ProcessorSnapshot(ctx context.Context) (store.ProcSnapshot, error) {
	var snap store.ProcSnapshot
	err := s.read(ctx, func(tx *sql.Tx) error {
		var err error
		if snap.Processors, err = txCollect(ctx, tx, s.rs.proc.processors, scanProcessor); err != nil {
			return err
		}
		if snap.Batches, err = txCollect(ctx, tx, s.rs.proc.liveBatches, scanProcBatch); err != nil {
			return err
		}
		if snap.Callbacks, err = txCollect(ctx, tx, s.rs.proc.pendingCallbacks, scanCallback); err != nil {
			return err
		}
		snap.Cursors, err = txCollect(ctx, tx, s.rs.proc.cursors, scanCursor)
		return err
	})
	if err != nil {
		return store.ProcSnapshot{}, fmt.Errorf("sqlite: processor snapshot: %w", err)
	}
	return snap, nil
}

// GetProcessor implements store.ProcessorStore.
func (s *Store) GetProcessor(ctx context.Context, name string) (store.Processor, error) {
	p, err := scanProcessor(s.rs.proc.processor.QueryRowContext(ctx, name))
	if err != nil {
		return store.Processor{}, fmt.Errorf("sqlite: get processor %s: %w", name, notFound(err))
	}
	return p, nil
}

// ListProcessors implements store.ProcessorStore.
func (s *Store) ListProcessors(ctx context.Context, after string, limit int) ([]store.Processor, error) {
	rows, err := s.rs.proc.list.QueryContext(ctx, after, store.ClampLimit(limit))
	if err != nil {
		return nil, fmt.Errorf("sqlite: list processors: %w", err)
	}
	out, err := collectRows(rows, scanProcessor)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list processors: %w", err)
	}
	return out, nil
}

// GetBatch implements store.ProcessorStore.
func (s *Store) GetBatch(ctx context.Context, processor, id string) (store.ProcBatch, error) {
	b, err := scanProcBatch(s.rs.proc.batch.QueryRowContext(ctx, processor, id))
	if err != nil {
		return store.ProcBatch{}, fmt.Errorf("sqlite: get batch %s/%s: %w", processor, id, notFound(err))
	}
	return b, nil
}

// QueuedBatches implements store.ProcessorStore. Batches with equal Keys
// come in ID order; a negative offset is 0.
func (s *Store) QueuedBatches(ctx context.Context, processor, priority string, offset, limit int) ([]store.ProcBatch, error) {
	rows, err := s.rs.proc.queued.QueryContext(ctx, processor, priority, store.ClampLimit(limit), max(offset, 0))
	if err != nil {
		return nil, fmt.Errorf("sqlite: queued batches %s/%s: %w", processor, priority, err)
	}
	out, err := collectRows(rows, scanProcBatch)
	if err != nil {
		return nil, fmt.Errorf("sqlite: queued batches %s/%s: %w", processor, priority, err)
	}
	return out, nil
}

// ProcessorCounts implements store.ProcessorStore. Queued holds the
// priorities that have queued batches; Callbacks holds every callback
// state, zero included. A processor the store does not know counts zero
// everywhere (no error).
func (s *Store) ProcessorCounts(ctx context.Context, processor string) (store.ProcCounts, error) {
	pc := store.ProcCounts{
		Queued: map[string]int{},
		Callbacks: map[store.CallbackState]int{
			store.CallbackPending: 0, store.CallbackDelivered: 0, store.CallbackStored: 0,
		},
	}
	err := s.read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.StmtContext(ctx, s.rs.proc.batchCounts).QueryContext(ctx, processor)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				priority, state string
				n               int
			)
			if err := rows.Scan(&priority, &state, &n); err != nil {
				return err
			}
			switch store.BatchState(state) {
			case store.BatchQueued:
				pc.Queued[priority] += n
			case store.BatchExecuting:
				pc.Executing += n
			case store.BatchPending:
				pc.Pending += n
			case store.BatchDone:
				pc.Done += n
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		crows, err := tx.StmtContext(ctx, s.rs.proc.callbackCounts).QueryContext(ctx, processor)
		if err != nil {
			return err
		}
		defer crows.Close()
		for crows.Next() {
			var (
				state string
				n     int
			)
			if err := crows.Scan(&state, &n); err != nil {
				return err
			}
			pc.Callbacks[store.CallbackState(state)] = n
		}
		return crows.Err()
	})
	if err != nil {
		return store.ProcCounts{}, fmt.Errorf("sqlite: processor counts %s: %w", processor, err)
	}
	return pc, nil
}

// Callbacks implements store.ProcessorStore.
func (s *Store) Callbacks(ctx context.Context, processor string, after int64, limit int) ([]store.Callback, error) {
	rows, err := s.rs.proc.callbacks.QueryContext(ctx, processor, after, store.ClampLimit(limit))
	if err != nil {
		return nil, fmt.Errorf("sqlite: callbacks %s: %w", processor, err)
	}
	out, err := collectRows(rows, scanCallback)
	if err != nil {
		return nil, fmt.Errorf("sqlite: callbacks %s: %w", processor, err)
	}
	return out, nil
}

// Cursor implements store.ProcessorStore.
func (s *Store) Cursor(ctx context.Context, name string) (uint64, error) {
	var v int64
	err := s.rs.proc.cursor.QueryRowContext(ctx, name).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 0, nil
	case err != nil:
		return 0, fmt.Errorf("sqlite: cursor %s: %w", name, err)
	}
	return uint64(v), nil
}

// txCollect runs a prepared query with no arguments in tx and scans every
// row; the result is never nil.
func txCollect[T any](ctx context.Context, tx *sql.Tx, st *sql.Stmt, scan func(scanner) (T, error)) ([]T, error) {
	rows, err := tx.StmtContext(ctx, st).QueryContext(ctx)
	if err != nil {
		return nil, err
	}
	return collectRows(rows, scan)
}

// notFound maps a missing row to store.ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return store.ErrNotFound
	}
	return err
}
