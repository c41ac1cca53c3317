package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/ordolabs/ordo/internal/store"
)

// The distributed sequencer's records (store.DistseqStore, seed 003), on
// the same database as the others.
//
// Schema (migrations/0005_distseq.sql): distseq_groups and distseq_members
// (a replaced group rewrites its members), distseq_intents (idempotency_key
// UNIQUE where not NULL), distseq_dispatches, distseq_outbox,
// distseq_states (PRIMARY KEY (contract, id); an upsert sets only spent and
// spent_by), distseq_received and distseq_cursor (one row). Each read has
// its index (see the migration).
//
// The write path. applyDistseq writes a batch on whatever connection runs
// it, inside a transaction its caller holds. Today ApplyDistseq runs it on
// a connection borrowed from the read pool, made writable for the call
// (PRAGMA query_only = 0, restored after), in its own BEGIN IMMEDIATE
// transaction: SQLite's write lock and the busy timeout order it against
// the committer, so it is atomic and durable, but it commits alone (one
// fsync per call) instead of sharing the committer's group commits. Moving
// it onto the committer needs a request kind in write.go (not this file's
// to change): a `distseq *store.DistseqBatch` field in request, a branch
// `if r.distseq != nil { return s.applyDistseq(ctx, s.wconn, r.distseq) }`
// in do, and ApplyDistseq submitting the request; a duplicate key is
// already an error refused() recognises (a constraint).
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
	distseqIntentSQL     = `INSERT INTO distseq_intents (` + distseqIntentCols + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (tx_id) DO UPDATE SET
			contract = excluded.contract, idempotency_key = excluded.idempotency_key,
			payload = excluded.payload, status = excluded.status, reason = excluded.reason,
			attempts = excluded.attempts, created_at = excluded.created_at, updated_at = excluded.updated_at`
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
		ON CONFLICT (contract, id) DO UPDATE SET spent = excluded.spent, spent_by = excluded.spent_by`
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
	s.mu.RLock()
	closed := s.closed
	s.mu.RUnlock()
	if closed {
		return ErrClosed
	}
	if err := s.distseqTx(ctx, &b); err != nil {
		return fmt.Errorf("sqlite: apply distseq: %w", err)
	}
	return nil
}

// distseqTx runs applyDistseq in its own write transaction on a read-pool
// connection made writable for the call.
func (s *Store) distseqTx(ctx context.Context, b *store.DistseqBatch) (err error) {
	c, err := s.rdb.Conn(ctx)
	if err != nil {
		return err
	}
	defer func() {
		// Give the connection back read-only, or not at all.
		if _, rerr := c.ExecContext(context.Background(), `PRAGMA query_only = 1`); rerr != nil {
			_ = c.Raw(func(any) error { return driver.ErrBadConn })
			err = errors.Join(err, rerr)
		}
		_ = c.Close()
	}()
	// One call: the connection becomes writable, as durable as the
	// committer's, and takes the write lock.
	if _, err := c.ExecContext(ctx, `PRAGMA query_only = 0; PRAGMA synchronous = `+s.opts.Synchronous+
		`; BEGIN IMMEDIATE`); err != nil {
		_, _ = c.ExecContext(context.WithoutCancel(ctx), `ROLLBACK`) // in case BEGIN ran
		return err
	}
	// From here the transaction ends whatever ctx does.
	bg := context.WithoutCancel(ctx)
	if err := s.applyDistseq(bg, c, b); err != nil {
		_, _ = c.ExecContext(bg, `ROLLBACK`)
		return err
	}
	if _, err := c.ExecContext(bg, `COMMIT`); err != nil {
		_, _ = c.ExecContext(bg, `ROLLBACK`)
		return fmt.Errorf("commit: %w", err)
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
			blob(in.Payload), in.Status, in.Reason, in.Attempts, nanos(in.CreatedAt), nanos(in.UpdatedAt)); err != nil {
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
