package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ordolabs/ordo/internal/store"
)

// The processor's reads, on the pool. A call that runs several queries runs
// them in one read-only repeatable-read transaction (one snapshot). Each is
// served by an index of 0003, as SQLite's.

const (
	// The WHERE is the partial index's own: it serves the order too.
	procLiveBatchesSQL = `SELECT ` + procBatchCols + ` FROM proc_batches
		WHERE state <> 'done' ORDER BY processor, priority, key, id`
	procPendingCallbacksSQL = `SELECT ` + callbackCols + ` FROM proc_callbacks
		WHERE state = 'pending' ORDER BY processor, seq`
	procProcessorsSQL = `SELECT ` + processorCols + ` FROM processors ORDER BY name`
	engCursorsSQL     = `SELECT name, value FROM cursors ORDER BY name`
	procProcessorSQL  = `SELECT ` + processorCols + ` FROM processors WHERE name = $1`
	procListSQL       = `SELECT ` + processorCols + ` FROM processors WHERE name > $1 ORDER BY name LIMIT $2`
	procBatchSQL      = `SELECT ` + procBatchCols + ` FROM proc_batches WHERE processor = $1 AND id = $2`
	procQueuedSQL     = `SELECT ` + procBatchCols + ` FROM proc_batches
		WHERE processor = $1 AND priority = $2 AND state = 'queued'
		ORDER BY key, id LIMIT $3 OFFSET $4`
	procCallbacksSQL = `SELECT ` + callbackCols + ` FROM proc_callbacks
		WHERE processor = $1 AND seq > $2 ORDER BY seq LIMIT $3`
	procCursorSQL      = `SELECT value FROM cursors WHERE name = $1`
	procBatchCountsSQL = `SELECT priority, state, COUNT(*) FROM proc_batches
		WHERE processor = $1 GROUP BY priority, state`
	procCallbackCountsSQL = `SELECT state, COUNT(*) FROM proc_callbacks
		WHERE processor = $1 GROUP BY state`
)

func scanProcessor(row pgx.Row) (store.Processor, error) {
	var (
		p                        store.Processor
		tick, lanes, paused      int64
		created, updated         *int64
		nextID, nextCallback     int64
		name, owner, callbackURL string
	)
	if err := row.Scan(&name, &owner, &callbackURL, &tick, &lanes, &paused,
		&nextID, &nextCallback, &created, &updated); err != nil {
		return store.Processor{}, err
	}
	p.Name, p.Owner, p.CallbackURL = name, owner, callbackURL
	p.AutoTick = time.Duration(tick)
	p.Lanes = int(lanes)
	p.Paused = paused != 0
	p.NextID, p.NextCallback = nextID, nextCallback
	p.CreatedAt = fromNanos(created)
	p.UpdatedAt = fromNanos(updated)
	return p, nil
}

func scanProcBatch(row pgx.Row) (store.ProcBatch, error) {
	var (
		b                store.ProcBatch
		state            string
		body             []byte
		created, updated *int64
	)
	if err := row.Scan(&b.Processor, &b.ID, &b.Priority, &state, &b.Key, &body, &created, &updated); err != nil {
		return store.ProcBatch{}, err
	}
	b.State = store.BatchState(state)
	b.Body = blob(body)
	b.CreatedAt = fromNanos(created)
	b.UpdatedAt = fromNanos(updated)
	return b, nil
}

func scanCallback(row pgx.Row) (store.Callback, error) {
	var (
		c                        store.Callback
		key                      *string
		state                    string
		body                     []byte
		attempts                 int64
		next, delivered, created *int64
	)
	if err := row.Scan(&c.Processor, &c.Seq, &c.BatchID, &key, &body, &state, &attempts, &next,
		&c.LastError, &delivered, &created); err != nil {
		return store.Callback{}, err
	}
	c.Key = deref(key)
	c.Body = blob(body)
	c.State = store.CallbackState(state)
	c.Attempts = int(attempts)
	c.NextAt = fromNanos(next)
	c.DeliveredAt = fromNanos(delivered)
	c.CreatedAt = fromNanos(created)
	return c, nil
}

func scanCursor(row pgx.Row) (store.Cursor, error) {
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
// from one snapshot. They are never nil.
func (s *Store) ProcessorSnapshot(ctx context.Context) (store.ProcSnapshot, error) {
	var snap store.ProcSnapshot
	err := s.inTx(ctx, snapshot, func(tx pgx.Tx) error {
		var err error
		if snap.Processors, err = engCollect(ctx, tx, procProcessorsSQL, scanProcessor); err != nil {
			return err
		}
		if snap.Batches, err = engCollect(ctx, tx, procLiveBatchesSQL, scanProcBatch); err != nil {
			return err
		}
		if snap.Callbacks, err = engCollect(ctx, tx, procPendingCallbacksSQL, scanCallback); err != nil {
			return err
		}
		snap.Cursors, err = engCollect(ctx, tx, engCursorsSQL, scanCursor)
		return err
	})
	if err != nil {
		return store.ProcSnapshot{}, fmt.Errorf("postgres: processor snapshot: %w", err)
	}
	return snap, nil
}

// GetProcessor implements store.ProcessorStore.
func (s *Store) GetProcessor(ctx context.Context, name string) (store.Processor, error) {
	p, err := engOne(ctx, s, scanProcessor, procProcessorSQL, name)
	if err != nil {
		return store.Processor{}, fmt.Errorf("postgres: get processor %s: %w", name, err)
	}
	return p, nil
}

// ListProcessors implements store.ProcessorStore.
func (s *Store) ListProcessors(ctx context.Context, after string, limit int) ([]store.Processor, error) {
	out, err := collect(ctx, s, procListSQL, scanProcessor, after, store.ClampLimit(limit))
	if err != nil {
		return nil, fmt.Errorf("postgres: list processors: %w", err)
	}
	return out, nil
}

// GetBatch implements store.ProcessorStore.
func (s *Store) GetBatch(ctx context.Context, processor, id string) (store.ProcBatch, error) {
	b, err := engOne(ctx, s, scanProcBatch, procBatchSQL, processor, id)
	if err != nil {
		return store.ProcBatch{}, fmt.Errorf("postgres: get batch %s/%s: %w", processor, id, err)
	}
	return b, nil
}

// QueuedBatches implements store.ProcessorStore. Batches with equal Keys
// come in ID order (byte order); a negative offset is 0.
func (s *Store) QueuedBatches(ctx context.Context, processor, priority string, offset, limit int) ([]store.ProcBatch, error) {
	out, err := collect(ctx, s, procQueuedSQL, scanProcBatch, processor, priority, store.ClampLimit(limit), max(offset, 0))
	if err != nil {
		return nil, fmt.Errorf("postgres: queued batches %s/%s: %w", processor, priority, err)
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
	err := s.inTx(ctx, snapshot, func(tx pgx.Tx) error {
		var (
			priority, state string
			n               int64
		)
		rows, err := tx.Query(ctx, procBatchCountsSQL, processor)
		if err != nil {
			return err
		}
		if _, err := pgx.ForEachRow(rows, []any{&priority, &state, &n}, func() error {
			switch store.BatchState(state) {
			case store.BatchQueued:
				pc.Queued[priority] += int(n)
			case store.BatchExecuting:
				pc.Executing += int(n)
			case store.BatchPending:
				pc.Pending += int(n)
			case store.BatchDone:
				pc.Done += int(n)
			}
			return nil
		}); err != nil {
			return err
		}
		rows, err = tx.Query(ctx, procCallbackCountsSQL, processor)
		if err != nil {
			return err
		}
		_, err = pgx.ForEachRow(rows, []any{&state, &n}, func() error {
			pc.Callbacks[store.CallbackState(state)] = int(n)
			return nil
		})
		return err
	})
	if err != nil {
		return store.ProcCounts{}, fmt.Errorf("postgres: processor counts %s: %w", processor, err)
	}
	return pc, nil
}

// Callbacks implements store.ProcessorStore.
func (s *Store) Callbacks(ctx context.Context, processor string, after int64, limit int) ([]store.Callback, error) {
	out, err := collect(ctx, s, procCallbacksSQL, scanCallback, processor, after, store.ClampLimit(limit))
	if err != nil {
		return nil, fmt.Errorf("postgres: callbacks %s: %w", processor, err)
	}
	return out, nil
}

// Cursor implements store.ProcessorStore: 0 for a cursor never written.
func (s *Store) Cursor(ctx context.Context, name string) (uint64, error) {
	v, err := engOne(ctx, s, scanInt64, procCursorSQL, name)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return 0, nil
	case err != nil:
		return 0, fmt.Errorf("postgres: cursor %s: %w", name, err)
	}
	return uint64(v), nil
}

// engCollect runs a query in q and scans every row; the result is never
// nil.
func engCollect[T any](ctx context.Context, q querier, sql string, scan func(pgx.Row) (T, error), args ...any) ([]T, error) {
	rows, err := q.Query(ctx, sql, args...)
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

// engOne runs a query of one row on the pool and scans it; no row is
// store.ErrNotFound.
func engOne[T any](ctx context.Context, s *Store, scan func(pgx.Row) (T, error), sql string, args ...any) (T, error) {
	var zero T
	if s.isClosed() {
		return zero, ErrClosed
	}
	v, err := scan(s.pool.QueryRow(ctx, sql, args...))
	if errors.Is(err, pgx.ErrNoRows) {
		return zero, store.ErrNotFound
	}
	return v, err
}

// scanInt64 reads a row of one BIGINT.
func scanInt64(row pgx.Row) (int64, error) {
	var v int64
	err := row.Scan(&v)
	return v, err
}
