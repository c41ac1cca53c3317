package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/writeq"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Synchronous values for Options.Synchronous.
const (
	// SyncFull makes every commit durable: the WAL is fsynced before COMMIT
	// returns. The default.
	SyncFull = "FULL"
	// SyncNormal fsyncs the WAL only at checkpoints: a commit survives a crash
	// of the process but may be lost if the machine loses power. Use only
	// with a measured reason; it breaks "durable before acknowledged".
	SyncNormal = "NORMAL"
)

// Options tunes a Store. The zero value is the production default.
type Options struct {
	// BusyTimeout is how long a statement waits for a lock held by another
	// connection (another process, or a checkpoint). Default 5s.
	BusyTimeout time.Duration
	// Synchronous is SyncFull (default) or SyncNormal.
	Synchronous string
	// MaxGroup bounds the records one group commit holds (new transactions,
	// plus the updates, queues, senders and history entries of batches).
	// One call larger than MaxGroup commits alone. Default 1000.
	MaxGroup int
	// ReadConns is the size of the read pool. Default max(4, 2*GOMAXPROCS).
	ReadConns int
	// Now is the clock used when a time the caller gives is zero (created_at
	// of a NewTransaction without At, and the like). Default time.Now.
	Now func() time.Time
}

func (o Options) withDefaults() (Options, error) {
	if o.BusyTimeout == 0 {
		o.BusyTimeout = 5 * time.Second
	}
	if o.BusyTimeout < 0 {
		return o, fmt.Errorf("sqlite: negative BusyTimeout %v", o.BusyTimeout)
	}
	switch strings.ToUpper(o.Synchronous) {
	case "":
		o.Synchronous = SyncFull
	case SyncFull, SyncNormal:
		o.Synchronous = strings.ToUpper(o.Synchronous)
	default:
		return o, fmt.Errorf("sqlite: Synchronous %q is neither FULL nor NORMAL", o.Synchronous)
	}
	if o.MaxGroup <= 0 {
		o.MaxGroup = 1000
	}
	if o.ReadConns <= 0 {
		o.ReadConns = max(4, 2*runtime.GOMAXPROCS(0))
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o, nil
}

// ErrClosed is returned by calls made after Close.
var ErrClosed = errors.New("sqlite: store closed")

// Store is the SQLite implementation of store.Store. It is safe for
// concurrent use.
type Store struct {
	opts Options
	path string

	// Writer side: one connection, used only by the committer goroutine
	// (and by Open and Close before and after it runs).
	wdb   *sql.DB
	wconn *sql.Conn
	ws    writeStmts
	// onEnqueued is the commit-order notification hook (store.Notifier).
	onEnqueued atomic.Pointer[func([]store.Transaction)]
	// rep is the replication's self and the committer's cache (replica.go).
	rep replicaState

	// Read side: a pool; WAL lets readers run alongside the writer.
	rdb *sql.DB
	rs  readStmts

	q      *writeq.Queue[*request]
	exited chan struct{}

	closeOnce sync.Once
	closeErr  error

	commits atomic.Int64 // groups formed (for tests and metrics)
	reruns  atomic.Int64 // groups run again without a refused request
}

var _ store.Store = (*Store)(nil)

// Open opens (creating if needed) the database at path, applies pending
// migrations and starts the committer. Close releases it.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if path == "" {
		return nil, errors.New("sqlite: empty path")
	}
	if strings.ContainsAny(path, "?#") || strings.HasPrefix(path, "file:") {
		return nil, fmt.Errorf("sqlite: path %q: want a plain file name", path)
	}
	s := &Store{
		opts:   opts,
		path:   path,
		q:      writeq.New[*request](ErrClosed),
		exited: make(chan struct{}),
	}
	ok := false
	defer func() {
		if !ok {
			_ = s.closeAll() // the error returned is the one that failed the open
		}
	}()

	busy := strconv.FormatInt(opts.BusyTimeout.Milliseconds(), 10)
	wq := url.Values{}
	wq.Set("_busy_timeout", busy)
	wq.Set("_foreign_keys", "1")
	wq.Set("_journal_mode", "WAL")
	wq.Set("_synchronous", opts.Synchronous)
	wq.Set("_txlock", "immediate")
	wq.Add("_pragma", "temp_store(MEMORY)")
	s.wdb, err = sql.Open("sqlite", path+"?"+wq.Encode())
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	s.wdb.SetMaxOpenConns(1)
	s.wdb.SetMaxIdleConns(1)
	s.wdb.SetConnMaxLifetime(0)
	s.wdb.SetConnMaxIdleTime(0)
	s.wconn, err = s.wdb.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	var mode string
	if err := s.wconn.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return nil, fmt.Errorf("sqlite: open %s: journal_mode: %w", path, err)
	}
	if !strings.EqualFold(mode, "wal") {
		return nil, fmt.Errorf("sqlite: open %s: journal_mode is %q, want wal", path, mode)
	}
	if err := migrate(ctx, s.wconn, opts.Now); err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	if err := s.ws.prepare(ctx, s.wconn); err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}

	rq := url.Values{}
	rq.Set("_busy_timeout", busy)
	rq.Set("_query_only", "1")
	rq.Add("_pragma", "temp_store(MEMORY)")
	s.rdb, err = sql.Open("sqlite", path+"?"+rq.Encode())
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	s.rdb.SetMaxOpenConns(opts.ReadConns)
	s.rdb.SetMaxIdleConns(opts.ReadConns)
	s.rdb.SetConnMaxLifetime(0)
	s.rdb.SetConnMaxIdleTime(0)
	if err := s.rs.prepare(ctx, s.rdb); err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}

	go s.run()
	ok = true
	return s, nil
}

// Close stops the committer after it has committed every call already
// accepted, and closes the database. Calls made after Close fail with
// ErrClosed. Close is idempotent.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.q.Close()
		<-s.exited
		s.closeErr = s.closeAll()
	})
	return s.closeErr
}

// closeAll releases statements and connections; safe on a partly opened
// Store.
func (s *Store) closeAll() error {
	var errs []error
	errs = append(errs, s.ws.close(), s.rs.close())
	if s.wconn != nil {
		errs = append(errs, s.wconn.Close())
	}
	if s.wdb != nil {
		errs = append(errs, s.wdb.Close())
	}
	if s.rdb != nil {
		errs = append(errs, s.rdb.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("sqlite: close %s: %w", s.path, err)
	}
	return nil
}

type migration struct {
	version int
	name    string
	sql     string
}

func loadMigrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, err
	}
	var ms []migration
	seen := map[int]string{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".sql") {
			continue
		}
		prefix, _, found := strings.Cut(name, "_")
		if !found {
			return nil, fmt.Errorf("migration %s: want NNNN_name.sql", name)
		}
		v, err := strconv.Atoi(prefix)
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: want NNNN_name.sql", name)
		}
		if other, dup := seen[v]; dup {
			return nil, fmt.Errorf("migrations %s and %s share version %d", other, name, v)
		}
		seen[v] = name
		b, err := fs.ReadFile(migrationFS, "migrations/"+name)
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: name, sql: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	return ms, nil
}

// migrate applies, in version order, each embedded migration not yet in
// schema_migrations; each in its own transaction with its record.
func migrate(ctx context.Context, c *sql.Conn, now func() time.Time) error {
	ms, err := loadMigrations()
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	if _, err := c.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT    NOT NULL,
		applied_at INTEGER NOT NULL
	)`); err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	var latest int
	if err := c.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&latest); err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	if n := len(ms); n > 0 && latest > ms[n-1].version {
		return fmt.Errorf("migrations: database schema version %d is newer than this binary's %d", latest, ms[n-1].version)
	}
	for _, m := range ms {
		if err := applyMigration(ctx, c, m, now); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	return nil
}

func applyMigration(ctx context.Context, c *sql.Conn, m migration, now func() time.Time) (err error) {
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = ?`, m.version).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return tx.Rollback()
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
		m.version, m.name, now().UnixNano()); err != nil {
		return err
	}
	return tx.Commit()
}

// Times are unix nanoseconds; the zero time is NULL.

func nanos(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixNano()
}

func fromNanos(n sql.NullInt64) time.Time {
	if !n.Valid {
		return time.Time{}
	}
	return time.Unix(0, n.Int64).UTC()
}

// nullString stores "" as NULL (for the UNIQUE and REFERENCES columns).
func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// blob stores an empty raw message as NULL.
func blob(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return b
}

func rawOrNil(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}
