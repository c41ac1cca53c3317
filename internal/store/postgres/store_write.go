package postgres

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/writeq"
)

// The sequencer's writes. Each call is one request of the committer
// (committer.go) and writes its rows with one multi-row statement per kind
// of row (unnest of arrays), sent together in one pgx.Batch: a round trip
// per call, whatever its size.

// enqueueSQL inserts the new transactions in the order given (seq is
// drawn in that order: the defaults are evaluated above the sort) and
// skips those whose principal's idempotency key is known, stored or
// earlier in the statement.
const enqueueSQL = `INSERT INTO transactions
		(uid, queue, type, data, state, principal, idempotency_key, created_at, updated_at)
	SELECT v.uid, v.queue, v.type, v.data, 'WAITING', v.principal, NULLIF(v.key, ''), v.at, v.at
	FROM unnest($1::text[], $2::text[], $3::text[], $4::bytea[], $5::text[], $6::text[], $7::bigint[])
		WITH ORDINALITY AS v(uid, queue, type, data, principal, key, at, o)
	ORDER BY v.o
	ON CONFLICT (principal, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
	RETURNING seq, uid, idempotency_key`

// knownSQL reads the records holding keys of one principal.
const knownSQL = `SELECT ` + txCols + ` FROM transactions WHERE principal = $1 AND idempotency_key = ANY($2)`

// Enqueue implements store.Store. It returns once the records are committed.
// If ctx ends first, Enqueue returns ctx.Err() and the records may or may not
// have been committed.
func (s *Store) Enqueue(ctx context.Context, txs []store.NewTransaction) ([]store.EnqueueResult, error) {
	if len(txs) == 0 {
		return []store.EnqueueResult{}, ctx.Err()
	}
	if err := store.ValidateNew(txs); err != nil {
		return nil, fmt.Errorf("postgres: enqueue: %w", err)
	}
	var out []store.EnqueueResult
	r := &request{Req: writeq.NewReq(ctx, len(txs)), enqueues: true}
	r.run = func(ctx context.Context, tx wtx) error {
		var err error
		out, err = s.enqueue(ctx, tx, txs)
		return err
	}
	r.created = func() []store.Transaction {
		var c []store.Transaction
		for _, res := range out {
			if res.Created {
				c = append(c, res.Transaction)
			}
		}
		return c
	}
	if err := s.q.Submit(ctx, r); err != nil {
		return nil, err
	}
	return out, nil
}

// enqueue inserts txs in tx and answers each.
func (s *Store) enqueue(ctx context.Context, tx wtx, txs []store.NewTransaction) ([]store.EnqueueResult, error) {
	n := len(txs)
	uids, queues, types, keys := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	principals, data, ats := make([]string, n), make([][]byte, n), make([]int64, n)
	for i := range txs {
		nt := &txs[i]
		uids[i], queues[i], types[i], keys[i] = nt.UID, nt.Queue, nt.Type, nt.IdempotencyKey
		principals[i], data[i], ats[i] = nt.Principal, blob(nt.Data), s.at(nt.At)
	}
	rows, err := tx.Query(ctx, enqueueSQL, uids, queues, types, data, principals, keys, ats)
	if err != nil {
		return nil, fmt.Errorf("postgres: enqueue: %w", err)
	}
	// The rows inserted, by uid and key: of a uid given twice, only the
	// item whose key was inserted with it was created.
	type uidKey struct{ uid, key string }
	seqs := make(map[uidKey]int64, n)
	var (
		seq int64
		uid string
		key *string
	)
	if _, err := pgx.ForEachRow(rows, []any{&seq, &uid, &key}, func() error {
		k := uidKey{uid: uid}
		if key != nil {
			k.key = *key
		}
		seqs[k] = seq
		return nil
	}); err != nil {
		return nil, fmt.Errorf("postgres: enqueue: %w", err)
	}
	out := make([]store.EnqueueResult, n)
	// The keys of the transactions not inserted, by principal (one, as a
	// rule: a caller's).
	known := map[string][]string{}
	for i := range txs {
		nt := &txs[i]
		k := uidKey{nt.UID, nt.IdempotencyKey}
		seq, ok := seqs[k]
		// A later one of a uid and key given twice was not inserted either:
		// the first answers the row, the later ones its key.
		if !ok {
			known[nt.Principal] = append(known[nt.Principal], nt.IdempotencyKey)
			continue
		}
		delete(seqs, k)
		at := time.Unix(0, ats[i]).UTC()
		out[i] = store.EnqueueResult{
			Transaction: store.Transaction{
				UID:            nt.UID,
				Queue:          nt.Queue,
				Type:           nt.Type,
				Data:           cloneRaw(nt.Data),
				State:          store.Waiting,
				IdempotencyKey: nt.IdempotencyKey,
				Seq:            seq,
				CreatedAt:      at,
				UpdatedAt:      at,
				Attempts:       []store.Attempt{},
			},
			Created: true,
		}
	}
	if len(known) == 0 {
		return out, nil
	}
	// The records holding the known keys (stored, or inserted earlier in
	// this group), with their attempts.
	type principalKey struct{ principal, key string }
	byKey := map[principalKey]store.Transaction{}
	for p, keys := range known {
		existing, err := readTxs(ctx, tx, knownSQL, p, keys)
		if err != nil {
			return nil, fmt.Errorf("postgres: enqueue: %w", err)
		}
		for _, t := range existing {
			byKey[principalKey{p, t.IdempotencyKey}] = t
		}
	}
	for i := range txs {
		if out[i].Created {
			continue
		}
		t, ok := byKey[principalKey{txs[i].Principal, txs[i].IdempotencyKey}]
		if !ok || txs[i].IdempotencyKey == "" {
			return nil, fmt.Errorf("postgres: enqueue %s: key %q: %w", txs[i].UID, txs[i].IdempotencyKey, store.ErrNotFound)
		}
		out[i] = store.EnqueueResult{Transaction: t}
	}
	return out, nil
}

// Apply implements store.Store: the batch commits atomically, through the
// committer, so it shares group commits with Enqueue.
func (s *Store) Apply(ctx context.Context, b store.Batch) error {
	if b.Empty() {
		return ctx.Err()
	}
	return s.StartApply(ctx, b, nil).Wait(ctx)
}

// StartApply implements store.Pipeliner: b is handed to the committer
// before StartApply returns, behind every request sent before it, and is
// not applied if after's batch failed.
func (s *Store) StartApply(ctx context.Context, b store.Batch, after store.Started) store.Started {
	w := len(b.Txs) + len(b.Queues) + len(b.Senders) + len(b.History)
	r := &request{Req: writeq.NewReq(ctx, w), run: fenced(b.Fence, func(ctx context.Context, tx wtx) error {
		return s.applyBatch(ctx, tx, &b)
	})}
	if err := b.Validate(); err != nil {
		r.Err = fmt.Errorf("postgres: apply: %w", err)
	}
	return s.q.StartChained(ctx, r, after, b.Empty())
}

// The batch's statements. An upsert of one statement may not touch a row
// twice, so applyBatch passes each the last row of each key.
//
// The update's uid = ANY($1) repeats the join's condition for the planner:
// without it, it joins the unnest to the whole table (a hash join over a
// sequential scan of transactions, every row and every dead version, on
// every commit: the commits of a burndown grew with the table); with it,
// it reads only the rows named, through the uid index.
const (
	updateTxsSQL = `UPDATE transactions AS t
		SET state = v.state, retries = v.retries, result = v.result, error = v.error, updated_at = v.at,
			history = ` + appendHistory + `
		FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bytea[], $5::text[], $6::bigint[], $7::text[])
			AS v(uid, state, retries, result, error, at, h)
		WHERE t.uid = v.uid AND t.uid = ANY($1::text[])`
	// appendHistorySQL appends the history of transactions the batch does
	// not otherwise update (a HOT update: history is in no index).
	appendHistorySQL = `UPDATE transactions AS t SET history = ` + appendHistory + `
		FROM unnest($1::text[], $2::text[]) AS v(uid, h)
		WHERE t.uid = v.uid AND t.uid = ANY($1::text[])`
	upsertAttemptsSQL = `INSERT INTO attempts (` + attemptCols + `)
		SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[], $5::bigint[], $6::text[],
			$7::bigint[], $8::text[], $9::text[], $10::bigint[], $11::bigint[], $12::text[])
		ON CONFLICT (uid, n) DO UPDATE SET
			sender = excluded.sender, nonce = excluded.nonce, fee = excluded.fee,
			hash = excluded.hash, at = excluded.at, outcome = excluded.outcome,
			error = excluded.error, height = excluded.height, gas = excluded.gas, cancel = excluded.cancel`
	upsertQueuesSQL = `INSERT INTO queues (name, state, sender, tx_uid, delay_until, deadline, updated_at)
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::bigint[])
		ON CONFLICT (name) DO UPDATE SET
			state = excluded.state, sender = excluded.sender, tx_uid = excluded.tx_uid,
			delay_until = excluded.delay_until, deadline = excluded.deadline,
			updated_at = excluded.updated_at`
	upsertSendersSQL = `INSERT INTO senders (id, worker, queue, next_nonce, updated_at)
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[])
		ON CONFLICT (id) DO UPDATE SET
			worker = excluded.worker, queue = excluded.queue,
			next_nonce = excluded.next_nonce, updated_at = excluded.updated_at`
)

// appendHistory is the new value of history: the column itself when there
// is nothing to append, so that a history stored out of line (TOAST) is
// not written again with each update of its transaction.
const appendHistory = `CASE WHEN v.h = '' THEN t.history ELSE t.history || v.h END`

// countParentsSQL counts the transactions of a list of distinct uids.
const countParentsSQL = `SELECT count(*) FROM transactions WHERE uid = ANY($1::text[])`

// otherParents returns the distinct uids that b's attempt-only updates and
// queue bindings name and that b neither updates nor appends history to
// (those UPDATEs count the rows they match: see applyBatch): they must
// exist, as the foreign keys that migration 0010 dropped required.
func otherParents(b *store.Batch, upd []int, attemptOnly, histOnly []string) []string {
	seen := make(map[string]bool, len(upd)+len(histOnly))
	for _, i := range upd {
		seen[b.Txs[i].UID] = true
	}
	for _, uid := range histOnly {
		seen[uid] = true
	}
	var out []string
	add := func(uid string) {
		if uid != "" && !seen[uid] {
			seen[uid] = true
			out = append(out, uid)
		}
	}
	for _, uid := range attemptOnly {
		add(uid)
	}
	for i := range b.Queues {
		add(b.Queues[i].TxUID)
	}
	return out
}

// lastOf returns, for n rows with keys key(i), the index of the last row of
// each key, in the order of the keys' first rows.
func lastOf[K comparable](n int, key func(i int) K) []int {
	last := make([]int, 0, n)
	pos := make(map[K]int, n)
	for i := range n {
		k := key(i)
		if j, ok := pos[k]; ok {
			last[j] = i
			continue
		}
		pos[k] = len(last)
		last = append(last, i)
	}
	return last
}

// applyBatch writes b in tx: one pgx.Batch of up to six statements.
func (s *Store) applyBatch(ctx context.Context, tx wtx, b *store.Batch) error {
	var pb pgx.Batch
	upd, attemptOnly := store.RowUpdates(b.Txs)
	// A zero time is now: the clock is read for the updates, then for the
	// history entries, each in batch order (as SQLite does).
	ats := make([]int64, len(upd))
	for j, i := range upd {
		ats[j] = s.at(b.Txs[i].At)
	}
	// The history entries, grouped by uid; those of the transactions upd
	// updates go in its UPDATE, the others (histOnly) in one of their own.
	// The feed's row (changes.go) takes each entry's time as its line does.
	hAts := make([]int64, 0, len(b.History))
	histUIDs, hist, err := historyText(b, func(t time.Time) int64 {
		n := s.at(t)
		hAts = append(hAts, n)
		return n
	})
	if err != nil {
		return err
	}
	if len(upd) > 0 {
		n := len(upd)
		uids, states, errs, hs := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		retries, results := make([]int64, n), make([][]byte, n)
		for j, i := range upd {
			u := &b.Txs[i]
			uids[j], states[j], errs[j], hs[j] = u.UID, string(u.State), u.Error, string(hist[u.UID])
			retries[j], results[j] = int64(u.Retries), blob(u.Result)
			delete(hist, u.UID)
		}
		pb.Queue(updateTxsSQL, uids, states, retries, results, errs, ats, hs)
	}
	var histOnly, histText []string
	for _, uid := range histUIDs {
		if h, ok := hist[uid]; ok {
			histOnly, histText = append(histOnly, uid), append(histText, string(h))
		}
	}
	if len(histOnly) > 0 {
		pb.Queue(appendHistorySQL, histOnly, histText)
	}
	parents := otherParents(b, upd, attemptOnly, histOnly)
	if len(parents) > 0 {
		pb.Queue(countParentsSQL, parents)
	}
	var with []int
	for i := range b.Txs {
		if b.Txs[i].Attempt != nil {
			with = append(with, i)
		}
	}
	att := lastOf(len(with), func(j int) [2]any {
		u := &b.Txs[with[j]]
		return [2]any{u.UID, u.Attempt.N}
	})
	if len(att) > 0 {
		n := len(att)
		uids, senders, hashes, outcomes, errs := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		cancels := make([]string, n)
		ns, nonces, fees, heights, gases := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
		ats := make([]*int64, n)
		for j, k := range att {
			u := &b.Txs[with[k]]
			a := u.Attempt
			uids[j], ns[j], senders[j], nonces[j], fees[j] = u.UID, int64(a.N), a.Sender, int64(a.Nonce), int64(a.Fee)
			hashes[j], ats[j], outcomes[j], errs[j], heights[j] = a.Hash, nanos(a.At), string(a.Outcome), a.Error, int64(a.Height)
			gases[j], cancels[j] = int64(a.Gas), a.Cancel
		}
		pb.Queue(upsertAttemptsSQL, uids, ns, senders, nonces, fees, hashes, ats, outcomes, errs, heights, gases, cancels)
	}
	if qs := lastOf(len(b.Queues), func(i int) string { return b.Queues[i].Name }); len(qs) > 0 {
		n := len(qs)
		names, states, senders, txUIDs := make([]string, n), make([]string, n), make([]string, n), make([]*string, n)
		delays, deadlines, updated := make([]*int64, n), make([]int64, n), make([]*int64, n)
		for j, i := range qs {
			q := &b.Queues[i]
			names[j], states[j], senders[j], txUIDs[j] = q.Name, string(q.State), q.Sender, nullString(q.TxUID)
			delays[j], deadlines[j], updated[j] = nanos(q.DelayUntil), int64(q.Deadline), nanos(q.UpdatedAt)
		}
		pb.Queue(upsertQueuesSQL, names, states, senders, txUIDs, delays, deadlines, updated)
	}
	if ss := lastOf(len(b.Senders), func(i int) string { return b.Senders[i].ID }); len(ss) > 0 {
		n := len(ss)
		ids, workers, queues := make([]string, n), make([]string, n), make([]string, n)
		nonces, updated := make([]int64, n), make([]*int64, n)
		for j, i := range ss {
			sd := &b.Senders[i]
			ids[j], workers[j], queues[j], nonces[j], updated[j] = sd.ID, sd.Worker, sd.Queue, int64(sd.NextNonce), nanos(sd.UpdatedAt)
		}
		pb.Queue(upsertSendersSQL, ids, workers, queues, nonces, updated)
	}
	if n := len(b.History); n > 0 {
		uids, froms, tos, notes := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		for i := range b.History {
			h := &b.History[i]
			uids[i], froms[i], tos[i], notes[i] = h.UID, string(h.From), string(h.To), h.Note
		}
		// One feed row for the batch: its newest time is what retention
		// reads.
		pb.Queue(insertChangesSQL, uids, froms, tos, hAts, notes, slices.Max(hAts))
	}
	br := tx.SendBatch(ctx, &pb)
	defer func() { _ = br.Close() }()
	for _, c := range []struct {
		n    int
		what string
	}{{len(upd), "updated"}, {len(histOnly), "named by history exist"}} {
		if c.n == 0 {
			continue
		}
		tag, err := br.Exec()
		if err != nil {
			return applyErr(err)
		}
		if int(tag.RowsAffected()) != c.n {
			return fmt.Errorf("postgres: apply: %d of %d transactions %s: %w", tag.RowsAffected(), c.n, c.what, store.ErrNotFound)
		}
	}
	if len(parents) > 0 {
		var found int
		if err := br.QueryRow().Scan(&found); err != nil {
			return applyErr(err)
		}
		if found != len(parents) {
			return fmt.Errorf("postgres: apply: %d of %d transactions named by an attempt or a queue exist: %w", found, len(parents), store.ErrNotFound)
		}
	}
	for range pb.Len() - min(len(upd), 1) - min(len(histOnly), 1) - min(len(parents), 1) {
		if _, err := br.Exec(); err != nil {
			return applyErr(err)
		}
	}
	if err := br.Close(); err != nil {
		return applyErr(err)
	}
	return nil
}

// applyErr wraps a write's error. (A missing parent is found by the
// batch's own counts, which wrap store.ErrNotFound: see otherParents.)
func applyErr(err error) error { return fmt.Errorf("postgres: apply: %w", err) }
