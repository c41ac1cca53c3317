package postgres

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/writeq"
)

// Options tunes a Store. The zero value is the production default.
type Options struct {
	// MaxConns is the size of the connection pool (the committer's
	// connection and the reads'). Default max(4, 2*GOMAXPROCS). A
	// pool_max_conns in the URL wins over it.
	MaxConns int32
	// MaxGroup bounds the records one group commit holds (new transactions,
	// plus the updates, queues, senders and history entries of batches, and
	// jobs). One call larger than MaxGroup commits alone. Default 1000.
	MaxGroup int
	// Now is the clock used when a time the caller gives is zero (created_at
	// of a NewTransaction without At, and the like). Default clock.Real.
	Now func() time.Time
}

func (o Options) withDefaults() (Options, error) {
	if o.MaxConns < 0 || o.MaxGroup < 0 {
		return o, fmt.Errorf("postgres: negative MaxConns %d or MaxGroup %d", o.MaxConns, o.MaxGroup)
	}
	if o.MaxConns == 0 {
		o.MaxConns = int32(max(4, 2*runtime.GOMAXPROCS(0)))
	}
	if o.MaxGroup == 0 {
		o.MaxGroup = 1000
	}
	if o.Now == nil {
		o.Now = clock.Real{}.Now
	}
	return o, nil
}

// ErrClosed is returned by calls made after Close.
var ErrClosed = errors.New("postgres: store closed")

// Store is the PostgreSQL implementation of store.Store and
// store.JobStore. It is safe for concurrent use.
type Store struct {
	opts Options
	pool *pgxpool.Pool
	// onEnqueued is the commit-order notification hook (store.Notifier).
	onEnqueued atomic.Pointer[func([]store.Transaction)]

	q      *writeq.Queue[*request]
	exited chan struct{}
	// held is the committer's connection between groups under load, its
	// next transaction begun (committer.go); only the committer uses it.
	held *pgxpool.Conn

	closeOnce sync.Once
	closeErr  error

	commits atomic.Int64 // groups formed (for tests and metrics)
	reruns  atomic.Int64 // groups run again without a refused request
	chained atomic.Int64 // groups begun with the last one's COMMIT (committer.go)
}

var _ store.Store = (*Store)(nil)

// Open connects to the database at url (postgres://…, or a key=value
// connection string), applies pending migrations under an advisory lock and
// starts the committer. Close releases it.
func Open(ctx context.Context, url string, opts Options) (*Store, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["idle_in_transaction_session_timeout"]; !ok {
		// A process stalled inside a transaction (paused, swapped out)
		// holds its row locks, a fenced write's among them, and a lease
		// takeover waits for them: the server ends such a session.
		cfg.ConnConfig.RuntimeParams["idle_in_transaction_session_timeout"] = "20s"
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = opts.MaxConns
	}
	mconn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig.Copy())
	if err != nil {
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	err = migrate(ctx, mconn, opts.Now)
	_ = mconn.Close(context.Background())
	if err != nil {
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	s := &Store{
		opts:   opts,
		pool:   pool,
		q:      writeq.New[*request](ErrClosed),
		exited: make(chan struct{}),
	}
	go s.run()
	return s, nil
}

// Close stops the committer after it has committed every call already
// accepted, and closes the pool. Calls made after Close fail. Close is
// idempotent.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.q.Close()
		<-s.exited
		s.pool.Close()
	})
	return s.closeErr
}

// inTx runs fn in a transaction of its own on the pool (not through the
// committer), committing if fn returns nil. Reads that need one snapshot
// use it with a read-only, repeatable-read txOptions.
func (s *Store) inTx(ctx context.Context, o pgx.TxOptions, fn func(pgx.Tx) error) error {
	if s.isClosed() {
		return ErrClosed
	}
	return pgx.BeginTxFunc(ctx, s.pool, o, fn)
}

// snapshot is the transaction options of a read that runs several queries.
var snapshot = pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}

func (s *Store) isClosed() bool { return s.q.Closed() }

// Times are unix nanoseconds; the zero time is NULL.

func nanos(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	n := t.UnixNano()
	return &n
}

func fromNanos(n *int64) time.Time {
	if n == nil {
		return time.Time{}
	}
	return time.Unix(0, *n).UTC()
}

// at is t in unix nanoseconds, or now if t is zero.
func (s *Store) at(t time.Time) int64 {
	if t.IsZero() {
		t = s.opts.Now()
	}
	return t.UnixNano()
}

// nullString stores "" as NULL (for the UNIQUE and REFERENCES columns).
func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// blob stores an empty body as NULL.
func blob(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}

func cloneRaw(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...)
}
