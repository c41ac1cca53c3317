package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/ordolabs/ordo/internal/store"
)

// The distributed sequencer's reads, on the pool, each served by an index
// of 0005. The orders by created_at put a zero time (NULL) last, where
// SQLite puts it first: PostgreSQL's default for the ascending indexes
// that serve them (the engine always sets CreatedAt).

const (
	distseqGroupsReadSQL = `SELECT g.contract, g.threshold, g.height, m.id, m.public_key
		FROM distseq_groups g LEFT JOIN distseq_members m ON m.contract = g.contract`
	distseqGroupReadSQL  = distseqGroupsReadSQL + ` WHERE g.contract = $1 ORDER BY m.idx`
	distseqGroupsAllSQL  = distseqGroupsReadSQL + ` ORDER BY g.contract, m.idx`
	distseqIntentReadSQL = `SELECT ` + distseqIntentCols + ` FROM distseq_intents WHERE tx_id = $1`
	distseqIntentByKey   = `SELECT ` + distseqIntentCols + ` FROM distseq_intents WHERE idempotency_key = $1`
	distseqIntentsOrder  = ` ORDER BY created_at, tx_id LIMIT $1`
	distseqIntentsAll    = `SELECT ` + distseqIntentCols + ` FROM distseq_intents` + distseqIntentsOrder
	distseqIntentsStatus = `SELECT ` + distseqIntentCols + ` FROM distseq_intents WHERE status = $2` + distseqIntentsOrder
	distseqIntentsContr  = `SELECT ` + distseqIntentCols + ` FROM distseq_intents WHERE contract = $2` + distseqIntentsOrder
	distseqIntentsBoth   = `SELECT ` + distseqIntentCols + ` FROM distseq_intents
		WHERE contract = $2 AND status = $3` + distseqIntentsOrder
	distseqOpenSQL = `SELECT ` + distseqDispatchCols + ` FROM distseq_dispatches
		WHERE status = 'dispatched' ORDER BY created_at, tx_id`
	distseqPendingSQL = `SELECT ` + distseqOutboxCols + ` FROM distseq_outbox
		WHERE acked = 0 ORDER BY created_at, id`
	distseqStatesReadSQL = `SELECT ` + distseqStateCols + ` FROM distseq_states
		WHERE contract = $1 ORDER BY height, id`
	distseqUnspentSQL = `SELECT ` + distseqStateCols + ` FROM distseq_states
		WHERE contract = $1 AND spent = 0 ORDER BY height, id`
	distseqStatesByIDSQL = `SELECT ` + distseqStateCols + ` FROM distseq_states
		WHERE contract = $1 AND id = ANY($2::text[]) ORDER BY id`
	distseqStatesCreatedBySQL = `SELECT ` + distseqStateCols + ` FROM distseq_states
		WHERE contract = $1 AND created_by = ANY($2::text[]) ORDER BY id`
	distseqReceivedRead = `SELECT 1 FROM distseq_received WHERE id = $1`
	distseqCursorRead   = `SELECT value FROM distseq_cursor WHERE k = 0`
)

func scanDistseqIntent(row pgx.Row) (store.DistseqIntent, error) {
	var (
		in                         store.DistseqIntent
		key                        *string
		payload, prepared, granted []byte
		attempts, prepare          int64
		created, updated           *int64
	)
	if err := row.Scan(&in.TxID, &in.Contract, &key, &payload, &in.Status, &in.Reason, &attempts,
		&created, &updated, &prepare, &prepared, &granted); err != nil {
		return store.DistseqIntent{}, err
	}
	in.IdempotencyKey = deref(key)
	in.Payload = blob(payload)
	in.Attempts = int(attempts)
	in.Prepare = prepare != 0
	in.Prepared = blob(prepared)
	g, err := store.DecodeGranted(granted)
	if err != nil {
		return store.DistseqIntent{}, err
	}
	in.Granted = g
	in.CreatedAt = fromNanos(created)
	in.UpdatedAt = fromNanos(updated)
	return in, nil
}

func scanDistseqDispatch(row pgx.Row) (store.DistseqDispatch, error) {
	var (
		d                store.DistseqDispatch
		payload          []byte
		height           int64
		created, updated *int64
	)
	if err := row.Scan(&d.TxID, &d.Contract, &d.Sender, &d.DelegationID, &payload, &height, &d.Status,
		&created, &updated); err != nil {
		return store.DistseqDispatch{}, err
	}
	d.Payload = blob(payload)
	d.Height = uint64(height)
	d.CreatedAt = fromNanos(created)
	d.UpdatedAt = fromNanos(updated)
	return d, nil
}

func scanDistseqDistribution(row pgx.Row) (store.DistseqDistribution, error) {
	var (
		o                store.DistseqDistribution
		payload          []byte
		acked            int64
		created, updated *int64
	)
	if err := row.Scan(&o.ID, &o.Contract, &o.To, &payload, &acked, &created, &updated); err != nil {
		return store.DistseqDistribution{}, err
	}
	o.Payload = blob(payload)
	o.Acked = acked != 0
	o.CreatedAt = fromNanos(created)
	o.UpdatedAt = fromNanos(updated)
	return o, nil
}

func scanDistseqState(row pgx.Row) (store.DistseqState, error) {
	var (
		st            store.DistseqState
		data          []byte
		spent, height int64
	)
	if err := row.Scan(&st.Contract, &st.ID, &data, &st.CreatedBy, &spent, &st.SpentBy, &height); err != nil {
		return store.DistseqState{}, err
	}
	st.Data = blob(data)
	st.Spent = spent != 0
	st.Height = uint64(height)
	return st, nil
}

// groupRow is a row of distseqGroupsReadSQL: one per member, or one with
// NULL member columns for a group without members.
type groupRow struct {
	contract   string
	threshold  int64
	height     int64
	id, pubKey *string
}

func scanGroupRow(row pgx.Row) (groupRow, error) {
	var g groupRow
	err := row.Scan(&g.contract, &g.threshold, &g.height, &g.id, &g.pubKey)
	return g, err
}

// readGroups folds the rows of distseqGroupsReadSQL into groups.
func (s *Store) readGroups(ctx context.Context, sql string, args ...any) ([]store.DistseqGroup, error) {
	rows, err := collect(ctx, s, sql, scanGroupRow, args...)
	if err != nil {
		return nil, err
	}
	out := []store.DistseqGroup{}
	for _, r := range rows {
		if n := len(out); n == 0 || out[n-1].Contract != r.contract {
			out = append(out, store.DistseqGroup{Contract: r.contract, Threshold: int(r.threshold),
				Height: uint64(r.height), Members: []store.DistseqMember{}})
		}
		if r.id != nil {
			g := &out[len(out)-1]
			g.Members = append(g.Members, store.DistseqMember{ID: *r.id, PublicKey: deref(r.pubKey)})
		}
	}
	return out, nil
}

// DistseqGroup implements store.DistseqStore. Members is never nil.
func (s *Store) DistseqGroup(ctx context.Context, contract string) (store.DistseqGroup, error) {
	gs, err := s.readGroups(ctx, distseqGroupReadSQL, contract)
	if err != nil {
		return store.DistseqGroup{}, fmt.Errorf("postgres: distseq group %s: %w", contract, err)
	}
	if len(gs) == 0 {
		return store.DistseqGroup{}, fmt.Errorf("postgres: distseq group %s: %w", contract, store.ErrNotFound)
	}
	return gs[0], nil
}

// DistseqGroups implements store.DistseqStore: in Contract order, never nil.
func (s *Store) DistseqGroups(ctx context.Context) ([]store.DistseqGroup, error) {
	gs, err := s.readGroups(ctx, distseqGroupsAllSQL)
	if err != nil {
		return nil, fmt.Errorf("postgres: distseq groups: %w", err)
	}
	return gs, nil
}

// DistseqIntent implements store.DistseqStore.
func (s *Store) DistseqIntent(ctx context.Context, txID string) (store.DistseqIntent, error) {
	in, err := engOne(ctx, s, scanDistseqIntent, distseqIntentReadSQL, txID)
	if err != nil {
		return store.DistseqIntent{}, fmt.Errorf("postgres: distseq intent %s: %w", txID, err)
	}
	return in, nil
}

// DistseqIntentByKey implements store.DistseqStore: the empty key is never
// found.
func (s *Store) DistseqIntentByKey(ctx context.Context, key string) (store.DistseqIntent, error) {
	if key == "" {
		return store.DistseqIntent{}, fmt.Errorf("postgres: distseq intent of empty key: %w", store.ErrNotFound)
	}
	in, err := engOne(ctx, s, scanDistseqIntent, distseqIntentByKey, key)
	if err != nil {
		return store.DistseqIntent{}, fmt.Errorf("postgres: distseq intent of key %q: %w", key, err)
	}
	return in, nil
}

// DistseqIntents implements store.DistseqStore: never nil. A Limit of 0 or
// less means 100, more than 1000 means 1000 (as the other lists).
func (s *Store) DistseqIntents(ctx context.Context, f store.DistseqIntentFilter) ([]store.DistseqIntent, error) {
	limit := store.ClampLimit(f.Limit)
	var (
		out []store.DistseqIntent
		err error
	)
	switch {
	case f.Status == "" && f.Contract == "":
		out, err = collect(ctx, s, distseqIntentsAll, scanDistseqIntent, limit)
	case f.Contract == "":
		out, err = collect(ctx, s, distseqIntentsStatus, scanDistseqIntent, limit, f.Status)
	case f.Status == "":
		out, err = collect(ctx, s, distseqIntentsContr, scanDistseqIntent, limit, f.Contract)
	default:
		out, err = collect(ctx, s, distseqIntentsBoth, scanDistseqIntent, limit, f.Contract, f.Status)
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: distseq intents: %w", err)
	}
	return out, nil
}

// DistseqOpenDispatches implements store.DistseqStore: never nil.
func (s *Store) DistseqOpenDispatches(ctx context.Context) ([]store.DistseqDispatch, error) {
	out, err := collect(ctx, s, distseqOpenSQL, scanDistseqDispatch)
	if err != nil {
		return nil, fmt.Errorf("postgres: distseq open dispatches: %w", err)
	}
	return out, nil
}

// DistseqPendingOutbox implements store.DistseqStore: never nil.
func (s *Store) DistseqPendingOutbox(ctx context.Context) ([]store.DistseqDistribution, error) {
	out, err := collect(ctx, s, distseqPendingSQL, scanDistseqDistribution)
	if err != nil {
		return nil, fmt.Errorf("postgres: distseq pending outbox: %w", err)
	}
	return out, nil
}

// DistseqStates implements store.DistseqStore: never nil.
func (s *Store) DistseqStates(ctx context.Context, contract string, unspentOnly bool) ([]store.DistseqState, error) {
	q := distseqStatesReadSQL
	if unspentOnly {
		q = distseqUnspentSQL
	}
	out, err := collect(ctx, s, q, scanDistseqState, contract)
	if err != nil {
		return nil, fmt.Errorf("postgres: distseq states of %s: %w", contract, err)
	}
	return out, nil
}

// DistseqStatesByID implements store.DistseqStore.
func (s *Store) DistseqStatesByID(ctx context.Context, contract string, ids []string) ([]store.DistseqState, error) {
	out, err := collect(ctx, s, distseqStatesByIDSQL, scanDistseqState, contract, ids)
	if err != nil {
		return nil, fmt.Errorf("postgres: distseq states by id of %s: %w", contract, err)
	}
	return out, nil
}

// DistseqStatesCreatedBy implements store.DistseqStore.
func (s *Store) DistseqStatesCreatedBy(ctx context.Context, contract string, txIDs []string) ([]store.DistseqState, error) {
	out, err := collect(ctx, s, distseqStatesCreatedBySQL, scanDistseqState, contract, txIDs)
	if err != nil {
		return nil, fmt.Errorf("postgres: distseq states created by of %s: %w", contract, err)
	}
	return out, nil
}

// DistseqReceived implements store.DistseqStore.
func (s *Store) DistseqReceived(ctx context.Context, id string) (bool, error) {
	_, err := engOne(ctx, s, scanInt64, distseqReceivedRead, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("postgres: distseq received %s: %w", id, err)
	}
	return true, nil
}

// DistseqCursor implements store.DistseqStore.
func (s *Store) DistseqCursor(ctx context.Context) (uint64, bool, error) {
	v, err := engOne(ctx, s, scanInt64, distseqCursorRead)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return 0, false, nil
	case err != nil:
		return 0, false, fmt.Errorf("postgres: distseq cursor: %w", err)
	}
	return uint64(v), true, nil
}
