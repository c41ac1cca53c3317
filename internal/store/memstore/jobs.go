package memstore

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

// Jobs is an in-memory store.JobStore (the job queue's durable state,
// issue 12), for simulations and tests. The zero value is not ready: use
// NewJobs. It is safe for concurrent use.
//
// Records are immutable once stored: a write replaces the record (copied
// in), and a read's copy is the caller's.
type Jobs struct {
	mu   sync.RWMutex
	jobs map[int64]store.Job
	live map[string]int64 // unique key → ID of the live job holding it
}

var _ store.JobStore = (*Jobs)(nil)

// NewJobs returns an empty store.
func NewJobs() *Jobs {
	return &Jobs{jobs: map[int64]store.Job{}, live: map[string]int64{}}
}

func copyJob(j store.Job) store.Job {
	j.Args = slices.Clone(j.Args)
	if len(j.Args) == 0 {
		j.Args = nil
	}
	j.Errors = slices.Clone(j.Errors)
	if len(j.Errors) == 0 {
		j.Errors = nil
	}
	for i := range j.Errors {
		j.Errors[i].At = utc(j.Errors[i].At)
	}
	j.RunAt, j.CreatedAt, j.UpdatedAt, j.FinalizedAt = utc(j.RunAt), utc(j.CreatedAt), utc(j.UpdatedAt), utc(j.FinalizedAt)
	return j
}

func utc(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC()
}

// ApplyJobs implements store.JobStore: all of b or none of it.
func (s *Jobs) ApplyJobs(ctx context.Context, b store.JobBatch) ([]store.JobInserted, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := b.Validate(); err != nil {
		return nil, fmt.Errorf("memstore: apply jobs: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// Work on copies of the maps touched, so a refused batch writes nothing.
	jobs := map[int64]store.Job{}
	live := map[string]int64{}
	get := func(id int64) (store.Job, bool) {
		if j, ok := jobs[id]; ok {
			return j, true
		}
		j, ok := s.jobs[id]
		return j, ok
	}
	holder := func(key string) (int64, bool) {
		if id, ok := live[key]; ok {
			return id, id != 0
		}
		id, ok := s.live[key]
		return id, ok
	}
	put := func(j store.Job) error {
		old, had := get(j.ID)
		if had && old.UniqueKey != "" && old.State.Live() {
			if id, _ := holder(old.UniqueKey); id == j.ID {
				live[old.UniqueKey] = 0
			}
		}
		if j.UniqueKey != "" && j.State.Live() {
			if id, ok := holder(j.UniqueKey); ok && id != j.ID {
				return fmt.Errorf("memstore: apply jobs: job %d: key %q: %w", j.ID, j.UniqueKey, store.ErrUniqueLive)
			}
			live[j.UniqueKey] = j.ID
		}
		jobs[j.ID] = j
		return nil
	}
	// Updates first (see store.JobBatch).
	for _, j := range b.Update {
		if _, ok := get(j.ID); !ok {
			return nil, fmt.Errorf("memstore: apply jobs: update job %d: %w", j.ID, store.ErrNotFound)
		}
		if err := put(copyJob(j)); err != nil {
			return nil, err
		}
	}
	out := make([]store.JobInserted, 0, len(b.Insert))
	for _, j := range b.Insert {
		if old, ok := get(j.ID); ok {
			out = append(out, store.JobInserted{Job: copyJob(old)})
			continue
		}
		if j.UniqueKey != "" && j.State.Live() {
			if id, ok := holder(j.UniqueKey); ok {
				old, _ := get(id)
				out = append(out, store.JobInserted{Job: copyJob(old)})
				continue
			}
		}
		j = copyJob(j)
		if err := put(j); err != nil {
			return nil, err
		}
		out = append(out, store.JobInserted{Job: copyJob(j), Created: true})
	}
	maps.Copy(s.jobs, jobs)
	for k, id := range live {
		if id == 0 {
			delete(s.live, k)
		} else {
			s.live[k] = id
		}
	}
	return out, nil
}

// Job implements store.JobStore.
func (s *Jobs) Job(ctx context.Context, id int64) (store.Job, error) {
	if err := ctx.Err(); err != nil {
		return store.Job{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	j, ok := s.jobs[id]
	if !ok {
		return store.Job{}, fmt.Errorf("memstore: job %d: %w", id, store.ErrNotFound)
	}
	return copyJob(j), nil
}

// JobByUniqueKey implements store.JobStore.
func (s *Jobs) JobByUniqueKey(ctx context.Context, key string) (store.Job, error) {
	if err := ctx.Err(); err != nil {
		return store.Job{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if id, ok := s.live[key]; ok && key != "" {
		return copyJob(s.jobs[id]), nil
	}
	var best store.Job
	found := false
	for _, j := range s.jobs {
		if key == "" || j.UniqueKey != key {
			continue
		}
		if !found || j.CreatedAt.After(best.CreatedAt) || (j.CreatedAt.Equal(best.CreatedAt) && j.ID > best.ID) {
			best, found = j, true
		}
	}
	if !found {
		return store.Job{}, fmt.Errorf("memstore: job with key %q: %w", key, store.ErrNotFound)
	}
	return copyJob(best), nil
}

// DueJobs implements store.JobStore.
func (s *Jobs) DueJobs(ctx context.Context, queue string, now time.Time, limit int) ([]store.Job, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []store.Job
	for _, j := range s.jobs {
		if j.Queue != queue {
			continue
		}
		if j.State == store.JobAvailable || ((j.State == store.JobScheduled || j.State == store.JobRetryable) && !j.RunAt.After(now)) {
			out = append(out, j)
		}
	}
	slices.SortFunc(out, func(a, b store.Job) int {
		return cmp.Or(a.RunAt.Compare(b.RunAt), cmp.Compare(a.ID, b.ID))
	})
	return copyJobs(out[:min(len(out), store.JobFilterLimit(limit))]), nil
}

// LiveJobs implements store.JobStore.
func (s *Jobs) LiveJobs(ctx context.Context) ([]store.Job, error) {
	return s.list(ctx, func(j *store.Job) bool { return j.State.Live() }, 0, -1)
}

// JobCounts implements store.JobStore.
func (s *Jobs) JobCounts(ctx context.Context) (map[string]map[store.JobState]int, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := map[string]map[store.JobState]int{}
	for _, j := range s.jobs {
		if out[j.Queue] == nil {
			out[j.Queue] = map[store.JobState]int{}
		}
		out[j.Queue][j.State]++
	}
	return out, nil
}

// Jobs implements store.JobStore.
func (s *Jobs) Jobs(ctx context.Context, f store.JobFilter) ([]store.Job, error) {
	return s.list(ctx, func(j *store.Job) bool {
		return (f.Queue == "" || j.Queue == f.Queue) && (f.State == "" || j.State == f.State) &&
			(f.Kind == "" || j.Kind == f.Kind)
	}, f.After, store.JobFilterLimit(f.Limit))
}

// list returns the jobs keep accepts with an ID above after, in ID order,
// at most limit of them (all for a negative limit).
func (s *Jobs) list(ctx context.Context, keep func(*store.Job) bool, after int64, limit int) ([]store.Job, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := []store.Job{}
	for _, j := range s.jobs {
		if j.ID > after && keep(&j) {
			out = append(out, j)
		}
	}
	slices.SortFunc(out, func(a, b store.Job) int { return cmp.Compare(a.ID, b.ID) })
	if limit >= 0 && len(out) > limit {
		out = out[:limit]
	}
	return copyJobs(out), nil
}

func copyJobs(js []store.Job) []store.Job {
	out := make([]store.Job, len(js))
	for i, j := range js {
		out[i] = copyJob(j)
	}
	return out
}
