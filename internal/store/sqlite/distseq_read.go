package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ordolabs/ordo/internal/store"
)

// The distributed sequencer's reads, on the read pool, each served by an
// index of 0005 (TestDistseqQueryPlans). A call that runs several queries
// runs them in one read transaction (one snapshot). The statements are
// not among the prepared ones of stmts.go (not this file's to change):
// database/sql prepares each per call.

// Column lists, in the order the writes bind and the reads scan them.
const (
	distseqIntentCols   = `tx_id, contract, idempotency_key, payload, status, reason, attempts, created_at, updated_at, prepare, prepared, granted`
	distseqDispatchCols = `tx_id, contract, sender, delegation_id, payload, height, status, created_at, updated_at`
	distseqOutboxCols   = `id, contract, recipient, payload, acked, created_at, updated_at`
	distseqStateCols    = `contract, id, data, created_by, spent, spent_by, height`
)

// The reads' statements.
const (
	distseqGroupsSQL = `SELECT g.contract, g.threshold, g.height, m.id, m.public_key
		FROM distseq_groups g LEFT JOIN distseq_members m ON m.contract = g.contract`
	distseqGroupSQLRead  = distseqGroupsSQL + ` WHERE g.contract = ? ORDER BY m.idx`
	distseqGroupsAllSQL  = distseqGroupsSQL + ` ORDER BY g.contract, m.idx`
	distseqIntentRead    = `SELECT ` + distseqIntentCols + ` FROM distseq_intents WHERE tx_id = ?`
	distseqIntentByKey   = `SELECT ` + distseqIntentCols + ` FROM distseq_intents WHERE idempotency_key = ?`
	distseqIntentsOrder  = ` ORDER BY created_at, tx_id LIMIT ?`
	distseqIntentsAll    = `SELECT ` + distseqIntentCols + ` FROM distseq_intents` + distseqIntentsOrder
	distseqIntentsStatus = `SELECT ` + distseqIntentCols + ` FROM distseq_intents WHERE status = ?` + distseqIntentsOrder
	distseqIntentsContr  = `SELECT ` + distseqIntentCols + ` FROM distseq_intents WHERE contract = ?` + distseqIntentsOrder
	distseqIntentsBoth   = `SELECT ` + distseqIntentCols + ` FROM distseq_intents
		WHERE contract = ? AND status = ?` + distseqIntentsOrder
	distseqOpenSQL = `SELECT ` + distseqDispatchCols + ` FROM distseq_dispatches
		WHERE status = 'dispatched' ORDER BY created_at, tx_id`
	distseqPendingSQL = `SELECT ` + distseqOutboxCols + ` FROM distseq_outbox
		WHERE acked = 0 ORDER BY created_at, id`
	distseqStatesSQL = `SELECT ` + distseqStateCols + ` FROM distseq_states
		WHERE contract = ? ORDER BY height, id`
	distseqUnspentSQL = `SELECT ` + distseqStateCols + ` FROM distseq_states INDEXED BY distseq_states_unspent
		WHERE contract = ? AND spent = 0 ORDER BY height, id`
	distseqStatesByIDSQL = `SELECT ` + distseqStateCols + ` FROM distseq_states
		WHERE contract = ? AND id IN (SELECT value FROM json_each(?)) ORDER BY id`
	distseqStatesCreatedBySQL = `SELECT ` + distseqStateCols + ` FROM distseq_states
		WHERE contract = ? AND created_by IN (SELECT value FROM json_each(?)) ORDER BY id`
	distseqReceivedRead = `SELECT 1 FROM distseq_received WHERE id = ?`
	distseqCursorRead   = `SELECT value FROM distseq_cursor WHERE k = 0`
)

func scanDistseqIntent(row scanner) (store.DistseqIntent, error) {
	var (
		in               store.DistseqIntent
		key              sql.NullString
		payload          []byte
		prepared         []byte
		granted          []byte
		created, updated sql.NullInt64
	)
	if err := row.Scan(&in.TxID, &in.Contract, &key, &payload, &in.Status, &in.Reason, &in.Attempts,
		&created, &updated, &in.Prepare, &prepared, &granted); err != nil {
		return store.DistseqIntent{}, err
	}
	in.IdempotencyKey = key.String
	in.Payload = rawOrNil(payload)
	in.Prepared = rawOrNil(prepared)
	g, err := store.DecodeGranted(granted)
	if err != nil {
		return store.DistseqIntent{}, err
	}
	in.Granted = g
	in.CreatedAt = fromNanos(created)
	in.UpdatedAt = fromNanos(updated)
	return in, nil
}

func scanDistseqDispatch(row scanner) (store.DistseqDispatch, error) {
	var (
		d                store.DistseqDispatch
		payload          []byte
		height           int64
		created, updated sql.NullInt64
	)
	if err := row.Scan(&d.TxID, &d.Contract, &d.Sender, &d.DelegationID, &payload, &height, &d.Status,
		&created, &updated); err != nil {
		return store.DistseqDispatch{}, err
	}
	d.Payload = rawOrNil(payload)
	d.Height = uint64(height)
	d.CreatedAt = fromNanos(created)
	d.UpdatedAt = fromNanos(updated)
	return d, nil
}

func scanDistseqDistribution(row scanner) (store.DistseqDistribution, error) {
	var (
		o                store.DistseqDistribution
		payload          []byte
		created, updated sql.NullInt64
	)
	if err := row.Scan(&o.ID, &o.Contract, &o.To, &payload, &o.Acked, &created, &updated); err != nil {
		return store.DistseqDistribution{}, err
	}
	o.Payload = rawOrNil(payload)
	o.CreatedAt = fromNanos(created)
	o.UpdatedAt = fromNanos(updated)
	return o, nil
}

func scanDistseqState(row scanner) (store.DistseqState, error) {
	var (
		st     store.DistseqState
		data   []byte
		height int64
	)
	if err := row.Scan(&st.Contract, &st.ID, &data, &st.CreatedBy, &st.Spent, &st.SpentBy, &height); err != nil {
		return store.DistseqState{}, err
	}
	st.Data = rawOrNil(data)
	st.Height = uint64(height)
	return st, nil
}

// readGroups reads the rows of distseqGroupsSQL (one per member, or one
// with NULL member columns for a group without members) into groups.
func readGroups(ctx context.Context, db *sql.DB, query string, args ...any) ([]store.DistseqGroup, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []store.DistseqGroup{}
	for rows.Next() {
		var (
			contract   string
			threshold  int
			height     int64
			id, pubKey sql.NullString
		)
		if err := rows.Scan(&contract, &threshold, &height, &id, &pubKey); err != nil {
			return nil, err
		}
		if n := len(out); n == 0 || out[n-1].Contract != contract {
			out = append(out, store.DistseqGroup{Contract: contract, Threshold: threshold, Height: uint64(height),
				Members: []store.DistseqMember{}})
		}
		if id.Valid {
			g := &out[len(out)-1]
			g.Members = append(g.Members, store.DistseqMember{ID: id.String, PublicKey: pubKey.String})
		}
	}
	return out, rows.Err()
}

// DistseqGroup implements store.DistseqStore. Members is never nil.
func (s *Store) DistseqGroup(ctx context.Context, contract string) (store.DistseqGroup, error) {
	gs, err := readGroups(ctx, s.rdb, distseqGroupSQLRead, contract)
	if err != nil {
		return store.DistseqGroup{}, fmt.Errorf("sqlite: distseq group %s: %w", contract, err)
	}
	if len(gs) == 0 {
		return store.DistseqGroup{}, fmt.Errorf("sqlite: distseq group %s: %w", contract, store.ErrNotFound)
	}
	return gs[0], nil
}

// DistseqGroups implements store.DistseqStore: in Contract order, never nil.
func (s *Store) DistseqGroups(ctx context.Context) ([]store.DistseqGroup, error) {
	gs, err := readGroups(ctx, s.rdb, distseqGroupsAllSQL)
	if err != nil {
		return nil, fmt.Errorf("sqlite: distseq groups: %w", err)
	}
	return gs, nil
}

// DistseqIntent implements store.DistseqStore.
func (s *Store) DistseqIntent(ctx context.Context, txID string) (store.DistseqIntent, error) {
	in, err := scanDistseqIntent(s.rdb.QueryRowContext(ctx, distseqIntentRead, txID))
	if err != nil {
		return store.DistseqIntent{}, fmt.Errorf("sqlite: distseq intent %s: %w", txID, notFound(err))
	}
	return in, nil
}

// DistseqIntentByKey implements store.DistseqStore: the empty key is never
// found.
func (s *Store) DistseqIntentByKey(ctx context.Context, key string) (store.DistseqIntent, error) {
	if key == "" {
		return store.DistseqIntent{}, fmt.Errorf("sqlite: distseq intent of empty key: %w", store.ErrNotFound)
	}
	in, err := scanDistseqIntent(s.rdb.QueryRowContext(ctx, distseqIntentByKey, key))
	if err != nil {
		return store.DistseqIntent{}, fmt.Errorf("sqlite: distseq intent of key %q: %w", key, notFound(err))
	}
	return in, nil
}

// DistseqIntents implements store.DistseqStore: never nil. A Limit of 0 or
// less means 100, more than 1000 means 1000 (as the other lists).
func (s *Store) DistseqIntents(ctx context.Context, f store.DistseqIntentFilter) ([]store.DistseqIntent, error) {
	limit := store.ClampLimit(f.Limit)
	var (
		rows *sql.Rows
		err  error
	)
	switch {
	case f.Status == "" && f.Contract == "":
		rows, err = s.rdb.QueryContext(ctx, distseqIntentsAll, limit)
	case f.Contract == "":
		rows, err = s.rdb.QueryContext(ctx, distseqIntentsStatus, f.Status, limit)
	case f.Status == "":
		rows, err = s.rdb.QueryContext(ctx, distseqIntentsContr, f.Contract, limit)
	default:
		rows, err = s.rdb.QueryContext(ctx, distseqIntentsBoth, f.Contract, f.Status, limit)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: distseq intents: %w", err)
	}
	out, err := collectRows(rows, scanDistseqIntent)
	if err != nil {
		return nil, fmt.Errorf("sqlite: distseq intents: %w", err)
	}
	return out, nil
}

// DistseqOpenDispatches implements store.DistseqStore: never nil.
func (s *Store) DistseqOpenDispatches(ctx context.Context) ([]store.DistseqDispatch, error) {
	rows, err := s.rdb.QueryContext(ctx, distseqOpenSQL)
	if err != nil {
		return nil, fmt.Errorf("sqlite: distseq open dispatches: %w", err)
	}
	out, err := collectRows(rows, scanDistseqDispatch)
	if err != nil {
		return nil, fmt.Errorf("sqlite: distseq open dispatches: %w", err)
	}
	return out, nil
}

// DistseqPendingOutbox implements store.DistseqStore: never nil.
func (s *Store) DistseqPendingOutbox(ctx context.Context) ([]store.DistseqDistribution, error) {
	rows, err := s.rdb.QueryContext(ctx, distseqPendingSQL)
	if err != nil {
		return nil, fmt.Errorf("sqlite: distseq pending outbox: %w", err)
	}
	out, err := collectRows(rows, scanDistseqDistribution)
	if err != nil {
		return nil, fmt.Errorf("sqlite: distseq pending outbox: %w", err)
	}
	return out, nil
}

// DistseqStates implements store.DistseqStore: never nil.
func (s *Store) DistseqStates(ctx context.Context, contract string, unspentOnly bool) ([]store.DistseqState, error) {
	q := distseqStatesSQL
	if unspentOnly {
		q = distseqUnspentSQL
	}
	rows, err := s.rdb.QueryContext(ctx, q, contract)
	if err != nil {
		return nil, fmt.Errorf("sqlite: distseq states of %s: %w", contract, err)
	}
	out, err := collectRows(rows, scanDistseqState)
	if err != nil {
		return nil, fmt.Errorf("sqlite: distseq states of %s: %w", contract, err)
	}
	return out, nil
}

// DistseqStatesByID implements store.DistseqStore. The ids travel as one
// JSON array (json_each), so any number of them is one statement.
func (s *Store) DistseqStatesByID(ctx context.Context, contract string, ids []string) ([]store.DistseqState, error) {
	return s.distseqStatesIn(ctx, distseqStatesByIDSQL, "by id", contract, ids)
}

// distseqStatesIn runs a states query whose second argument is a list.
func (s *Store) distseqStatesIn(ctx context.Context, query, what, contract string, list []string) ([]store.DistseqState, error) {
	arr, err := json.Marshal(list)
	if err != nil {
		return nil, fmt.Errorf("sqlite: distseq states %s: %w", what, err)
	}
	rows, err := s.rdb.QueryContext(ctx, query, contract, string(arr))
	if err != nil {
		return nil, fmt.Errorf("sqlite: distseq states %s of %s: %w", what, contract, err)
	}
	out, err := collectRows(rows, scanDistseqState)
	if err != nil {
		return nil, fmt.Errorf("sqlite: distseq states %s of %s: %w", what, contract, err)
	}
	return out, nil
}

// DistseqStatesCreatedBy implements store.DistseqStore, as
// DistseqStatesByID.
func (s *Store) DistseqStatesCreatedBy(ctx context.Context, contract string, txIDs []string) ([]store.DistseqState, error) {
	return s.distseqStatesIn(ctx, distseqStatesCreatedBySQL, "created by", contract, txIDs)
}

// DistseqReceived implements store.DistseqStore.
func (s *Store) DistseqReceived(ctx context.Context, id string) (bool, error) {
	var one int
	err := s.rdb.QueryRowContext(ctx, distseqReceivedRead, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("sqlite: distseq received %s: %w", id, err)
	}
	return true, nil
}

// DistseqCursor implements store.DistseqStore.
func (s *Store) DistseqCursor(ctx context.Context) (uint64, bool, error) {
	var v int64
	err := s.rdb.QueryRowContext(ctx, distseqCursorRead).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("sqlite: distseq cursor: %w", err)
	}
	return uint64(v), true, nil
}
