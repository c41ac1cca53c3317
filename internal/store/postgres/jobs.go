package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ordolabs/ordo/internal/store"
)

// The job queue's records (store.JobStore, issue 12), on the same database
// as the others (migrations/0007_jobs.sql: a partial UNIQUE index holds a
// unique key to one live job).
//
// ApplyJobs is one request of the committer (committer.go), group-committed
// with the other writes: its updates go in one pgx.Batch, one statement per
// job in order (an update may free a key that a later one takes), then its
// inserts in one multi-row INSERT … ON CONFLICT DO NOTHING, whose arbiters
// are exactly the two reasons an insert is not added: its ID is stored, or
// a live job holds its key (stored, as updated, or earlier in the
// statement). The skipped inserts answer the stored job, read after.
//
// Invariants:
//   - an acknowledged ApplyJobs is committed; a failed one wrote nothing;
//   - updates run in order, then inserts in order; an insert whose ID is
//     stored, or whose unique key a live job holds, is not added and
//     answers the stored job;
//   - ApplyJobs refuses, writing nothing, a job with an ID below 1, an empty
//     queue or kind, a state outside the seven, a negative attempt count;
//     an update of an unknown ID (store.ErrNotFound) and one that would
//     make a second live job hold a key (store.ErrUniqueLive).

var _ store.JobStore = (*Store)(nil)

// jobCols is the column list, in the order the writes bind and the reads
// scan it.
const jobCols = `id, queue, kind, args, unique_key, state, attempt, max_attempts, run_at, errors,
	created_at, updated_at, finalized_at`

// The job statements.
const (
	jobInsertSQL = `INSERT INTO jobs (` + jobCols + `)
		SELECT v.id, v.queue, v.kind, v.args, NULLIF(v.key, ''), v.state, v.attempt, v.max_attempts, v.run_at,
			v.errors, v.created_at, v.updated_at, v.finalized_at
		FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bytea[], $5::text[], $6::text[], $7::bigint[],
			$8::bigint[], $9::bigint[], $10::bytea[], $11::bigint[], $12::bigint[], $13::bigint[])
			WITH ORDINALITY AS v(id, queue, kind, args, key, state, attempt, max_attempts, run_at, errors,
				created_at, updated_at, finalized_at, o)
		ORDER BY v.o
		ON CONFLICT DO NOTHING
		RETURNING id`
	jobUpdateSQL = `UPDATE jobs SET queue = $1, kind = $2, args = $3, unique_key = $4, state = $5, attempt = $6,
		max_attempts = $7, run_at = $8, errors = $9, created_at = $10, updated_at = $11, finalized_at = $12
		WHERE id = $13`
	jobLive           = `state IN ('available', 'scheduled', 'running', 'retryable')`
	jobByIDSQL        = `SELECT ` + jobCols + ` FROM jobs WHERE id = $1`
	jobsByIDsSQL      = `SELECT ` + jobCols + ` FROM jobs WHERE id = ANY($1)`
	jobsLiveByKeysSQL = `SELECT ` + jobCols + ` FROM jobs WHERE unique_key = ANY($1) AND ` + jobLive
	jobLiveByKeySQL   = `SELECT ` + jobCols + ` FROM jobs WHERE unique_key = $1 AND ` + jobLive
	jobLastByKeySQL   = `SELECT ` + jobCols + ` FROM jobs WHERE unique_key = $1 ORDER BY created_at DESC, id DESC LIMIT 1`
	jobDueSQL         = `SELECT ` + jobCols + ` FROM jobs WHERE queue = $1 AND state IN ('available', 'scheduled', 'retryable')
		AND (state = 'available' OR run_at <= $2) ORDER BY run_at, id LIMIT $3`
	jobLiveSQL   = `SELECT ` + jobCols + ` FROM jobs WHERE ` + jobLive + ` ORDER BY id`
	jobCountsSQL = `SELECT queue, state, COUNT(*) FROM jobs GROUP BY queue, state`
	jobListSQL   = `SELECT ` + jobCols + ` FROM jobs WHERE ($1 = '' OR queue = $1) AND ($2 = '' OR state = $2)
		AND ($3 = '' OR kind = $3) AND id > $4 ORDER BY id LIMIT $5`
	jobListQueueSQL = `SELECT ` + jobCols + ` FROM jobs WHERE queue = $1 AND ($2 = '' OR state = $2)
		AND ($3 = '' OR kind = $3) AND id > $4 ORDER BY id LIMIT $5`
	jobListQueueStateSQL = `SELECT ` + jobCols + ` FROM jobs WHERE queue = $1 AND state = $2
		AND ($3 = '' OR kind = $3) AND id > $4 ORDER BY id LIMIT $5`
)

// ApplyJobs implements store.JobStore: b commits atomically (see the
// invariants above).
func (s *Store) ApplyJobs(ctx context.Context, b store.JobBatch) ([]store.JobInserted, error) {
	if err := b.Validate(); err != nil {
		return nil, fmt.Errorf("postgres: apply jobs: %w", err)
	}
	if b.Empty() {
		return []store.JobInserted{}, ctx.Err()
	}
	var out []store.JobInserted
	err := s.write(ctx, len(b.Insert)+len(b.Update), func(ctx context.Context, tx wtx) error {
		var err error
		out, err = s.applyJobs(ctx, tx, &b)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: apply jobs: %w", err)
	}
	return out, nil
}

// applyJobs writes b in tx.
func (s *Store) applyJobs(ctx context.Context, tx wtx, b *store.JobBatch) ([]store.JobInserted, error) {
	if err := updateJobs(ctx, tx, b.Update); err != nil {
		return nil, err
	}
	if len(b.Insert) == 0 {
		return []store.JobInserted{}, nil
	}
	n := len(b.Insert)
	var (
		ids, attempts, maxAttempts, runAts = make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
		queues, kinds, keys, states        = make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		args, errs                         = make([][]byte, n), make([][]byte, n)
		created, updated, finalized        = make([]*int64, n), make([]*int64, n), make([]*int64, n)
	)
	for i := range b.Insert {
		j := &b.Insert[i]
		e, err := encodeJobErrors(j.Errors)
		if err != nil {
			return nil, fmt.Errorf("insert %d: %w", j.ID, err)
		}
		ids[i], queues[i], kinds[i], args[i], keys[i], states[i] = j.ID, j.Queue, j.Kind, blob(j.Args), j.UniqueKey, string(j.State)
		attempts[i], maxAttempts[i], runAts[i], errs[i] = int64(j.Attempt), int64(j.MaxAttempts), runAtNanos(j.RunAt), e
		created[i], updated[i], finalized[i] = nanos(j.CreatedAt), nanos(j.UpdatedAt), nanos(j.FinalizedAt)
	}
	rows, err := tx.Query(ctx, jobInsertSQL, ids, queues, kinds, args, keys, states, attempts, maxAttempts, runAts,
		errs, created, updated, finalized)
	if err != nil {
		return nil, fmt.Errorf("insert: %w", err)
	}
	added, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("insert: %w", err)
	}
	// An id given twice was added once, by its first insert.
	fresh := make(map[int64]bool, len(added))
	for _, id := range added {
		fresh[id] = true
	}
	out := make([]store.JobInserted, n)
	var skipped []int
	for i := range b.Insert {
		j := &b.Insert[i]
		if fresh[j.ID] {
			delete(fresh, j.ID)
			out[i] = store.JobInserted{Job: store.NormJob(*j), Created: true}
			continue
		}
		skipped = append(skipped, i)
	}
	if len(skipped) > 0 {
		if err := answerSkipped(ctx, tx, b.Insert, skipped, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// updateJobs rewrites the jobs of us, one statement each, in order, sent
// together.
func updateJobs(ctx context.Context, tx wtx, us []store.Job) error {
	if len(us) == 0 {
		return nil
	}
	var pb pgx.Batch
	for i := range us {
		j := &us[i]
		e, err := encodeJobErrors(j.Errors)
		if err != nil {
			return fmt.Errorf("update %d: %w", j.ID, err)
		}
		pb.Queue(jobUpdateSQL, j.Queue, j.Kind, blob(j.Args), nullString(j.UniqueKey), string(j.State), int64(j.Attempt),
			int64(j.MaxAttempts), runAtNanos(j.RunAt), e, nanos(j.CreatedAt), nanos(j.UpdatedAt), nanos(j.FinalizedAt), j.ID)
	}
	br := tx.SendBatch(ctx, &pb)
	defer func() { _ = br.Close() }()
	for i := range us {
		j := &us[i]
		tag, err := br.Exec()
		switch {
		case isCode(err, codeUnique):
			return fmt.Errorf("update %d: key %q: %w: %w", j.ID, j.UniqueKey, store.ErrUniqueLive, err)
		case err != nil:
			return fmt.Errorf("update %d: %w", j.ID, err)
		case tag.RowsAffected() == 0:
			return fmt.Errorf("update %d: %w", j.ID, store.ErrNotFound)
		}
	}
	return br.Close()
}

// answerSkipped sets the answers of the inserts not added: the job stored
// under the insert's ID or, when none is, the live job holding its key.
func answerSkipped(ctx context.Context, tx wtx, ins []store.Job, skipped []int, out []store.JobInserted) error {
	ids := make([]int64, 0, len(skipped))
	var keys []string
	for _, i := range skipped {
		ids = append(ids, ins[i].ID)
		if ins[i].UniqueKey != "" {
			keys = append(keys, ins[i].UniqueKey)
		}
	}
	byID := map[int64]store.Job{}
	byKey := map[string]store.Job{}
	jobs, err := queryJobs(ctx, tx, jobsByIDsSQL, ids)
	if err != nil {
		return fmt.Errorf("insert: %w", err)
	}
	for _, j := range jobs {
		byID[j.ID] = j
	}
	if len(keys) > 0 {
		jobs, err := queryJobs(ctx, tx, jobsLiveByKeysSQL, keys)
		if err != nil {
			return fmt.Errorf("insert: %w", err)
		}
		for _, j := range jobs {
			byKey[j.UniqueKey] = j
		}
	}
	for _, i := range skipped {
		j, ok := byID[ins[i].ID]
		if !ok {
			j, ok = byKey[ins[i].UniqueKey]
		}
		if !ok {
			return fmt.Errorf("insert %d: not added, and no job holds its id or key", ins[i].ID)
		}
		out[i] = store.JobInserted{Job: j}
	}
	return nil
}

// runAtNanos stores run_at, never NULL: 0 for a zero time.
func runAtNanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// encodeJobErrors is the errors column: a JSON array, NULL when empty.
func encodeJobErrors(es []store.JobError) ([]byte, error) {
	if len(es) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(es)
	if err != nil {
		return nil, fmt.Errorf("errors: %w", err)
	}
	return b, nil
}

// decodeJobErrors reads the errors column back, times in UTC; nil for an
// empty column.
func decodeJobErrors(b []byte) ([]store.JobError, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var es []store.JobError
	if err := json.Unmarshal(b, &es); err != nil {
		return nil, err
	}
	if len(es) == 0 {
		return nil, nil
	}
	for i := range es {
		es[i].At = store.UTCOrZero(es[i].At)
	}
	return es, nil
}

func scanJob(row pgx.Row) (store.Job, error) {
	var (
		j                           store.Job
		args, errs                  []byte
		key                         *string
		state                       string
		attempt, maxAttempts, runAt int64
		created, updated, finalized *int64
	)
	if err := row.Scan(&j.ID, &j.Queue, &j.Kind, &args, &key, &state, &attempt, &maxAttempts, &runAt,
		&errs, &created, &updated, &finalized); err != nil {
		return store.Job{}, err
	}
	j.Args = blob(args)
	j.UniqueKey = deref(key)
	j.State = store.JobState(state)
	j.Attempt, j.MaxAttempts = int(attempt), int(maxAttempts)
	if runAt != 0 {
		j.RunAt = time.Unix(0, runAt).UTC()
	}
	es, err := decodeJobErrors(errs)
	if err != nil {
		return store.Job{}, fmt.Errorf("job %d: errors: %w", j.ID, err)
	}
	j.Errors = es
	j.CreatedAt, j.UpdatedAt, j.FinalizedAt = fromNanos(created), fromNanos(updated), fromNanos(finalized)
	return j, nil
}

// queryJobs runs a job query on q; the result is never nil.
func queryJobs(ctx context.Context, q querier, sql string, args ...any) ([]store.Job, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []store.Job{}
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, rows.Err()
}

// Job implements store.JobStore.
func (s *Store) Job(ctx context.Context, id int64) (store.Job, error) {
	if s.isClosed() {
		return store.Job{}, ErrClosed
	}
	j, err := scanJob(s.pool.QueryRow(ctx, jobByIDSQL, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Job{}, fmt.Errorf("postgres: job %d: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return store.Job{}, fmt.Errorf("postgres: job %d: %w", id, err)
	}
	return j, nil
}

// JobByUniqueKey implements store.JobStore. Its two reads run in one
// snapshot.
func (s *Store) JobByUniqueKey(ctx context.Context, key string) (store.Job, error) {
	if key == "" {
		return store.Job{}, fmt.Errorf("postgres: job with an empty key: %w", store.ErrNotFound)
	}
	var j store.Job
	err := s.inTx(ctx, snapshot, func(tx pgx.Tx) error {
		var err error
		j, err = scanJob(tx.QueryRow(ctx, jobLiveByKeySQL, key))
		if errors.Is(err, pgx.ErrNoRows) {
			j, err = scanJob(tx.QueryRow(ctx, jobLastByKeySQL, key))
		}
		if errors.Is(err, pgx.ErrNoRows) {
			return store.ErrNotFound
		}
		return err
	})
	if err != nil {
		return store.Job{}, fmt.Errorf("postgres: job with key %q: %w", key, err)
	}
	return j, nil
}

// DueJobs implements store.JobStore.
func (s *Store) DueJobs(ctx context.Context, queue string, now time.Time, limit int) ([]store.Job, error) {
	return s.readJobs(ctx, "due jobs", jobDueSQL, queue, runAtNanos(now), store.JobFilterLimit(limit))
}

// LiveJobs implements store.JobStore.
func (s *Store) LiveJobs(ctx context.Context) ([]store.Job, error) {
	return s.readJobs(ctx, "live jobs", jobLiveSQL)
}

// Jobs implements store.JobStore.
func (s *Store) Jobs(ctx context.Context, f store.JobFilter) ([]store.Job, error) {
	st, n := string(f.State), store.JobFilterLimit(f.Limit)
	switch {
	case f.Queue != "" && st != "":
		return s.readJobs(ctx, "jobs", jobListQueueStateSQL, f.Queue, st, f.Kind, f.After, n)
	case f.Queue != "":
		return s.readJobs(ctx, "jobs", jobListQueueSQL, f.Queue, st, f.Kind, f.After, n)
	}
	return s.readJobs(ctx, "jobs", jobListSQL, f.Queue, st, f.Kind, f.After, n)
}

func (s *Store) readJobs(ctx context.Context, what, sql string, args ...any) ([]store.Job, error) {
	if s.isClosed() {
		return nil, ErrClosed
	}
	out, err := queryJobs(ctx, s.pool, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: %s: %w", what, err)
	}
	return out, nil
}

// JobCounts implements store.JobStore.
func (s *Store) JobCounts(ctx context.Context) (map[string]map[store.JobState]int, error) {
	if s.isClosed() {
		return nil, ErrClosed
	}
	rows, err := s.pool.Query(ctx, jobCountsSQL)
	if err != nil {
		return nil, fmt.Errorf("postgres: job counts: %w", err)
	}
	out := map[string]map[store.JobState]int{}
	var (
		q, st string
		n     int
	)
	if _, err := pgx.ForEachRow(rows, []any{&q, &st, &n}, func() error {
		if out[q] == nil {
			out[q] = map[store.JobState]int{}
		}
		out[q][store.JobState(st)] = n
		return nil
	}); err != nil {
		return nil, fmt.Errorf("postgres: job counts: %w", err)
	}
	return out, nil
}
