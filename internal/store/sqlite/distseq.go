package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/writeq"
)

// The distributed sequencer's records (store.DistseqStore, seed 003), on
// the same database as the others.
//
// Schema (migrations/0005_distseq.sql): distseq_groups and distseq_members
// (a replaced group rewrites its members), distseq_intents (idempotency_key
// UNIQUE where not NULL), distseq_dispatches, distseq_outbox,
// distseq_states (PRIMARY KEY (contract, id); an upsert fills a row
// without data and only ever sets spent), distseq_received and distseq_cursor (one row). Each read has
// its index (see the migration).
//
// The write path. ApplyDistseq hands the batch to the store's committer
// (write.go), which runs applyDistseq on the writer connection inside a
// group transaction shared with the other engines' writes: one fsync for
// the group. A duplicate idempotency key is the request's own failure (a
// constraint, refused()): the group runs again without it.
//
// Invariants:
//   - an acknowledged ApplyDistseq is committed; a failed one wrote nothing;
//   - records are written in the batch's order, kind by kind (groups,
//     intents, dispatches, outbox, states, received, cursor), so the later
//     record of a key wins;
//   - ApplyDistseq refuses, writing nothing, a record with an empty key
//     (Contract of a group, TxID, ID, (Contract, ID) of a state, a received
//     id), an intent or dispatch status outside its vocabulary, a negative
//     Threshold or Attempts, and an intent whose idempotency key another
//     TxID holds (in the store or earlier in the batch), the last wrapping
//     store.ErrDuplicateKey.

var _ store.DistseqStore = (*Store)(nil)

// execer is a connection, or a transaction, that runs statements.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// The distseq write statements; each binds its columns in the order of
// the read's column lists (distseq_read.go).
const (
	distseqGroupSQL = `INSERT INTO distseq_groups (contract, threshold, height) VALUES (?, ?, ?)
		ON CONFLICT (contract) DO UPDATE SET threshold = excluded.threshold, height = excluded.height`
	distseqDelMembersSQL = `DELETE FROM distseq_members WHERE contract = ?`
	distseqMemberSQL     = `INSERT INTO distseq_members (contract, idx, id, public_key) VALUES (?, ?, ?, ?)`
	distseqIntentSQL     = `INSERT INTO distseq_intents (` + distseqIntentCols + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (tx_id) DO UPDATE SET
			contract = excluded.contract, idempotency_key = excluded.idempotency_key,
			payload = excluded.payload, status = excluded.status, reason = excluded.reason,
			attempts = excluded.attempts, created_at = excluded.created_at, updated_at = excluded.updated_at,
			prepare = excluded.prepare, prepared = excluded.prepared, granted = excluded.granted`
	distseqDispatchSQL = `INSERT INTO distseq_dispatches (` + distseqDispatchCols + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (tx_id) DO UPDATE SET
			contract = excluded.contract, sender = excluded.sender, delegation_id = excluded.delegation_id,
			payload = excluded.payload, height = excluded.height, status = excluded.status,
			created_at = excluded.created_at, updated_at = excluded.updated_at`
	distseqOutboxSQL = `INSERT INTO distseq_outbox (` + distseqOutboxCols + `) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET
			contract = excluded.contract, recipient = excluded.recipient, payload = excluded.payload,
			acked = excluded.acked, created_at = excluded.created_at, updated_at = excluded.updated_at`
	distseqStateSQL = `INSERT INTO distseq_states (` + distseqStateCols + `) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (contract, id) DO UPDATE SET
			data = CASE WHEN length(coalesce(distseq_states.data, x'')) = 0 THEN excluded.data ELSE distseq_states.data END,
			created_by = CASE WHEN length(coalesce(distseq_states.data, x'')) = 0 THEN excluded.created_by ELSE distseq_states.created_by END,
			height = CASE WHEN length(coalesce(distseq_states.data, x'')) = 0 THEN excluded.height ELSE distseq_states.height END,
			spent_by = CASE WHEN distseq_states.spent THEN distseq_states.spent_by ELSE excluded.spent_by END,
			spent = distseq_states.spent OR excluded.spent`
	distseqReceivedSQL = `INSERT INTO distseq_received (id) VALUES (?) ON CONFLICT (id) DO NOTHING`
	distseqCursorSQL   = `INSERT INTO distseq_cursor (k, value) VALUES (0, ?)
		ON CONFLICT (k) DO UPDATE SET value = excluded.value`
)

// ApplyDistseq implements store.DistseqStore: b commits atomically (see the
// write path above). A batch that is invalid on its face is refused before
// any write; an intent whose idempotency key another transaction id holds
// is refused by the database, with an error wrapping store.ErrDuplicateKey.
// Either way the call writes nothing. An empty batch returns ctx.Err().
func (s *Store) ApplyDistseq(ctx context.Context, b store.DistseqBatch) error {
	if b.Empty() {
		return ctx.Err()
	}
	if err := b.Validate(); err != nil {
		return fmt.Errorf("sqlite: apply distseq: %w", err)
	}
	w := len(b.Groups) + len(b.Intents) + len(b.Dispatches) + len(b.Outbox) + len(b.States) + len(b.Received) + 1
	r := &request{Req: writeq.NewReq(ctx, w), distseq: &b}
	if err := s.q.Submit(ctx, r); err != nil {
		return fmt.Errorf("sqlite: apply distseq: %w", err)
	}
	return nil
}

// applyDistseq writes b's records on ex, kind by kind, each kind in b's
// order, inside a transaction its caller holds.
func (s *Store) applyDistseq(ctx context.Context, ex execer, b *store.DistseqBatch) error {
	for _, g := range b.Groups {
		if _, err := ex.ExecContext(ctx, distseqGroupSQL, g.Contract, g.Threshold, int64(g.Height)); err != nil {
			return fmt.Errorf("group %s: %w", g.Contract, err)
		}
		if _, err := ex.ExecContext(ctx, distseqDelMembersSQL, g.Contract); err != nil {
			return fmt.Errorf("group %s: %w", g.Contract, err)
		}
		for i, m := range g.Members {
			if _, err := ex.ExecContext(ctx, distseqMemberSQL, g.Contract, i, m.ID, m.PublicKey); err != nil {
				return fmt.Errorf("group %s: member %d: %w", g.Contract, i, err)
			}
		}
	}
	for _, in := range b.Intents {
		if _, err := ex.ExecContext(ctx, distseqIntentSQL, in.TxID, in.Contract, nullString(in.IdempotencyKey),
			blob(in.Payload), in.Status, in.Reason, in.Attempts, nanos(in.CreatedAt), nanos(in.UpdatedAt), in.Prepare, blob(in.Prepared),
			blob(store.EncodeGranted(in.Granted))); err != nil {
			if isUnique(err) {
				// The only UNIQUE constraint an intent upsert can break:
				// the primary key's conflict is its ON CONFLICT target.
				return fmt.Errorf("intent %s: key %q: %w: %w", in.TxID, in.IdempotencyKey, store.ErrDuplicateKey, err)
			}
			return fmt.Errorf("intent %s: %w", in.TxID, err)
		}
	}
	for _, d := range b.Dispatches {
		if _, err := ex.ExecContext(ctx, distseqDispatchSQL, d.TxID, d.Contract, d.Sender, d.DelegationID,
			blob(d.Payload), int64(d.Height), d.Status, nanos(d.CreatedAt), nanos(d.UpdatedAt)); err != nil {
			return fmt.Errorf("dispatch %s: %w", d.TxID, err)
		}
	}
	for _, o := range b.Outbox {
		if _, err := ex.ExecContext(ctx, distseqOutboxSQL, o.ID, o.Contract, o.To, blob(o.Payload), o.Acked,
			nanos(o.CreatedAt), nanos(o.UpdatedAt)); err != nil {
			return fmt.Errorf("distribution %s: %w", o.ID, err)
		}
	}
	for _, st := range b.States {
		if _, err := ex.ExecContext(ctx, distseqStateSQL, st.Contract, st.ID, blob(st.Data), st.CreatedBy,
			st.Spent, st.SpentBy, int64(st.Height)); err != nil {
			return fmt.Errorf("state %s/%s: %w", st.Contract, st.ID, err)
		}
	}
	for _, id := range b.Received {
		if _, err := ex.ExecContext(ctx, distseqReceivedSQL, id); err != nil {
			return fmt.Errorf("received %s: %w", id, err)
		}
	}
	if b.Cursor != nil {
		if _, err := ex.ExecContext(ctx, distseqCursorSQL, int64(*b.Cursor)); err != nil {
			return fmt.Errorf("cursor: %w", err)
		}
	}
	return nil
}
