package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/writeq"
)

// The write path, as SQLite's: one goroutine, the committer, runs every
// write. Enqueue, Apply and ApplyJobs (and the other engines' writes, each
// a request with its own run function) hand it a request and wait; the
// committer takes every request already waiting (up to Options.MaxGroup
// records), runs them in one PostgreSQL transaction, commits once (one WAL
// flush under synchronous_commit=on), and then wakes each caller. A request
// the database refuses (a constraint, an unknown uid) rolls the
// transaction back, gets its error, and the group runs again without it:
// each call stays atomic, and the common path pays for no savepoints.
//
// A group that enqueues takes the transaction-scoped advisory lock
// seqLockKey first, so transactions are numbered in commit order even when
// several stores (several nodes) write to one database: a reader that has
// seen seq n never sees a smaller seq commit later.

// seqLockKey is the pg_advisory_xact_lock key of groups that enqueue.
const seqLockKey int64 = 0x6f72646f_73657120 // "ordoseq "

// request is one write call.
type request struct {
	writeq.Req
	// enqueues says the request creates transactions (the group takes
	// seqLockKey).
	enqueues bool
	// run does the request's writes in the group's transaction. It may be
	// run again (a rerun of its group), so it sets its outputs each time.
	run func(ctx context.Context, tx wtx) error
	// created, when set, returns the transactions run created, for the
	// notifier (read after the commit).
	created func() []store.Transaction
}

// write hands the committer a request running fn and waits for it, or for
// ctx. The other engines' Apply calls are built on it.
func (s *Store) write(ctx context.Context, weight int, fn func(ctx context.Context, tx wtx) error) error {
	return s.q.Submit(ctx, &request{Req: writeq.NewReq(ctx, weight), run: fn})
}

// SetOnEnqueued implements store.Notifier: f is called by the committer with
// the transactions each commit created, in Seq order, before their callers
// are woken.
func (s *Store) SetOnEnqueued(f func([]store.Transaction)) { s.onEnqueued.Store(&f) }

// run is the committer.
func (s *Store) run() {
	defer close(s.exited)
	defer s.release()
	s.q.Serve(s.opts.MaxGroup, s.commit)
}

// commit runs a group in one transaction and wakes its callers (see the
// file's comment and writeq.Commit).
func (s *Store) commit(group []*request) {
	ctx := context.Background() // a caller giving up must not abort the group
	writeq.Commit(group, writeq.Group[*request]{
		Starting: func() { s.commits.Add(1) },
		Rerun:    func() { s.reruns.Add(1) },
		Run: func(live []*request) (int, error) {
			i, err := s.runGroup(ctx, live)
			return i, storageFull(err) // a full disk fails the group: its callers may retry
		},
		Committed: s.notify,
	})
	// The group a held connection was begun for may have been dropped
	// (its callers gave up) or be gone: with nothing waiting, give the
	// connection back rather than leave it idle in a transaction, which
	// holds a slot of the pool and which the server ends after
	// idle_in_transaction_session_timeout.
	if s.held != nil && s.q.Waiting() == 0 {
		s.release()
	}
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
		if r.created != nil {
			created = append(created, r.created()...)
		}
	}
	if len(created) > 0 {
		(*f)(created)
	}
}

// wtx is what a write runs its statements on: the group's transaction,
// open on the committer's connection.
type wtx interface {
	querier
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// runGroup runs the requests in one transaction and commits it. If a request
// fails on its own account it rolls back and returns its index (the request
// holds its error); otherwise it returns the group's error, if any.
func (s *Store) runGroup(ctx context.Context, live []*request) (failed int, err error) {
	c, err := s.begin(ctx)
	if err != nil {
		return -1, fmt.Errorf("postgres: begin: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			s.abort(c)
		}
	}()
	tx := c.Conn()
	for _, r := range live {
		if r.enqueues {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, seqLockKey); err != nil {
				return -1, fmt.Errorf("postgres: seq lock: %w", err)
			}
			break
		}
	}
	for i, r := range live {
		// Chained (StartApply) to a request that failed (canceled, or
		// refused in an earlier group or run): not run.
		if r.Err = r.Chained(); r.Err != nil {
			continue
		}
		if err := r.run(ctx, tx); err != nil {
			if !refused(err) {
				return -1, err
			}
			r.Err = err
			return i, nil
		}
	}
	if err := notifyEnqueued(ctx, tx, live); err != nil { // leases_watch.go
		return -1, err
	}
	if err := s.commitTx(ctx, c); err != nil {
		return -1, fmt.Errorf("postgres: commit: %w", err)
	}
	committed = true
	return -1, nil
}

// The committer's connection. A group's transaction is begun on a
// connection from the pool and, when no other group is waiting, committed
// and the connection given back. Under load, the COMMIT and the next
// group's BEGIN go in one round trip ("COMMIT; BEGIN", the simple
// protocol), and the connection stays with the committer (held), its
// transaction open and empty, for the group already waiting: a group costs
// no round trip of its own to begin. A held connection has taken no
// snapshot and holds no lock; it is given back, after a ROLLBACK, as soon
// as a group ends with none waiting (commit), and when the committer stops.

// begin returns a connection with a transaction open for the next group.
func (s *Store) begin(ctx context.Context) (*pgxpool.Conn, error) {
	if c := s.held; c != nil {
		s.held = nil
		s.chained.Add(1)
		return c, nil
	}
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := c.Exec(ctx, "BEGIN"); err != nil {
		c.Release() // the pool closes a connection left in a transaction or broken
		return nil, err
	}
	return c, nil
}

// abort rolls back the group's transaction and gives the connection back.
func (s *Store) abort(c *pgxpool.Conn) {
	_, _ = c.Exec(context.Background(), "ROLLBACK")
	c.Release()
}

// commitTx commits the group's transaction; with a group waiting, it begins
// the next one in the same round trip and keeps c (held), else it gives c
// back. An error means the transaction was not committed.
func (s *Store) commitTx(ctx context.Context, c *pgxpool.Conn) error {
	chain := s.q.Waiting() > 0
	sql := "COMMIT"
	if chain {
		sql = "COMMIT; BEGIN"
	}
	res, err := c.Conn().PgConn().Exec(ctx, sql).ReadAll()
	switch {
	case len(res) == 0:
		return err
	case res[0].Err != nil:
		return res[0].Err
	case res[0].CommandTag.String() != "COMMIT": // the transaction had failed
		return fmt.Errorf("%w (%s)", pgx.ErrTxCommitRollback, res[0].CommandTag)
	case chain && err == nil && len(res) == 2 && res[1].Err == nil:
		s.held = c
	default: // committed, and no BEGIN wanted or run: the pool closes c if need be
		c.Release()
	}
	return nil
}

// release gives back the held connection, if any (the committer stopping).
func (s *Store) release() {
	if c := s.held; c != nil {
		s.held = nil
		s.abort(c)
	}
}

// refused reports whether err is a request's own failure (the store refused
// its input) rather than the database failing: store.ErrNotFound,
// store.ErrUniqueLive, or an integrity constraint or data exception.
func refused(err error) bool {
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrUniqueLive) || errors.Is(err, errRefused) {
		return true
	}
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code[:2] == "23" || pe.Code[:2] == "22")
}

// errRefused marks an input the store refuses on its own account.
var errRefused = errors.New("refused")

// Constraint classes of PostgreSQL's SQLSTATE codes.
const (
	codeUnique = "23505"
)

// isCode reports whether err is a PostgreSQL error with SQLSTATE code.
func isCode(err error, code string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == code
}
