package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/writeq"
)

// The job queue's records (store.JobStore, issue 12), on the same database
// as the others.
//
// Schema (migrations/0007_jobs.sql): jobs, PRIMARY KEY id; a partial UNIQUE
// index on unique_key over the live states, so the database itself holds a
// key to one live job; partial indexes for the due jobs of a queue (queue,
// run_at, id) and the live jobs (id); (queue, state, id) for counts and
// lists; (unique_key, created_at, id) for a key's final jobs.
//
// The write path. ApplyJobs goes through the committer of write.go like
// every other engine's batch: one request, group-committed with the
// others, atomic and durable; a batch the store refuses (an unknown id, a
// second live holder of a key) fails alone and the group runs again
// without it.
//
// Invariants:
//   - an acknowledged ApplyJobs is committed; a failed one wrote nothing;
//   - updates run in order, then inserts in order; an insert whose ID is
//     stored, or whose unique key a live job holds (in the store or earlier
//     in the batch), is not added and answers the stored job;
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
	jobInsertSQL = `INSERT INTO jobs (` + jobCols + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	jobUpdateSQL = `UPDATE jobs SET queue = ?, kind = ?, args = ?, unique_key = ?, state = ?, attempt = ?,
		max_attempts = ?, run_at = ?, errors = ?, created_at = ?, updated_at = ?, finalized_at = ? WHERE id = ?`
	jobByIDSQL        = `SELECT ` + jobCols + ` FROM jobs WHERE id = ?`
	jobLiveByKeySQL   = `SELECT ` + jobCols + ` FROM jobs INDEXED BY jobs_unique_live WHERE unique_key = ? AND state IN ('available', 'scheduled', 'running', 'retryable')`
	jobLastByKeySQL   = `SELECT ` + jobCols + ` FROM jobs INDEXED BY jobs_unique_key WHERE unique_key = ? ORDER BY created_at DESC, id DESC LIMIT 1`
	jobDueSQL         = `SELECT ` + jobCols + ` FROM jobs INDEXED BY jobs_due WHERE queue = ? AND state IN ('available', 'scheduled', 'retryable') AND (state = 'available' OR run_at <= ?) ORDER BY run_at, id LIMIT ?`
	jobLiveSQL        = `SELECT ` + jobCols + ` FROM jobs INDEXED BY jobs_live WHERE state IN ('available', 'scheduled', 'running', 'retryable') ORDER BY id`
	jobCountsSQL      = `SELECT queue, state, COUNT(*) FROM jobs GROUP BY queue, state`
	jobListSQL        = `SELECT ` + jobCols + ` FROM jobs WHERE (? = '' OR queue = ?) AND (? = '' OR state = ?) AND (? = '' OR kind = ?) AND id > ? ORDER BY id LIMIT ?`
	jobListQueueSQL   = `SELECT ` + jobCols + ` FROM jobs WHERE queue = ? AND (? = '' OR state = ?) AND (? = '' OR kind = ?) AND id > ? ORDER BY id LIMIT ?`
	jobListQueueState = `SELECT ` + jobCols + ` FROM jobs WHERE queue = ? AND state = ? AND (? = '' OR kind = ?) AND id > ? ORDER BY id LIMIT ?`
)

// jobConn is what applyJobs needs of a connection or transaction.
type jobConn interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// ApplyJobs implements store.JobStore: b commits atomically (see the
// invariants above).
func (s *Store) ApplyJobs(ctx context.Context, b store.JobBatch) ([]store.JobInserted, error) {
	if err := b.Validate(); err != nil {
		return nil, fmt.Errorf("sqlite: apply jobs: %w", err)
	}
	if b.Empty() {
		return []store.JobInserted{}, ctx.Err()
	}
	r := &request{Req: writeq.NewReq(ctx, len(b.Insert)+len(b.Update)), jobs: &b}
	if err := s.q.Submit(ctx, r); err != nil {
		return nil, fmt.Errorf("sqlite: apply jobs: %w", err)
	}
	return r.jobsOut, nil
}

// applyJobs writes b on c, inside the caller's transaction.
func (s *Store) applyJobs(ctx context.Context, c jobConn, b *store.JobBatch) ([]store.JobInserted, error) {
	// Updates first: they touch only jobs the store holds, and one may
	// free a unique key that an insert of the same batch takes (a job
	// finished and its successor inserted in one turn).
	for i := range b.Update {
		j := &b.Update[i]
		args, err := jobArgs(j)
		if err != nil {
			return nil, err
		}
		res, err := c.ExecContext(ctx, jobUpdateSQL, append(args[1:], j.ID)...)
		if err != nil {
			if isUnique(err) {
				return nil, fmt.Errorf("sqlite: apply jobs: update %d: key %q: %w: %w", j.ID, j.UniqueKey, store.ErrUniqueLive, err)
			}
			return nil, fmt.Errorf("sqlite: apply jobs: update %d: %w", j.ID, err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return nil, fmt.Errorf("sqlite: apply jobs: update %d: %w", j.ID, err)
		} else if n == 0 {
			return nil, fmt.Errorf("sqlite: apply jobs: update %d: %w", j.ID, store.ErrNotFound)
		}
	}
	out := make([]store.JobInserted, 0, len(b.Insert))
	for i := range b.Insert {
		j := &b.Insert[i]
		old, err := scanJob(c.QueryRowContext(ctx, jobByIDSQL, j.ID))
		if err == nil {
			out = append(out, store.JobInserted{Job: old})
			continue
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("sqlite: apply jobs: insert %d: %w", j.ID, err)
		}
		if j.UniqueKey != "" && j.State.Live() {
			old, err := scanJob(c.QueryRowContext(ctx, jobLiveByKeySQL, j.UniqueKey))
			if err == nil {
				out = append(out, store.JobInserted{Job: old})
				continue
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return nil, fmt.Errorf("sqlite: apply jobs: insert %d: %w", j.ID, err)
			}
		}
		args, err := jobArgs(j)
		if err != nil {
			return nil, err
		}
		if _, err := c.ExecContext(ctx, jobInsertSQL, args...); err != nil {
			return nil, fmt.Errorf("sqlite: apply jobs: insert %d: %w", j.ID, err)
		}
		out = append(out, store.JobInserted{Job: store.NormJob(*j), Created: true})
	}
	return out, nil
}

// jobArgs are j's columns in jobCols order.
func jobArgs(j *store.Job) ([]any, error) {
	var errs any
	if len(j.Errors) > 0 {
		b, err := json.Marshal(j.Errors)
		if err != nil {
			return nil, fmt.Errorf("sqlite: apply jobs: job %d: errors: %w", j.ID, err)
		}
		errs = b
	}
	return []any{j.ID, j.Queue, j.Kind, blob(j.Args), nullString(j.UniqueKey), string(j.State), j.Attempt,
		j.MaxAttempts, runAtNanos(j.RunAt), errs, nanos(j.CreatedAt), nanos(j.UpdatedAt), nanos(j.FinalizedAt)}, nil
}

// runAtNanos stores run_at, never NULL: 0 for a zero time.
func runAtNanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func scanJob(row scanner) (store.Job, error) {
	var (
		j                           store.Job
		args, errs                  []byte
		key                         sql.NullString
		state                       string
		runAt                       int64
		created, updated, finalized sql.NullInt64
	)
	if err := row.Scan(&j.ID, &j.Queue, &j.Kind, &args, &key, &state, &j.Attempt, &j.MaxAttempts, &runAt,
		&errs, &created, &updated, &finalized); err != nil {
		return store.Job{}, err
	}
	j.Args = rawOrNil(args)
	j.UniqueKey = key.String
	j.State = store.JobState(state)
	if runAt != 0 {
		j.RunAt = time.Unix(0, runAt).UTC()
	}
	if len(errs) > 0 {
		if err := json.Unmarshal(errs, &j.Errors); err != nil {
			return store.Job{}, fmt.Errorf("job %d: errors: %w", j.ID, err)
		}
		for i := range j.Errors {
			j.Errors[i].At = store.UTCOrZero(j.Errors[i].At)
		}
	}
	j.CreatedAt, j.UpdatedAt, j.FinalizedAt = fromNanos(created), fromNanos(updated), fromNanos(finalized)
	return j, nil
}

// Job implements store.JobStore.
func (s *Store) Job(ctx context.Context, id int64) (store.Job, error) {
	j, err := scanJob(s.rdb.QueryRowContext(ctx, jobByIDSQL, id))
	if errors.Is(err, sql.ErrNoRows) {
		return store.Job{}, fmt.Errorf("sqlite: job %d: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return store.Job{}, fmt.Errorf("sqlite: job %d: %w", id, err)
	}
	return j, nil
}

// JobByUniqueKey implements store.JobStore. Its two reads run in one read
// transaction.
func (s *Store) JobByUniqueKey(ctx context.Context, key string) (store.Job, error) {
	if key == "" {
		return store.Job{}, fmt.Errorf("sqlite: job with an empty key: %w", store.ErrNotFound)
	}
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return store.Job{}, fmt.Errorf("sqlite: job with key %q: %w", key, err)
	}
	defer func() { _ = tx.Rollback() }()
	j, err := scanJob(tx.QueryRowContext(ctx, jobLiveByKeySQL, key))
	if errors.Is(err, sql.ErrNoRows) {
		j, err = scanJob(tx.QueryRowContext(ctx, jobLastByKeySQL, key))
	}
	if errors.Is(err, sql.ErrNoRows) {
		return store.Job{}, fmt.Errorf("sqlite: job with key %q: %w", key, store.ErrNotFound)
	}
	if err != nil {
		return store.Job{}, fmt.Errorf("sqlite: job with key %q: %w", key, err)
	}
	return j, nil
}

// DueJobs implements store.JobStore.
func (s *Store) DueJobs(ctx context.Context, queue string, now time.Time, limit int) ([]store.Job, error) {
	return s.queryJobs(ctx, "due jobs", jobDueSQL, queue, runAtNanos(now), store.JobFilterLimit(limit))
}

// LiveJobs implements store.JobStore.
func (s *Store) LiveJobs(ctx context.Context) ([]store.Job, error) {
	return s.queryJobs(ctx, "live jobs", jobLiveSQL)
}

// Jobs implements store.JobStore.
func (s *Store) Jobs(ctx context.Context, f store.JobFilter) ([]store.Job, error) {
	st, n := string(f.State), store.JobFilterLimit(f.Limit)
	switch {
	case f.Queue != "" && st != "":
		return s.queryJobs(ctx, "jobs", jobListQueueState, f.Queue, st, f.Kind, f.Kind, f.After, n)
	case f.Queue != "":
		return s.queryJobs(ctx, "jobs", jobListQueueSQL, f.Queue, st, st, f.Kind, f.Kind, f.After, n)
	}
	return s.queryJobs(ctx, "jobs", jobListSQL, f.Queue, f.Queue, st, st, f.Kind, f.Kind, f.After, n)
}

func (s *Store) queryJobs(ctx context.Context, what, query string, args ...any) ([]store.Job, error) {
	rows, err := s.rdb.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %s: %w", what, err)
	}
	defer func() { _ = rows.Close() }()
	out := []store.Job{}
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: %s: %w", what, err)
		}
		out = append(out, j)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: %s: %w", what, err)
	}
	return out, nil
}

// JobCounts implements store.JobStore.
func (s *Store) JobCounts(ctx context.Context) (map[string]map[store.JobState]int, error) {
	rows, err := s.rdb.QueryContext(ctx, jobCountsSQL)
	if err != nil {
		return nil, fmt.Errorf("sqlite: job counts: %w", err)
	}
	defer func() { _ = rows.Close() }()
	out := map[string]map[store.JobState]int{}
	for rows.Next() {
		var (
			q, st string
			n     int
		)
		if err := rows.Scan(&q, &st, &n); err != nil {
			return nil, fmt.Errorf("sqlite: job counts: %w", err)
		}
		if out[q] == nil {
			out[q] = map[store.JobState]int{}
		}
		out[q][store.JobState(st)] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: job counts: %w", err)
	}
	return out, nil
}
