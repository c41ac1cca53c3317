package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/writeq"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// The write path. One goroutine, the committer, owns the writer connection.
// Enqueue and Apply hand it a request and wait; the committer takes every
// request already waiting (up to Options.MaxGroup records), runs them in
// one SQLite transaction, commits once (one fsync of the WAL under
// synchronous=FULL), and then wakes each caller with its own results. A
// request that fails is undone alone (see commit). Under load, requests pile
// up while a commit is in flight and the next group takes all of them: the
// cost of the fsync is shared by the group.

// request is one write call: Enqueue, Apply, or another engine's Apply.
type request struct {
	writeq.Req
	txs     []store.NewTransaction // Enqueue
	batch   *store.Batch           // Apply
	proc    *store.ProcChanges     // ApplyProcessor
	leader  *store.LeaderChanges   // ApplyLeader
	distseq *store.DistseqBatch    // ApplyDistseq
	jobs    *store.JobBatch        // ApplyJobs
	// replica is a ReplicaStore write (replica.go), run in the group's
	// transaction; it sets its own outputs.
	replica func(ctx context.Context, r *request) error

	// Written by the committer before Done is closed.
	results []store.EnqueueResult
	jobsOut []store.JobInserted
}

// Enqueue implements store.Store. It returns once the records are committed.
// If ctx ends first, Enqueue returns ctx.Err() and the records may or may not
// have been committed.
func (s *Store) Enqueue(ctx context.Context, txs []store.NewTransaction) ([]store.EnqueueResult, error) {
	if len(txs) == 0 {
		return []store.EnqueueResult{}, ctx.Err()
	}
	if err := store.ValidateNew(txs); err != nil {
		return nil, fmt.Errorf("sqlite: enqueue: %w", err)
	}
	r := &request{Req: writeq.NewReq(ctx, len(txs)), txs: txs}
	if err := s.q.Submit(ctx, r); err != nil {
		return nil, err
	}
	return r.results, nil
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
	r := &request{Req: writeq.NewReq(ctx, len(b.Txs)+len(b.Queues)+len(b.Senders)+len(b.History)), batch: &b}
	if err := b.Validate(); err != nil {
		r.Err = fmt.Errorf("sqlite: apply: %w", err)
	}
	return s.q.StartChained(ctx, r, after, b.Empty())
}

// run is the committer.
func (s *Store) run() {
	defer close(s.exited)
	s.q.Serve(s.opts.MaxGroup, s.commit)
}

// SetOnEnqueued implements store.Notifier: f is called by the committer with
// the transactions each commit created, in Seq order, before their callers
// are woken.
func (s *Store) SetOnEnqueued(f func([]store.Transaction)) { s.onEnqueued.Store(&f) }

// commit runs a group in one transaction and wakes its callers.
//
// It is optimistic (writeq.Commit): requests run back to back with no
// savepoints. If one fails on its own account (a refused input: unknown
// uid, taken uid, a constraint), the transaction is rolled back, that
// request gets its error, and the group is run again without it. Failures
// are rare (inputs are validated before they reach the committer), so the
// common path costs no statement beyond the requests' own, BEGIN and
// COMMIT. Any other error (I/O, a full disk) fails the whole group.
func (s *Store) commit(group []*request) {
	ctx := context.Background() // a caller giving up must not abort the group
	writeq.Commit(group, writeq.Group[*request]{
		Starting: func() { s.commits.Add(1) },
		Rerun:    func() { s.reruns.Add(1) },
		Run: func(live []*request) (int, error) {
			i, err := s.runGroup(ctx, live)
			return i, storageFull(err) // a full disk fails the group: its callers may retry
		},
		Failed:    func(r *request) { r.results = nil },
		Committed: s.notify,
	})
}

// notify hands the notifier the transactions the group created, in Seq
// order (the order the group ran them).
func (s *Store) notify(live []*request) {
	f := s.onEnqueued.Load()
	if f == nil {
		return
	}
	var created []store.Transaction
	for _, r := range live {
		for _, res := range r.results {
			if res.Created {
				created = append(created, res.Transaction)
			}
		}
	}
	if len(created) > 0 {
		(*f)(created)
	}
}

// runGroup runs the requests in one transaction and commits it. If a request
// fails on its own account it rolls back and returns its index (the request
// holds its error); otherwise it returns the group's error, if any.
func (s *Store) runGroup(ctx context.Context, live []*request) (failed int, err error) {
	if _, err := s.ws.begin.ExecContext(ctx); err != nil {
		return -1, fmt.Errorf("sqlite: begin: %w", err)
	}
	for i, r := range live {
		r.results = nil
		// Chained (StartApply) to a request that failed (canceled, refused
		// in an earlier group or run, or refused before it wrote in this
		// one): not run.
		if r.Err = r.Chained(); r.Err != nil {
			continue
		}
		if err := s.do(ctx, r); err != nil {
			var uw *unwrittenError
			if errors.As(err, &uw) { // refused before it wrote: no rollback
				r.Err, r.results = uw.err, nil
				continue
			}
			s.rollback()
			if !refused(err) {
				return -1, err
			}
			r.Err = err
			return i, nil
		}
	}
	if _, err := s.ws.commit.ExecContext(ctx); err != nil {
		s.rollback()
		return -1, fmt.Errorf("sqlite: commit: %w", err)
	}
	s.rep.committed()
	return -1, nil
}

// refused reports whether err is a request's own failure (the store refused
// its input) rather than the database failing.
func refused(err error) bool {
	if errors.Is(err, store.ErrNotFound) {
		return true
	}
	var se *msqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_CONSTRAINT
}

// rollback ends the writer's transaction, if any is still open, and drops
// from the replication cache what the transaction wrote.
func (s *Store) rollback() {
	_, _ = s.ws.rollback.ExecContext(context.Background())
	s.rep.rolledBack()
}

// fence is the Fence of r's write, if it has one.
func (r *request) fence() *store.Fence {
	switch {
	case r.batch != nil:
		return r.batch.Fence
	case r.proc != nil:
		return r.proc.Fence
	case r.leader != nil:
		return r.leader.Fence
	case r.distseq != nil:
		return r.distseq.Fence
	}
	return nil
}

func (s *Store) do(ctx context.Context, r *request) error {
	if err := s.checkFence(ctx, r.fence()); err != nil { // leases.go
		return err
	}
	if r.batch != nil {
		return s.applyBatch(ctx, r.batch)
	}
	if r.proc != nil {
		return s.applyProc(ctx, r.proc)
	}
	if r.leader != nil {
		return s.applyLeader(ctx, r.leader)
	}
	if r.distseq != nil {
		return s.applyDistseq(ctx, s.wconn, r.distseq)
	}
	if r.jobs != nil {
		out, err := s.applyJobs(ctx, s.wconn, r.jobs)
		r.jobsOut = out
		return err
	}
	if r.replica != nil {
		return r.replica(ctx, r)
	}
	res, err := s.enqueue(ctx, r.txs, true)
	r.results = res
	return err
}

// enqueue inserts txs; with log, it appends the intents of logged queues
// to their replication logs (replica.go).
func (s *Store) enqueue(ctx context.Context, txs []store.NewTransaction, log bool) ([]store.EnqueueResult, error) {
	var self string
	if log {
		var err error
		if self, err = s.intentsSelf(ctx, txs); err != nil {
			return nil, err
		}
	}
	out := make([]store.EnqueueResult, len(txs))
	for i := range txs {
		nt := &txs[i]
		atN := s.at(nt.At)
		// A known idempotency key of the same principal (stored, or
		// earlier in this group) makes the insert a no-op: then return the
		// existing record.
		res, err := s.ws.insertTx.ExecContext(ctx,
			nt.UID, nt.Queue, nt.Type, blob(nt.Data), string(store.Waiting),
			nt.Principal, nullString(nt.IdempotencyKey), atN, atN)
		if err != nil {
			return nil, fmt.Errorf("sqlite: enqueue %s: %w", nt.UID, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return nil, fmt.Errorf("sqlite: enqueue %s: %w", nt.UID, err)
		}
		if n == 0 {
			t, err := s.writerTxByKey(ctx, nt.Principal, nt.IdempotencyKey)
			if err != nil {
				return nil, fmt.Errorf("sqlite: enqueue %s: key %q: %w", nt.UID, nt.IdempotencyKey, err)
			}
			out[i] = store.EnqueueResult{Transaction: t, Created: false}
			continue
		}
		seq, err := res.LastInsertId()
		if err != nil {
			return nil, fmt.Errorf("sqlite: enqueue %s: %w", nt.UID, err)
		}
		out[i] = store.EnqueueResult{
			Transaction: store.Transaction{
				UID:            nt.UID,
				Queue:          nt.Queue,
				Type:           nt.Type,
				Data:           cloneRaw(nt.Data),
				State:          store.Waiting,
				IdempotencyKey: nt.IdempotencyKey,
				Seq:            seq,
				CreatedAt:      time.Unix(0, atN).UTC(),
				UpdatedAt:      time.Unix(0, atN).UTC(),
				Attempts:       []store.Attempt{},
			},
			Created: true,
		}
		if self != "" {
			if err := s.logIntent(ctx, self, nt, atN); err != nil {
				return nil, fmt.Errorf("sqlite: enqueue %s: %w", nt.UID, err)
			}
		}
	}
	return out, nil
}

// writerTxByKey reads, inside the group's transaction, the record holding a
// principal's idempotency key (it may have been inserted earlier in the
// same group).
func (s *Store) writerTxByKey(ctx context.Context, principal, key string) (store.Transaction, error) {
	t, err := scanTx(s.ws.txByKey.QueryRowContext(ctx, principal, key))
	if errors.Is(err, sql.ErrNoRows) {
		return store.Transaction{}, store.ErrNotFound
	}
	if err != nil {
		return store.Transaction{}, err
	}
	rows, err := s.ws.attemptsByUID.QueryContext(ctx, t.UID)
	if err != nil {
		return store.Transaction{}, err
	}
	t.Attempts, err = scanAttempts(rows)
	if err != nil {
		return store.Transaction{}, err
	}
	return t, nil
}

func cloneRaw(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...)
}
