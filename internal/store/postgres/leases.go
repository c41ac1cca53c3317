package postgres

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ordolabs/ordo/internal/store"
)

// store.LeaseStore on the leases table (0009). "Now" is the database's
// clock, clock_timestamp(), never a node's: the nodes sharing the database
// have clocks of their own.
//
// Locks. A fenced write (checkFence) takes FOR KEY SHARE on its leases'
// rows in the group's transaction; a takeover (AcquireLeases of a lease
// held by another holder, or expired) first takes FOR UPDATE on the rows
// it takes, which conflicts with it: the takeover waits for the write's
// commit, and a write checked after the takeover's lock waits for its
// commit and then sees the new holder. A renewal (the holder's own,
// unexpired lease) is a plain UPDATE, whose lock (FOR NO KEY UPDATE) does
// not conflict with FOR KEY SHARE: a node's renewals never wait for its
// own writes, nor deadlock with them.

var _ store.LeaseStore = (*Store)(nil)

// nowSQL is the database's clock in unix nanoseconds.
const nowSQL = `(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000000)::bigint`

const (
	leaseCols = `name, holder, token, expires_at`

	// lockTakenSQL locks the rows among $1 that a call of holder $2 at
	// now $3 takes from another holder or after an expiry.
	lockTakenSQL = `SELECT name FROM leases
		WHERE name = ANY($1::text[]) AND (holder <> $2 OR expires_at <= $3::bigint)
		ORDER BY name FOR UPDATE`
	// acquireSQL takes or renews the leases $1 for holder $2 at now $3
	// until $3 + $4; a lease taken from another holder or after an expiry
	// gets a new token, a renewal keeps its own.
	acquireSQL = `INSERT INTO leases (` + leaseCols + `)
		SELECT n, $2, nextval('lease_tokens'), $3::bigint + $4::bigint
		FROM unnest($1::text[]) AS n ORDER BY n
		ON CONFLICT (name) DO UPDATE SET
			holder = excluded.holder,
			token = CASE WHEN leases.holder = excluded.holder AND leases.expires_at > $3::bigint
				THEN leases.token ELSE excluded.token END,
			expires_at = excluded.expires_at
		WHERE leases.holder = excluded.holder OR leases.expires_at <= $3::bigint
		RETURNING ` + leaseCols
	renewSQL = `UPDATE leases SET expires_at = n.now + $2::bigint
		FROM (SELECT ` + nowSQL + ` AS now) AS n
		WHERE holder = $1 AND expires_at > n.now
		RETURNING ` + leaseCols
	releaseAllSQL   = `UPDATE leases SET expires_at = 0 WHERE holder = $1 AND expires_at > 0`
	releaseNamesSQL = `UPDATE leases SET expires_at = 0 WHERE holder = $1 AND expires_at > 0 AND name = ANY($2::text[])`
	leasesSQL       = `SELECT ` + leaseCols + ` FROM leases
		WHERE name >= $1 AND ($2::text IS NULL OR name < $2::text) AND starts_with(name, $1)
			AND expires_at > ` + nowSQL + `
		ORDER BY name`
	// fenceSQL reads a fence's leases, each with whether it is unexpired,
	// and locks them against a takeover until the transaction ends.
	fenceSQL = `SELECT name, holder, token, expires_at > ` + nowSQL + ` FROM leases
		WHERE name = ANY($1::text[]) ORDER BY name FOR KEY SHARE`
)

// activeNext is the least queue above x holding a transaction in WAITING,
// REVISION or RETRY: a seek in each state's range of (state, queue, seq).
func activeNext(x string) string {
	var parts []string
	for _, st := range []store.TxState{store.Waiting, store.Revision, store.Retry} {
		parts = append(parts, `(SELECT MIN(queue) FROM transactions WHERE state = '`+string(st)+`' AND queue > `+x+`)`)
	}
	return `LEAST(` + strings.Join(parts, ", ") + `)`
}

// activeQueuesSQL lists the active queues above $1, at most $2: a
// skip-scan, one seek per state and queue listed.
var activeQueuesSQL = `WITH RECURSIVE a(name, n) AS (
		SELECT ` + activeNext(`$1::text`) + `, 1
		UNION ALL
		SELECT ` + activeNext(`a.name`) + `, a.n + 1 FROM a WHERE a.name IS NOT NULL AND a.n < $2::bigint
	)
	SELECT name FROM a WHERE name IS NOT NULL`

func scanLease(row pgx.CollectableRow) (store.Lease, error) {
	var (
		l   store.Lease
		exp int64
	)
	if err := row.Scan(&l.Name, &l.Holder, &l.Token, &exp); err != nil {
		return store.Lease{}, err
	}
	l.Expires = time.Unix(0, exp).UTC()
	return l, nil
}

func collectLeases(rows pgx.Rows, err error) ([]store.Lease, error) {
	if err != nil {
		return nil, err
	}
	ls, err := pgx.CollectRows(rows, scanLease)
	if err != nil {
		return nil, err
	}
	if ls == nil {
		ls = []store.Lease{}
	}
	sort.Slice(ls, func(i, j int) bool { return ls[i].Name < ls[j].Name })
	return ls, nil
}

// AcquireLeases implements store.LeaseStore in one transaction: the
// database's now, the lock of the leases it takes from another holder or
// after an expiry (see the file's comment), and one upsert.
func (s *Store) AcquireLeases(ctx context.Context, holder string, names []string, ttl time.Duration) ([]store.Lease, error) {
	if err := store.CheckLease(holder, ttl); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	names = store.LeaseNames(names)
	if len(names) == 0 {
		return []store.Lease{}, ctx.Err()
	}
	var out []store.Lease
	err := s.inTx(ctx, pgx.TxOptions{}, func(tx pgx.Tx) error {
		// A takeover waits for a fenced write in progress, but not for
		// a stalled one: past a third of the ttl it gives up (the next
		// cycle tries again).
		if _, err := tx.Exec(ctx, fmt.Sprintf("SET LOCAL lock_timeout = %d", max(ttl.Milliseconds()/3, 100))); err != nil {
			return err
		}
		var now int64
		if err := tx.QueryRow(ctx, `SELECT `+nowSQL).Scan(&now); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, lockTakenSQL, names, holder, now)
		if err != nil {
			return err
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		rows, err = tx.Query(ctx, acquireSQL, names, holder, now, int64(ttl))
		out, err = collectLeases(rows, err)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: acquire leases: %w", err)
	}
	return out, nil
}

// RenewLeases implements store.LeaseStore with one UPDATE.
func (s *Store) RenewLeases(ctx context.Context, holder string, ttl time.Duration) ([]store.Lease, error) {
	if err := store.CheckLease(holder, ttl); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if s.isClosed() {
		return nil, ErrClosed
	}
	rows, err := s.pool.Query(ctx, renewSQL, holder, int64(ttl))
	out, err := collectLeases(rows, err)
	if err != nil {
		return nil, fmt.Errorf("postgres: renew leases: %w", err)
	}
	return out, nil
}

// ReleaseLeases implements store.LeaseStore: a released lease expires (its
// row, holder and token stay).
func (s *Store) ReleaseLeases(ctx context.Context, holder string, names []string) error {
	if s.isClosed() {
		return ErrClosed
	}
	var err error
	if names == nil {
		_, err = s.pool.Exec(ctx, releaseAllSQL, holder)
	} else if names = store.LeaseNames(names); len(names) > 0 {
		_, err = s.pool.Exec(ctx, releaseNamesSQL, holder, names)
	}
	if err != nil {
		return fmt.Errorf("postgres: release leases: %w", err)
	}
	return nil
}

// Leases implements store.LeaseStore.
func (s *Store) Leases(ctx context.Context, prefix string) ([]store.Lease, error) {
	if s.isClosed() {
		return nil, ErrClosed
	}
	rows, err := s.pool.Query(ctx, leasesSQL, prefix, store.LeasePrefixEnd(prefix))
	out, err := collectLeases(rows, err)
	if err != nil {
		return nil, fmt.Errorf("postgres: leases: %w", err)
	}
	return out, nil
}

// ActiveQueues implements store.LeaseStore with a skip-scan of the
// WAITING, REVISION and RETRY ranges of (state, queue, seq).
func (s *Store) ActiveQueues(ctx context.Context, after string, limit int) ([]string, error) {
	if s.isClosed() {
		return nil, ErrClosed
	}
	if limit <= 0 {
		limit = store.MaxLimit
	}
	rows, err := s.pool.Query(ctx, activeQueuesSQL, after, int64(limit))
	if err == nil {
		var names []string
		if names, err = pgx.CollectRows(rows, pgx.RowTo[string]); err == nil {
			if names == nil {
				names = []string{}
			}
			return names, nil
		}
	}
	return nil, fmt.Errorf("postgres: active queues: %w", err)
}

// fenceError is a write refused by its fence: store.ErrFenced, and a
// refused request of the committer (run again without it).
type fenceError struct{ msg string }

func (e *fenceError) Error() string   { return e.msg }
func (e *fenceError) Unwrap() []error { return []error{store.ErrFenced, errRefused} }

// fenced is write: the fence f is checked (checkFence) in the write's
// transaction before it runs; a nil f checks nothing.
func fenced(f *store.Fence, write func(ctx context.Context, tx wtx) error) func(ctx context.Context, tx wtx) error {
	if f == nil {
		return write
	}
	return func(ctx context.Context, tx wtx) error {
		if err := checkFence(ctx, tx, f); err != nil {
			return err
		}
		return write(ctx, tx)
	}
}

// checkFence returns an error wrapping store.ErrFenced unless every lease f
// names is held by f.Holder with its token and unexpired now; it locks the
// leases' rows FOR KEY SHARE until tx ends, so that a takeover waits for
// tx's commit. A nil fence passes.
func checkFence(ctx context.Context, tx wtx, f *store.Fence) error {
	if f == nil || len(f.Leases) == 0 {
		return nil
	}
	rows, err := tx.Query(ctx, fenceSQL, f.Names())
	if err != nil {
		return fmt.Errorf("postgres: fence: %w", err)
	}
	chk := f.Check()
	var (
		l    store.Lease
		live bool
	)
	if _, err = pgx.ForEachRow(rows, []any{&l.Name, &l.Holder, &l.Token, &live}, func() error {
		chk.Lease(l, live)
		return nil
	}); err != nil {
		return fmt.Errorf("postgres: fence: %w", err)
	}
	if bad := chk.Stale(); bad != "" {
		return &fenceError{msg: fmt.Sprintf("postgres: apply: %v: %s", store.ErrFenced, bad)}
	}
	return nil
}
