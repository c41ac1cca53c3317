package sqlite

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

// store.LeaseStore on the leases table (0009). The store's clock is
// Options.Now: one node, one clock. The writes are requests of the
// committer (in a group's transaction, on the writer connection), so a
// fenced batch is checked (checkFence) in the transaction that writes it
// and no lease changes between the check and the commit.

var _ store.LeaseStore = (*Store)(nil)

// leaseChunk bounds the names of one statement (4 parameters each at most).
const leaseChunk = 500

const leaseCols = `name, holder, token, expires_at`

func scanLease(r scanner) (store.Lease, error) {
	var (
		l   store.Lease
		exp int64
	)
	if err := r.Scan(&l.Name, &l.Holder, &l.Token, &exp); err != nil {
		return store.Lease{}, err
	}
	l.Expires = time.Unix(0, exp).UTC()
	return l, nil
}

func sortLeases(ls []store.Lease) []store.Lease {
	sort.Slice(ls, func(i, j int) bool { return ls[i].Name < ls[j].Name })
	return ls
}

// inNames is "(?k, ?k+1, …)" for n names from parameter k on.
func inNames(k, n int) string {
	var b strings.Builder
	b.WriteByte('(')
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "?%d", k+i)
	}
	b.WriteByte(')')
	return b.String()
}

// AcquireLeases implements store.LeaseStore: one request of the committer.
// A token taken is the greatest token of the table plus one (rows are
// never deleted, so it is above every token the lease had).
func (s *Store) AcquireLeases(ctx context.Context, holder string, names []string, ttl time.Duration) ([]store.Lease, error) {
	if err := store.CheckLease(holder, ttl); err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	names = store.LeaseNames(names)
	if len(names) == 0 {
		return []store.Lease{}, ctx.Err()
	}
	var out []store.Lease
	_, err := s.submitReplica(ctx, len(names), func(ctx context.Context, _ *request) error {
		out = nil
		now := s.opts.Now().UnixNano()
		var top int64
		if err := s.wconn.QueryRowContext(ctx, `SELECT COALESCE(MAX(token), 0) FROM leases`).Scan(&top); err != nil {
			return err
		}
		for lo := 0; lo < len(names); lo += leaseChunk {
			part := names[lo:min(lo+leaseChunk, len(names))]
			var vals strings.Builder
			args := []any{holder, top + 1, now + int64(ttl), now}
			for i, n := range part {
				if i > 0 {
					vals.WriteString(", ")
				}
				fmt.Fprintf(&vals, "(?%d, ?1, ?2, ?3)", 5+i)
				args = append(args, n)
			}
			rows, err := s.wconn.QueryContext(ctx, `INSERT INTO leases (`+leaseCols+`) VALUES `+vals.String()+`
				ON CONFLICT (name) DO UPDATE SET
					holder = excluded.holder,
					token = CASE WHEN leases.holder = excluded.holder AND leases.expires_at > ?4
						THEN leases.token ELSE excluded.token END,
					expires_at = excluded.expires_at
				WHERE leases.holder = excluded.holder OR leases.expires_at <= ?4
				RETURNING `+leaseCols, args...)
			if err != nil {
				return err
			}
			ls, err := collectRows(rows, scanLease)
			if err != nil {
				return err
			}
			out = append(out, ls...)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: acquire leases: %w", err)
	}
	if out == nil {
		out = []store.Lease{}
	}
	return sortLeases(out), nil
}

// RenewLeases implements store.LeaseStore: one request of the committer,
// one UPDATE.
func (s *Store) RenewLeases(ctx context.Context, holder string, ttl time.Duration) ([]store.Lease, error) {
	if err := store.CheckLease(holder, ttl); err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	var out []store.Lease
	_, err := s.submitReplica(ctx, 1, func(ctx context.Context, _ *request) error {
		now := s.opts.Now().UnixNano()
		rows, err := s.wconn.QueryContext(ctx, `UPDATE leases SET expires_at = ?2 + ?3
			WHERE holder = ?1 AND expires_at > ?2 RETURNING `+leaseCols, holder, now, int64(ttl))
		if err != nil {
			return err
		}
		out, err = collectRows(rows, scanLease)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: renew leases: %w", err)
	}
	return sortLeases(out), nil
}

// ReleaseLeases implements store.LeaseStore: a released lease expires (its
// row, holder and token stay).
func (s *Store) ReleaseLeases(ctx context.Context, holder string, names []string) error {
	all := names == nil
	names = store.LeaseNames(names)
	if !all && len(names) == 0 {
		return ctx.Err()
	}
	_, err := s.submitReplica(ctx, max(len(names), 1), func(ctx context.Context, _ *request) error {
		if all {
			_, err := s.wconn.ExecContext(ctx, `UPDATE leases SET expires_at = 0 WHERE holder = ?1 AND expires_at > 0`, holder)
			return err
		}
		for lo := 0; lo < len(names); lo += leaseChunk {
			part := names[lo:min(lo+leaseChunk, len(names))]
			args := []any{holder}
			for _, n := range part {
				args = append(args, n)
			}
			if _, err := s.wconn.ExecContext(ctx, `UPDATE leases SET expires_at = 0
				WHERE holder = ?1 AND expires_at > 0 AND name IN `+inNames(2, len(part)), args...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: release leases: %w", err)
	}
	return nil
}

// Leases implements store.LeaseStore.
func (s *Store) Leases(ctx context.Context, prefix string) ([]store.Lease, error) {
	var end any
	if e := store.LeasePrefixEnd(prefix); e != nil {
		end = *e
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT `+leaseCols+` FROM leases
		WHERE name >= ?1 AND (?2 IS NULL OR name < ?2) AND substr(name, 1, length(?1)) = ?1
			AND expires_at > ?3
		ORDER BY name`, prefix, end, s.opts.Now().UnixNano())
	if err != nil {
		return nil, fmt.Errorf("sqlite: leases: %w", err)
	}
	ls, err := collectRows(rows, scanLease)
	if err != nil {
		return nil, fmt.Errorf("sqlite: leases: %w", err)
	}
	return ls, nil
}

// activeNext is the least queue above x holding a transaction in WAITING,
// REVISION or RETRY: a seek in each state's range of (state, queue, seq);
// MIN over the three ignores a state with none.
func activeNext(x string) string {
	var parts []string
	for _, st := range []store.TxState{store.Waiting, store.Revision, store.Retry} {
		parts = append(parts, `SELECT MIN(queue) AS q FROM transactions WHERE state = '`+string(st)+`' AND queue > `+x)
	}
	return `(SELECT MIN(q) FROM (` + strings.Join(parts, " UNION ALL ") + `))`
}

// activeQueuesSQL lists the active queues above ?1, at most ?2: a
// skip-scan, one seek per state and queue listed.
var activeQueuesSQL = `WITH RECURSIVE a(name, n) AS (
		SELECT ` + activeNext(`?1`) + `, 1
		UNION ALL
		SELECT ` + activeNext(`a.name`) + `, a.n + 1 FROM a WHERE a.name IS NOT NULL AND a.n < ?2
	)
	SELECT name FROM a WHERE name IS NOT NULL`

// ActiveQueues implements store.LeaseStore with a skip-scan of the
// WAITING, REVISION and RETRY ranges of (state, queue, seq).
func (s *Store) ActiveQueues(ctx context.Context, after string, limit int) ([]string, error) {
	if limit <= 0 {
		limit = store.MaxLimit
	}
	rows, err := s.rdb.QueryContext(ctx, activeQueuesSQL, after, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: active queues: %w", err)
	}
	names, err := collectRows(rows, func(r scanner) (string, error) {
		var n string
		return n, r.Scan(&n)
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: active queues: %w", err)
	}
	return names, nil
}

// checkFence returns, on the writer connection in the group's
// transaction, an error wrapping store.ErrFenced unless every lease f
// names is held by f.Holder with its token and unexpired on Options.Now;
// that error is unwritten (the request wrote nothing: the group goes on
// without it). A nil fence passes.
func (s *Store) checkFence(ctx context.Context, f *store.Fence) error {
	if f == nil || len(f.Leases) == 0 {
		return nil
	}
	names := f.Names()
	now := s.opts.Now().UnixNano()
	chk := f.Check()
	for lo := 0; lo < len(names); lo += leaseChunk {
		part := names[lo:min(lo+leaseChunk, len(names))]
		args := make([]any, len(part))
		for i, n := range part {
			args[i] = n
		}
		rows, err := s.wconn.QueryContext(ctx, `SELECT `+leaseCols+` FROM leases WHERE name IN `+inNames(1, len(part)), args...)
		if err != nil {
			return fmt.Errorf("sqlite: fence: %w", err)
		}
		ls, err := collectRows(rows, scanLease)
		if err != nil {
			return fmt.Errorf("sqlite: fence: %w", err)
		}
		for _, l := range ls {
			chk.Lease(l, l.Expires.UnixNano() > now)
		}
	}
	if bad := chk.Stale(); bad != "" {
		return unwritten(fmt.Errorf("sqlite: apply: %w: %s", store.ErrFenced, bad))
	}
	return nil
}
