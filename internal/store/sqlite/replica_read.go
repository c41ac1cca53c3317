package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/ordolabs/ordo/internal/replog"
	"github.com/ordolabs/ordo/internal/store"
)

// The replication's reads, on the read pool (committed data only).

const replicaSetCols = `queue, primary_node, secondaries, version`

// The read statements.
const (
	replicaSetsSQL = `SELECT ` + replicaSetCols + ` FROM replica_sets ORDER BY queue`
	replicaSetSQL  = `SELECT ` + replicaSetCols + ` FROM replica_sets WHERE queue = ?`
	logHeadSQL     = `SELECT clock, hash, version FROM replication_log WHERE queue = ? ORDER BY clock DESC LIMIT 1`
	logAfterSQL    = `SELECT queue, clock, version, prev, payload, hash FROM replication_log WHERE queue = ? AND clock > ? ORDER BY clock LIMIT ?`
	// A skip-scan of the primary key: one seek per queue with a log for its
	// name, one for its last clock.
	logHeadsSQL = `WITH RECURSIVE q(name) AS (
			SELECT MIN(queue) FROM replication_log
			UNION ALL
			SELECT (SELECT MIN(queue) FROM replication_log WHERE queue > q.name) FROM q WHERE q.name IS NOT NULL
		)
		SELECT q.name, l.clock, l.hash, l.version FROM q JOIN replication_log l
			ON l.queue = q.name AND l.clock = (SELECT MAX(clock) FROM replication_log WHERE queue = q.name)
		WHERE q.name IS NOT NULL`
)

func scanReplicaSet(row scanner) (store.ReplicaSet, error) {
	var (
		set     store.ReplicaSet
		sec     []byte
		version int64
	)
	if err := row.Scan(&set.Queue, &set.Primary, &sec, &version); err != nil {
		return store.ReplicaSet{}, err
	}
	if err := json.Unmarshal(sec, &set.Secondaries); err != nil {
		return store.ReplicaSet{}, fmt.Errorf("replica set %s: secondaries: %w", set.Queue, err)
	}
	set.Secondaries = normSecondaries(set.Secondaries)
	set.Version = uint64(version)
	return set, nil
}

// hashOf reads a stored hash.
func hashOf(b []byte) (replog.Hash, error) {
	var h replog.Hash
	if len(b) != len(h) {
		return h, fmt.Errorf("hash of %d bytes", len(b))
	}
	copy(h[:], b)
	return h, nil
}

func scanHead(row scanner) (replog.Head, error) {
	var (
		clock, version int64
		hash           []byte
	)
	if err := row.Scan(&clock, &hash, &version); err != nil {
		return replog.Head{}, err
	}
	h, err := hashOf(hash)
	return replog.Head{Clock: uint64(clock), Hash: h, Version: uint64(version)}, err
}

func scanEntry(row scanner) (replog.Entry, error) {
	var (
		e                   replog.Entry
		clock, version      int64
		prev, payload, hash []byte
		errPrev, errHash    error
	)
	if err := row.Scan(&e.Queue, &clock, &version, &prev, &payload, &hash); err != nil {
		return replog.Entry{}, err
	}
	e.Clock, e.Version, e.Payload = uint64(clock), uint64(version), payload
	e.Prev, errPrev = hashOf(prev)
	e.Hash, errHash = hashOf(hash)
	if err := errors.Join(errPrev, errHash); err != nil {
		return replog.Entry{}, fmt.Errorf("log %s at %d: %w", e.Queue, e.Clock, err)
	}
	return e, nil
}

// ReplicaSets implements store.ReplicaStore: by queue name.
func (s *Store) ReplicaSets(ctx context.Context) ([]store.ReplicaSet, error) {
	rows, err := s.rdb.QueryContext(ctx, replicaSetsSQL)
	if err != nil {
		return nil, fmt.Errorf("sqlite: replica sets: %w", err)
	}
	sets, err := collectRows(rows, scanReplicaSet)
	if err != nil {
		return nil, fmt.Errorf("sqlite: replica sets: %w", err)
	}
	return sets, nil
}

// ReplicaSet implements store.ReplicaStore.
func (s *Store) ReplicaSet(ctx context.Context, queue string) (store.ReplicaSet, error) {
	set, err := scanReplicaSet(s.rdb.QueryRowContext(ctx, replicaSetSQL, queue))
	if errors.Is(err, sql.ErrNoRows) {
		err = store.ErrNotFound
	}
	if err != nil {
		return store.ReplicaSet{}, fmt.Errorf("sqlite: replica set %s: %w", queue, err)
	}
	return set, nil
}

// LogHead implements store.ReplicaStore.
func (s *Store) LogHead(ctx context.Context, queue string) (replog.Head, error) {
	h, err := scanHead(s.rdb.QueryRowContext(ctx, logHeadSQL, queue))
	if errors.Is(err, sql.ErrNoRows) {
		return replog.Head{}, nil
	}
	if err != nil {
		return replog.Head{}, fmt.Errorf("sqlite: log head of %s: %w", queue, err)
	}
	return h, nil
}

// LogHeads implements store.ReplicaStore.
func (s *Store) LogHeads(ctx context.Context) (map[string]replog.Head, error) {
	rows, err := s.rdb.QueryContext(ctx, logHeadsSQL)
	if err != nil {
		return nil, fmt.Errorf("sqlite: log heads: %w", err)
	}
	type named struct {
		queue string
		head  replog.Head
	}
	heads, err := collectRows(rows, func(r scanner) (named, error) {
		var (
			n              named
			clock, version int64
			hash           []byte
		)
		if err := r.Scan(&n.queue, &clock, &hash, &version); err != nil {
			return n, err
		}
		h, err := hashOf(hash)
		n.head = replog.Head{Clock: uint64(clock), Hash: h, Version: uint64(version)}
		return n, err
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: log heads: %w", err)
	}
	out := make(map[string]replog.Head, len(heads))
	for _, n := range heads {
		out[n.queue] = n.head
	}
	return out, nil
}

// LogAfter implements store.ReplicaStore.
func (s *Store) LogAfter(ctx context.Context, queue string, after uint64, limit int) ([]replog.Entry, error) {
	if after > math.MaxInt64 {
		return []replog.Entry{}, ctx.Err()
	}
	rows, err := s.rdb.QueryContext(ctx, logAfterSQL, queue, int64(after), store.ClampLimit(limit))
	if err != nil {
		return nil, fmt.Errorf("sqlite: log of %s: %w", queue, err)
	}
	es, err := collectRows(rows, scanEntry)
	if err != nil {
		return nil, fmt.Errorf("sqlite: log of %s: %w", queue, err)
	}
	return es, nil
}
