package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/ordolabs/ordo/internal/replog"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/writeq"
)

// The replication of sequencer queues (store.ReplicaStore, issue 12), on
// the same database and through the same committer as the records.
//
// Schema (migrations/0008_replication.sql): replica_sets, PRIMARY KEY
// queue (secondaries a JSON array); replication_log, PRIMARY KEY (queue,
// clock), WITHOUT ROWID: the head is the last key of a queue's range.
//
// The write path. A primary's entries are written by the request that
// makes the change (enqueue, applyTxs), inside its group's transaction: an
// entry commits exactly when its records do. PutReplicaSets, AppendLog,
// ResetLog and AdoptLog are requests of their own (request.replica), so
// they serialize with that logging. The committer keeps the held sets and
// the heads of the logs it has touched in replicaState: logging an entry
// costs its INSERT and no read once the queue's head is known. A group
// that rolls back drops from that cache what it changed (the heads of the
// queues it wrote, all the sets if it wrote one), so the cache is never
// ahead of the database; the next use reads them again.
//
// Invariants:
//   - with no self (SetReplicaSelf) or no held set naming it primary,
//     Enqueue and Apply write and read nothing more than without
//     replication (an atomic load per request);
//   - a logged queue's log holds one ChangeIntent per transaction created
//     and one ChangeFinal per move into DONE or FAILED from another state,
//     in commit order, clock from 1 without a gap, each chained to the one
//     before (replog.Seal under the held set's Version);
//   - AppendLog, ResetLog and AdoptLog either apply whole or change
//     nothing; their refusals (replog's errors, ErrNotPrimary) fail the
//     call alone, without undoing the rest of its group.

var _ store.ReplicaStore = (*Store)(nil)

// ErrNotPrimary is AdoptLog's answer for a queue whose held set does not
// name this node (SetReplicaSelf) as primary.
var ErrNotPrimary = errors.New("sqlite: this node is not the queue's primary")

// adoptNote is the note of the history entry of a record AdoptLog creates
// in a final state.
const adoptNote = "adopted from the replication log"

// replicaState is the store's replication state: self, set from any
// goroutine, and the committer's cache.
type replicaState struct {
	self atomic.Pointer[string]

	// Owned by the committer.
	sets      map[string]store.ReplicaSet // held sets; nil until loaded
	setsDirty bool                        // the group in progress wrote a set
	heads     map[string]replog.Head      // heads known, by queue
	touched   []string                    // queues whose head the group in progress wrote
	prim      struct {                    // how many held sets name self primary
		self string
		n    int
		ok   bool
	}
	stmts [numRepStmts]*sql.Stmt
}

// committed: the group's writes are in the database; the cache matches.
func (r *replicaState) committed() {
	r.touched = r.touched[:0]
	r.setsDirty = false
}

// rolledBack drops what the group wrote from the cache.
func (r *replicaState) rolledBack() {
	for _, q := range r.touched {
		delete(r.heads, q)
	}
	r.touched = r.touched[:0]
	if r.setsDirty {
		r.sets, r.prim.ok, r.setsDirty = nil, false, false
	}
}

// primaries is the number of held sets naming self primary.
func (r *replicaState) primaries(self string) int {
	if !r.prim.ok || r.prim.self != self {
		n := 0
		for _, set := range r.sets {
			if set.Primary == self {
				n++
			}
		}
		r.prim.self, r.prim.n, r.prim.ok = self, n, true
	}
	return r.prim.n
}

// unwrittenError is a request's own failure found before it wrote
// anything: runGroup gives the caller err and goes on with the group, with
// no rollback.
type unwrittenError struct{ err error }

func (e *unwrittenError) Error() string { return e.err.Error() }
func (e *unwrittenError) Unwrap() error { return e.err }

func unwritten(err error) error { return &unwrittenError{err: err} }

// The statements of the replication's writes, prepared on the writer
// connection on first use (repStmt) and closed with the others.
type repStmt int

const (
	repInsertEntry repStmt = iota
	repHead
	repSets
	repUpsertSet
	repTxState
	repLogPayloads
	repDeleteLog
	repFinalize
	repHistory
	numRepStmts
)

var repSQL = [numRepStmts]string{
	repInsertEntry: `INSERT INTO replication_log (queue, clock, version, prev, payload, hash) VALUES (?, ?, ?, ?, ?, ?)`,
	repHead:        `SELECT clock, hash, version FROM replication_log WHERE queue = ? ORDER BY clock DESC LIMIT 1`,
	repSets:        `SELECT ` + replicaSetCols + ` FROM replica_sets`,
	repUpsertSet: `INSERT INTO replica_sets (` + replicaSetCols + `) VALUES (?, ?, ?, ?)
		ON CONFLICT (queue) DO UPDATE SET primary_node = excluded.primary_node,
			secondaries = excluded.secondaries, version = excluded.version`,
	repTxState:     `SELECT queue, state FROM transactions WHERE uid = ?`,
	repLogPayloads: `SELECT payload FROM replication_log WHERE queue = ? ORDER BY clock`,
	repDeleteLog:   `DELETE FROM replication_log WHERE queue = ?`,
	repFinalize:    `UPDATE transactions SET state = ?, result = ?, error = ?, updated_at = ? WHERE uid = ?`,
	repHistory:     `INSERT INTO history (uid, at, from_state, to_state, binding, note) VALUES (?, ?, ?, ?, '', ?)`,
}

func (s *Store) repStmt(ctx context.Context, k repStmt) (*sql.Stmt, error) {
	st := &s.rep.stmts[k]
	if *st == nil {
		if err := prep(ctx, s.wconn, &s.ws.all, st, repSQL[k]); err != nil {
			return nil, err
		}
	}
	return *st, nil
}

// SetReplicaSelf implements store.ReplicaStore.
func (s *Store) SetReplicaSelf(id string) { s.rep.self.Store(&id) }

// loadSets reads the held sets into the cache, if not there.
func (s *Store) loadSets(ctx context.Context) error {
	if s.rep.sets != nil {
		return nil
	}
	st, err := s.repStmt(ctx, repSets)
	if err != nil {
		return err
	}
	rows, err := st.QueryContext(ctx)
	if err != nil {
		return fmt.Errorf("sqlite: replica sets: %w", err)
	}
	sets, err := collectRows(rows, scanReplicaSet)
	if err != nil {
		return fmt.Errorf("sqlite: replica sets: %w", err)
	}
	s.rep.sets = make(map[string]store.ReplicaSet, len(sets))
	for _, set := range sets {
		s.rep.sets[set.Queue] = set
	}
	s.rep.prim.ok = false
	return nil
}

// logSelf is this node's id when it logs some queue (a held set names it
// primary), "" otherwise. Without a self it costs an atomic load.
func (s *Store) logSelf(ctx context.Context) (string, error) {
	p := s.rep.self.Load()
	if p == nil || *p == "" {
		return "", nil
	}
	if err := s.loadSets(ctx); err != nil {
		return "", err
	}
	if s.rep.primaries(*p) == 0 {
		return "", nil
	}
	return *p, nil
}

// loggedSet is the held set of queue if self logs it.
func (s *Store) loggedSet(self, queue string) (store.ReplicaSet, bool) {
	set, ok := s.rep.sets[queue]
	return set, ok && set.Primary == self
}

// head is a queue's log head, from the cache or read in the group's
// transaction.
func (s *Store) head(ctx context.Context, queue string) (replog.Head, error) {
	if h, ok := s.rep.heads[queue]; ok {
		return h, nil
	}
	st, err := s.repStmt(ctx, repHead)
	if err != nil {
		return replog.Head{}, err
	}
	h, err := scanHead(st.QueryRowContext(ctx, queue))
	if errors.Is(err, sql.ErrNoRows) {
		h, err = replog.Head{}, nil
	}
	if err != nil {
		return replog.Head{}, fmt.Errorf("sqlite: log head of %s: %w", queue, err)
	}
	if s.rep.heads == nil {
		s.rep.heads = map[string]replog.Head{}
	}
	s.rep.heads[queue] = h
	return h, nil
}

// setHead records a head the group in progress wrote.
func (s *Store) setHead(queue string, h replog.Head) {
	if s.rep.heads == nil {
		s.rep.heads = map[string]replog.Head{}
	}
	s.rep.heads[queue] = h
	s.rep.touched = append(s.rep.touched, queue)
}

// insertEntries writes entries to the log (without touching the cache).
func (s *Store) insertEntries(ctx context.Context, entries []replog.Entry) error {
	st, err := s.repStmt(ctx, repInsertEntry)
	if err != nil {
		return err
	}
	for i := range entries {
		e := &entries[i]
		if _, err := st.ExecContext(ctx, e.Queue, int64(e.Clock), int64(e.Version), e.Prev[:], e.Payload, e.Hash[:]); err != nil {
			return fmt.Errorf("sqlite: log %s at %d: %w", e.Queue, e.Clock, err)
		}
	}
	return nil
}

// logChange appends c to set's queue log, at its head + 1 under its
// Version.
func (s *Store) logChange(ctx context.Context, set store.ReplicaSet, c store.Change) error {
	h, err := s.head(ctx, set.Queue)
	if err != nil {
		return err
	}
	e := replog.Seal(set.Queue, h.Clock+1, set.Version, h.Hash, store.EncodeChange(c))
	if err := s.insertEntries(ctx, []replog.Entry{e}); err != nil {
		return err
	}
	s.setHead(set.Queue, e.Head())
	return nil
}

// intentsSelf is logSelf for an Enqueue: it refuses, before anything is
// written, a transaction of a logged queue whose Data is not JSON (a
// Change could not hold it).
func (s *Store) intentsSelf(ctx context.Context, txs []store.NewTransaction) (string, error) {
	self, err := s.logSelf(ctx)
	if self == "" || err != nil {
		return "", err
	}
	for i := range txs {
		if _, ok := s.loggedSet(self, txs[i].Queue); ok && len(txs[i].Data) > 0 && !json.Valid(txs[i].Data) {
			return "", unwritten(fmt.Errorf("sqlite: enqueue %s: data is not JSON, queue %s is replicated", txs[i].UID, txs[i].Queue))
		}
	}
	return self, nil
}

// logIntent logs a transaction Enqueue created, if self logs its queue.
func (s *Store) logIntent(ctx context.Context, self string, nt *store.NewTransaction, atN int64) error {
	set, ok := s.loggedSet(self, nt.Queue)
	if !ok {
		return nil
	}
	return s.logChange(ctx, set, store.Change{Op: store.ChangeIntent, UID: nt.UID, Type: nt.Type,
		Data: nt.Data, IdempotencyKey: nt.IdempotencyKey, Principal: nt.Principal, At: time.Unix(0, atN).UTC()})
}

// pendingFinal is a ChangeFinal an Apply logs once its updates are written.
type pendingFinal struct {
	set store.ReplicaSet
	c   store.Change
}

func isFinal(st store.TxState) bool { return st == store.Done || st == store.Failed }

// finalsOf reads, before Apply's updates are written, which of them move a
// transaction of a logged queue into DONE or FAILED from another state (its
// state in the store, or the one an earlier update of the batch gave it).
// It refuses, before anything is written, such an update whose Result is
// not JSON. Without logging it returns nil at once.
func (s *Store) finalsOf(ctx context.Context, us []store.TxUpdate, ats []int64) ([]pendingFinal, error) {
	self, err := s.logSelf(ctx)
	if self == "" || err != nil {
		return nil, err
	}
	var (
		out  []pendingFinal
		seen map[string]store.TxState
	)
	for i := range us {
		u := &us[i]
		prev, inBatch := seen[u.UID]
		if isFinal(u.State) {
			queue, stored, found, err := s.txQueueState(ctx, u.UID)
			if err != nil {
				return nil, err
			}
			if !inBatch {
				prev = stored
			}
			if set, ok := s.loggedSet(self, queue); found && ok && !isFinal(prev) {
				if len(u.Result) > 0 && !json.Valid(u.Result) {
					return nil, unwritten(fmt.Errorf("sqlite: apply: tx %s: result is not JSON, queue %s is replicated", u.UID, queue))
				}
				out = append(out, pendingFinal{set: set, c: store.Change{Op: store.ChangeFinal, UID: u.UID, State: u.State,
					Result: u.Result, Error: u.Error, At: time.Unix(0, ats[i]).UTC()}})
			}
		}
		if seen == nil {
			seen = map[string]store.TxState{}
		}
		seen[u.UID] = u.State
	}
	return out, nil
}

// logFinals logs what finalsOf found.
func (s *Store) logFinals(ctx context.Context, fs []pendingFinal) error {
	for _, f := range fs {
		if err := s.logChange(ctx, f.set, f.c); err != nil {
			return fmt.Errorf("sqlite: apply: tx %s: %w", f.c.UID, err)
		}
	}
	return nil
}

// txQueueState reads a transaction's queue and state in the group's
// transaction; found is false for an unknown uid.
func (s *Store) txQueueState(ctx context.Context, uid string) (queue string, state store.TxState, found bool, err error) {
	st, err := s.repStmt(ctx, repTxState)
	if err != nil {
		return "", "", false, err
	}
	var stateS string
	err = st.QueryRowContext(ctx, uid).Scan(&queue, &stateS)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", false, nil
	}
	if err != nil {
		return "", "", false, fmt.Errorf("sqlite: tx %s: %w", uid, err)
	}
	return queue, store.TxState(stateS), true, nil
}

// submitReplica runs f as a request of the committer, in a group's
// transaction; f may run more than once (a group run again), so it sets
// its outputs afresh each time.
func (s *Store) submitReplica(ctx context.Context, weight int, f func(ctx context.Context, r *request) error) (*request, error) {
	r := &request{Req: writeq.NewReq(ctx, max(weight, 1)), replica: f}
	return r, s.q.Submit(ctx, r)
}

// PutReplicaSets implements store.ReplicaStore. A set with an empty Queue
// or Primary is refused (the call writes nothing).
func (s *Store) PutReplicaSets(ctx context.Context, sets []store.ReplicaSet) error {
	if len(sets) == 0 {
		return ctx.Err()
	}
	own := make([]store.ReplicaSet, len(sets))
	for i, set := range sets {
		if set.Queue == "" || set.Primary == "" {
			return fmt.Errorf("sqlite: put replica sets: set %d: empty queue or primary", i)
		}
		set.Secondaries = normSecondaries(set.Secondaries)
		own[i] = set
	}
	_, err := s.submitReplica(ctx, len(own), func(ctx context.Context, _ *request) error {
		if err := s.loadSets(ctx); err != nil {
			return err
		}
		st, err := s.repStmt(ctx, repUpsertSet)
		if err != nil {
			return err
		}
		for _, set := range own {
			if held, ok := s.rep.sets[set.Queue]; ok && held.Version > set.Version {
				continue
			}
			sec, err := json.Marshal(set.Secondaries)
			if err != nil {
				return fmt.Errorf("sqlite: put replica set %s: %w", set.Queue, err)
			}
			if sec == nil || string(sec) == "null" {
				sec = []byte("[]")
			}
			if _, err := st.ExecContext(ctx, set.Queue, set.Primary, sec, int64(set.Version)); err != nil {
				return fmt.Errorf("sqlite: put replica set %s: %w", set.Queue, err)
			}
			s.rep.setsDirty = true
			s.rep.sets[set.Queue], s.rep.prim.ok = set, false
		}
		return nil
	})
	return err
}

// heldVersion is the Version of the set held for queue, 0 for none.
func (s *Store) heldVersion(ctx context.Context, queue string) (uint64, error) {
	if err := s.loadSets(ctx); err != nil {
		return 0, err
	}
	return s.rep.sets[queue].Version, nil
}

// AppendLog implements store.ReplicaStore.
func (s *Store) AppendLog(ctx context.Context, queue string, from uint64, entries []replog.Entry) (replog.Head, error) {
	return s.extendLog(ctx, "append log", queue, from, entries, false)
}

// ResetLog implements store.ReplicaStore.
func (s *Store) ResetLog(ctx context.Context, queue string, from uint64, entries []replog.Entry) (replog.Head, error) {
	return s.extendLog(ctx, "reset log", queue, from, entries, true)
}

// extendLog checks entries with replog.Extend against the queue's head
// (an empty one to reset) and the held set's version, then writes what
// applies (the old log deleted first to reset), through the committer.
func (s *Store) extendLog(ctx context.Context, op, queue string, from uint64, entries []replog.Entry, reset bool) (replog.Head, error) {
	if queue == "" {
		return replog.Head{}, fmt.Errorf("sqlite: %s: empty queue", op)
	}
	var out replog.Head
	_, err := s.submitReplica(ctx, len(entries), func(ctx context.Context, _ *request) error {
		var head replog.Head
		if !reset {
			var err error
			if head, err = s.head(ctx, queue); err != nil {
				return err
			}
		}
		known, err := s.heldVersion(ctx, queue)
		if err != nil {
			return err
		}
		apply, next, err := replog.Extend(queue, head, from, known, entries)
		if err != nil {
			return unwritten(fmt.Errorf("sqlite: %s %s: %w", op, queue, err))
		}
		if reset {
			del, err := s.repStmt(ctx, repDeleteLog)
			if err != nil {
				return err
			}
			if _, err := del.ExecContext(ctx, queue); err != nil {
				return fmt.Errorf("sqlite: %s %s: %w", op, queue, err)
			}
			s.setHead(queue, replog.Head{}) // written: dropped from the cache on a rollback
		}
		if len(apply) > 0 {
			if err := s.insertEntries(ctx, apply); err != nil {
				return err
			}
			s.setHead(queue, next)
		}
		out = next
		return nil
	})
	if err != nil {
		return replog.Head{}, err
	}
	return out, nil
}

func normSecondaries(sec []string) []string {
	if len(sec) == 0 {
		return nil
	}
	return append([]string(nil), sec...)
}
