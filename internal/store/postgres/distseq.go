package postgres

import (
	"context"
	"fmt"

	"github.com/ordolabs/ordo/internal/store"
)

// The distributed sequencer's records (store.DistseqStore, seed 003), on
// the same database as the others.
//
// Schema (migrations/0005_distseq.sql, 0006): distseq_groups and
// distseq_members (a replaced group rewrites its members), distseq_intents
// (idempotency_key UNIQUE where not NULL), distseq_dispatches,
// distseq_outbox, distseq_states (PRIMARY KEY (contract, id); an upsert
// fills a row without data and only ever sets spent), distseq_received and
// distseq_cursor (one row). Each read has its index (see the migration).
//
// The write path. ApplyDistseq is one request of the committer
// (committer.go), in a group transaction shared with the other engines'
// writes: one WAL flush for the group. Its statements, one multi-row
// statement per kind and run of distinct keys (engRuns), go in one
// pgx.Batch. A duplicate idempotency key is the request's own failure (a
// unique violation, refused()): the group runs again without it.
//
// Invariants, as SQLite's:
//   - an acknowledged ApplyDistseq is committed; a failed one wrote nothing;
//   - records are written in the batch's order, kind by kind (groups,
//     intents, dispatches, outbox, states, received, cursor), so the later
//     record of a key wins (a state's later record merges into the row as
//     it would in a later batch);
//   - ApplyDistseq refuses, writing nothing, what DistseqBatch.Validate
//     refuses, and an intent whose idempotency key another TxID holds (in
//     the store or earlier in the batch), wrapping store.ErrDuplicateKey.

var _ store.DistseqStore = (*Store)(nil)

// Column lists, in the order the writes bind and the reads scan them.
const (
	distseqIntentCols   = `tx_id, contract, idempotency_key, payload, status, reason, attempts, created_at, updated_at, prepare, prepared, granted`
	distseqDispatchCols = `tx_id, contract, sender, delegation_id, payload, height, status, created_at, updated_at`
	distseqOutboxCols   = `id, contract, recipient, payload, acked, created_at, updated_at`
	distseqStateCols    = `contract, id, data, created_by, spent, spent_by, height`
)

// The distseq write statements (a run's keys are distinct, see engRuns).
const (
	distseqGroupsSQL = `INSERT INTO distseq_groups (contract, threshold, height)
		SELECT v.contract, v.threshold, v.height
		FROM unnest($1::text[], $2::bigint[], $3::bigint[]) WITH ORDINALITY AS v(contract, threshold, height, o)
		ORDER BY v.o
		ON CONFLICT (contract) DO UPDATE SET threshold = excluded.threshold, height = excluded.height`
	distseqDelMembersSQL = `DELETE FROM distseq_members WHERE contract = ANY($1::text[])`
	distseqMembersSQL    = `INSERT INTO distseq_members (contract, idx, id, public_key)
		SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[])`
	distseqIntentsSQL = `INSERT INTO distseq_intents (` + distseqIntentCols + `)
		SELECT v.tx_id, v.contract, v.key, v.payload, v.status, v.reason, v.attempts, v.created, v.updated,
			v.prepare, v.prepared, v.granted
		FROM unnest($1::text[], $2::text[], $3::text[], $4::bytea[], $5::text[], $6::text[], $7::bigint[],
			$8::bigint[], $9::bigint[], $10::bigint[], $11::bytea[], $12::bytea[])
			WITH ORDINALITY AS v(tx_id, contract, key, payload, status, reason, attempts, created, updated,
				prepare, prepared, granted, o)
		ORDER BY v.o
		ON CONFLICT (tx_id) DO UPDATE SET
			contract = excluded.contract, idempotency_key = excluded.idempotency_key,
			payload = excluded.payload, status = excluded.status, reason = excluded.reason,
			attempts = excluded.attempts, created_at = excluded.created_at, updated_at = excluded.updated_at,
			prepare = excluded.prepare, prepared = excluded.prepared, granted = excluded.granted`
	distseqDispatchesSQL = `INSERT INTO distseq_dispatches (` + distseqDispatchCols + `)
		SELECT v.tx_id, v.contract, v.sender, v.delegation_id, v.payload, v.height, v.status, v.created, v.updated
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bytea[], $6::bigint[], $7::text[],
			$8::bigint[], $9::bigint[])
			WITH ORDINALITY AS v(tx_id, contract, sender, delegation_id, payload, height, status, created, updated, o)
		ORDER BY v.o
		ON CONFLICT (tx_id) DO UPDATE SET
			contract = excluded.contract, sender = excluded.sender, delegation_id = excluded.delegation_id,
			payload = excluded.payload, height = excluded.height, status = excluded.status,
			created_at = excluded.created_at, updated_at = excluded.updated_at`
	distseqOutboxSQL = `INSERT INTO distseq_outbox (` + distseqOutboxCols + `)
		SELECT v.id, v.contract, v.recipient, v.payload, v.acked, v.created, v.updated
		FROM unnest($1::text[], $2::text[], $3::text[], $4::bytea[], $5::bigint[], $6::bigint[], $7::bigint[])
			WITH ORDINALITY AS v(id, contract, recipient, payload, acked, created, updated, o)
		ORDER BY v.o
		ON CONFLICT (id) DO UPDATE SET
			contract = excluded.contract, recipient = excluded.recipient, payload = excluded.payload,
			acked = excluded.acked, created_at = excluded.created_at, updated_at = excluded.updated_at`
	// A row without data takes the record's data, created_by and height; a
	// spent row stays spent, its spent_by kept.
	distseqStatesSQL = `INSERT INTO distseq_states AS t (` + distseqStateCols + `)
		SELECT v.contract, v.id, v.data, v.created_by, v.spent, v.spent_by, v.height
		FROM unnest($1::text[], $2::text[], $3::bytea[], $4::text[], $5::bigint[], $6::text[], $7::bigint[])
			WITH ORDINALITY AS v(contract, id, data, created_by, spent, spent_by, height, o)
		ORDER BY v.o
		ON CONFLICT (contract, id) DO UPDATE SET
			data = CASE WHEN coalesce(length(t.data), 0) = 0 THEN excluded.data ELSE t.data END,
			created_by = CASE WHEN coalesce(length(t.data), 0) = 0 THEN excluded.created_by ELSE t.created_by END,
			height = CASE WHEN coalesce(length(t.data), 0) = 0 THEN excluded.height ELSE t.height END,
			spent_by = CASE WHEN t.spent <> 0 THEN t.spent_by ELSE excluded.spent_by END,
			spent = CASE WHEN t.spent <> 0 OR excluded.spent <> 0 THEN 1 ELSE 0 END`
	distseqReceivedSQL = `INSERT INTO distseq_received (id) SELECT unnest($1::text[]) ON CONFLICT (id) DO NOTHING`
	distseqCursorSQL   = `INSERT INTO distseq_cursor (k, value) VALUES (0, $1)
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
		return fmt.Errorf("postgres: apply distseq: %w", err)
	}
	w := len(b.Groups) + len(b.Intents) + len(b.Dispatches) + len(b.Outbox) + len(b.States) + len(b.Received) + 1
	var eb engBatch
	queueDistseq(&eb, &b)
	if err := s.write(ctx, w, fenced(b.Fence, eb.send)); err != nil {
		return fmt.Errorf("postgres: apply distseq: %w", err)
	}
	return nil
}

// intentWrap wraps an intent upsert's error: a unique violation is the
// idempotency key's (the primary key's conflict is the upsert's target),
// store.ErrDuplicateKey.
func intentWrap(err error) error {
	if isCode(err, codeUnique) {
		return fmt.Errorf("intents: %w: %w", store.ErrDuplicateKey, err)
	}
	return fmt.Errorf("intents: %w", err)
}

// dsWrap wraps a statement's error with what it wrote (ApplyDistseq adds
// the prefix).
func dsWrap(what string) func(error) error {
	return func(err error) error { return fmt.Errorf("%s: %w", what, err) }
}

// queueDistseq queues b's statements on eb, kind by kind. The arrays are
// copies: changing b after the call changes nothing written.
func queueDistseq(eb *engBatch, b *store.DistseqBatch) {
	for _, r := range engRuns(len(b.Groups), func(i int) string { return b.Groups[i].Contract }) {
		gs := b.Groups[r[0]:r[1]]
		n := len(gs)
		contracts, thresholds, heights := make([]string, n), make([]int64, n), make([]int64, n)
		var mContracts, mIDs, mKeys []string
		var mIdx []int64
		for i := range gs {
			g := &gs[i]
			contracts[i], thresholds[i], heights[i] = g.Contract, int64(g.Threshold), int64(g.Height)
			for j, m := range g.Members {
				mContracts, mIdx, mIDs, mKeys = append(mContracts, g.Contract), append(mIdx, int64(j)), append(mIDs, m.ID), append(mKeys, m.PublicKey)
			}
		}
		eb.queue(dsWrap("groups"), distseqGroupsSQL, contracts, thresholds, heights)
		eb.queue(dsWrap("groups' members"), distseqDelMembersSQL, contracts)
		if len(mIDs) > 0 {
			eb.queue(dsWrap("groups' members"), distseqMembersSQL, mContracts, mIdx, mIDs, mKeys)
		}
	}
	for _, r := range engRuns(len(b.Intents), func(i int) string { return b.Intents[i].TxID }) {
		ins := b.Intents[r[0]:r[1]]
		n := len(ins)
		txIDs, contracts, statuses, reasons := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		keys, payloads, prepared, granted := make([]*string, n), make([][]byte, n), make([][]byte, n), make([][]byte, n)
		attempts, prepare := make([]int64, n), make([]int64, n)
		created, updated := make([]*int64, n), make([]*int64, n)
		for i := range ins {
			in := &ins[i]
			txIDs[i], contracts[i], keys[i], payloads[i] = in.TxID, in.Contract, nullString(in.IdempotencyKey), cloneRaw(in.Payload)
			statuses[i], reasons[i], attempts[i] = in.Status, in.Reason, int64(in.Attempts)
			created[i], updated[i], prepare[i], prepared[i] = nanos(in.CreatedAt), nanos(in.UpdatedAt), b2i(in.Prepare), cloneRaw(in.Prepared)
			granted[i] = store.EncodeGranted(in.Granted)
		}
		eb.queue(intentWrap, distseqIntentsSQL, txIDs, contracts, keys, payloads, statuses, reasons, attempts,
			created, updated, prepare, prepared, granted)
	}
	for _, r := range engRuns(len(b.Dispatches), func(i int) string { return b.Dispatches[i].TxID }) {
		ds := b.Dispatches[r[0]:r[1]]
		n := len(ds)
		txIDs, contracts, senders, delegations, statuses := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		payloads, heights := make([][]byte, n), make([]int64, n)
		created, updated := make([]*int64, n), make([]*int64, n)
		for i := range ds {
			d := &ds[i]
			txIDs[i], contracts[i], senders[i], delegations[i] = d.TxID, d.Contract, d.Sender, d.DelegationID
			payloads[i], heights[i], statuses[i] = cloneRaw(d.Payload), int64(d.Height), d.Status
			created[i], updated[i] = nanos(d.CreatedAt), nanos(d.UpdatedAt)
		}
		eb.queue(dsWrap("dispatches"), distseqDispatchesSQL, txIDs, contracts, senders, delegations, payloads,
			heights, statuses, created, updated)
	}
	for _, r := range engRuns(len(b.Outbox), func(i int) string { return b.Outbox[i].ID }) {
		os := b.Outbox[r[0]:r[1]]
		n := len(os)
		ids, contracts, tos := make([]string, n), make([]string, n), make([]string, n)
		payloads, acked := make([][]byte, n), make([]int64, n)
		created, updated := make([]*int64, n), make([]*int64, n)
		for i := range os {
			o := &os[i]
			ids[i], contracts[i], tos[i], payloads[i], acked[i] = o.ID, o.Contract, o.To, cloneRaw(o.Payload), b2i(o.Acked)
			created[i], updated[i] = nanos(o.CreatedAt), nanos(o.UpdatedAt)
		}
		eb.queue(dsWrap("outbox"), distseqOutboxSQL, ids, contracts, tos, payloads, acked, created, updated)
	}
	for _, r := range engRuns(len(b.States), func(i int) [2]string { return [2]string{b.States[i].Contract, b.States[i].ID} }) {
		sts := b.States[r[0]:r[1]]
		n := len(sts)
		contracts, ids, createdBy, spentBy := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		data, spent, heights := make([][]byte, n), make([]int64, n), make([]int64, n)
		for i := range sts {
			st := &sts[i]
			contracts[i], ids[i], data[i], createdBy[i] = st.Contract, st.ID, cloneRaw(st.Data), st.CreatedBy
			spent[i], spentBy[i], heights[i] = b2i(st.Spent), st.SpentBy, int64(st.Height)
		}
		eb.queue(dsWrap("states"), distseqStatesSQL, contracts, ids, data, createdBy, spent, spentBy, heights)
	}
	if len(b.Received) > 0 {
		// DO NOTHING takes an id given twice.
		eb.queue(dsWrap("received"), distseqReceivedSQL, append([]string(nil), b.Received...))
	}
	if b.Cursor != nil {
		eb.queue(dsWrap("cursor"), distseqCursorSQL, int64(*b.Cursor))
	}
}
