package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

// JobsOpenFunc opens an empty job store. If the value it returns
// implements io.Closer, the suite closes it when the test ends.
type JobsOpenFunc func(t *testing.T) store.JobStore

// RunJobs runs the conformance suite of store.JobStore against the stores
// that open returns. Subtests run in parallel, each with its own store.
//
// Beyond the interface's comments, it pins down:
//   - every field round-trips: times to the nanosecond in UTC (a zero
//     FinalizedAt comes back zero), Args as the same bytes (empty: nil),
//     Errors with their times;
//   - an insert whose ID is stored, or whose unique key a live job holds
//     (stored or earlier in the batch), is not added and answers the stored
//     job; a final job's key may be used again;
//   - an update of an unknown ID fails with store.ErrNotFound and one that
//     makes a second live job hold a key with store.ErrUniqueLive, and
//     either writes nothing of its batch;
//   - a job that no store accepts (ID below 1, empty queue or kind, unknown
//     state) is refused and writes nothing;
//   - DueJobs orders by RunAt then ID and leaves out running, final and not
//     yet due jobs and other queues; JobCounts counts per queue and state.
func RunJobs(t *testing.T, open JobsOpenFunc) {
	for _, tc := range []struct {
		name string
		f    func(*testing.T, store.JobStore)
	}{
		{"RoundTrip", jobsRoundTrip},
		{"InsertIdempotent", jobsInsertIdempotent},
		{"UniqueLive", jobsUniqueLive},
		{"UpdateRefused", jobsUpdateRefused},
		{"Invalid", jobsInvalid},
		{"Due", jobsDue},
		{"CountsAndList", jobsCountsAndList},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := open(t)
			if c, ok := s.(io.Closer); ok {
				t.Cleanup(func() { _ = c.Close() })
			}
			tc.f(t, s)
		})
	}
}

// jobAt is the suite's epoch.
var jobAt = time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.UTC)

func newJob(id int64, queue, key string, state store.JobState, runAt time.Time) store.Job {
	return store.Job{ID: id, Queue: queue, Kind: "k", UniqueKey: key, State: state, MaxAttempts: 3,
		RunAt: runAt, CreatedAt: jobAt.Add(time.Duration(id)), UpdatedAt: jobAt.Add(time.Duration(id))}
}

func applyJobs(t *testing.T, s store.JobStore, b store.JobBatch) []store.JobInserted {
	t.Helper()
	out, err := s.ApplyJobs(context.Background(), b)
	if err != nil {
		t.Fatalf("ApplyJobs: %v", err)
	}
	if len(out) != len(b.Insert) {
		t.Fatalf("ApplyJobs answered %d inserts, want %d", len(out), len(b.Insert))
	}
	return out
}

func getJob(t *testing.T, s store.JobStore, id int64) store.Job {
	t.Helper()
	j, err := s.Job(context.Background(), id)
	if err != nil {
		t.Fatalf("Job(%d): %v", id, err)
	}
	return j
}

func sameJob(t *testing.T, what string, got, want store.Job) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(want)
		t.Fatalf("%s:\n got %s\nwant %s", what, gb, wb)
	}
}

func jobsRoundTrip(t *testing.T, s store.JobStore) {
	ctx := context.Background()
	loc := time.FixedZone("x", 3600)
	j := store.Job{
		ID: 1<<62 + 5, Queue: "q", Kind: "sync", Args: json.RawMessage(`{"a":[1,2]}`), UniqueKey: "u1",
		State: store.JobRetryable, Attempt: 2, MaxAttempts: 7, RunAt: jobAt.Add(time.Minute).In(loc),
		Errors:    []store.JobError{{Attempt: 1, At: jobAt.In(loc), Error: "boom"}, {Attempt: 2, At: jobAt.Add(time.Second), Error: "again"}},
		CreatedAt: jobAt, UpdatedAt: jobAt.Add(time.Second),
	}
	want := j
	want.RunAt = want.RunAt.UTC()
	want.Errors = []store.JobError{{Attempt: 1, At: jobAt, Error: "boom"}, {Attempt: 2, At: jobAt.Add(time.Second), Error: "again"}}
	out := applyJobs(t, s, store.JobBatch{Insert: []store.Job{j}})
	if !out[0].Created {
		t.Fatal("insert of a new job: Created false")
	}
	sameJob(t, "insert's answer", out[0].Job, want)
	sameJob(t, "Job", getJob(t, s, j.ID), want)
	// An update replaces every field.
	j2 := store.Job{ID: j.ID, Queue: "q2", Kind: "other", State: store.JobCompleted, Attempt: 3, MaxAttempts: 1,
		CreatedAt: jobAt, UpdatedAt: jobAt.Add(2 * time.Second), FinalizedAt: jobAt.Add(3 * time.Second)}
	applyJobs(t, s, store.JobBatch{Update: []store.Job{j2}})
	sameJob(t, "Job after update", getJob(t, s, j.ID), j2)
	if _, err := s.Job(ctx, 99); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Job(unknown): %v, want ErrNotFound", err)
	}
	if _, err := s.JobByUniqueKey(ctx, "none"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("JobByUniqueKey(unknown): %v, want ErrNotFound", err)
	}
}

func jobsInsertIdempotent(t *testing.T, s store.JobStore) {
	a := newJob(1, "q", "", store.JobAvailable, jobAt)
	applyJobs(t, s, store.JobBatch{Insert: []store.Job{a}})
	b := newJob(1, "other", "", store.JobScheduled, jobAt.Add(time.Hour))
	out := applyJobs(t, s, store.JobBatch{Insert: []store.Job{b, b}})
	for i, r := range out {
		if r.Created {
			t.Fatalf("insert %d of a stored ID: Created", i)
		}
		sameJob(t, "answer to a stored ID", r.Job, a)
	}
	sameJob(t, "Job", getJob(t, s, 1), a)
}

func jobsUniqueLive(t *testing.T, s store.JobStore) {
	ctx := context.Background()
	a := newJob(1, "q", "key", store.JobAvailable, jobAt)
	b := newJob(2, "q", "key", store.JobAvailable, jobAt)
	out := applyJobs(t, s, store.JobBatch{Insert: []store.Job{a, b}})
	if !out[0].Created || out[1].Created || out[1].Job.ID != 1 {
		t.Fatalf("two inserts of one key in a batch: %+v", out)
	}
	out = applyJobs(t, s, store.JobBatch{Insert: []store.Job{b}})
	if out[0].Created || out[0].Job.ID != 1 {
		t.Fatalf("insert of a live key: %+v", out)
	}
	if _, err := s.Job(ctx, 2); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the refused insert was stored: %v", err)
	}
	got, err := s.JobByUniqueKey(ctx, "key")
	if err != nil || got.ID != 1 {
		t.Fatalf("JobByUniqueKey: %d, %v", got.ID, err)
	}
	// Finished, the key is free again; the live job wins the key's read.
	a.State, a.FinalizedAt = store.JobCompleted, jobAt.Add(time.Second)
	applyJobs(t, s, store.JobBatch{Update: []store.Job{a}})
	if got, err = s.JobByUniqueKey(ctx, "key"); err != nil || got.ID != 1 {
		t.Fatalf("JobByUniqueKey of a finished key: %d, %v", got.ID, err)
	}
	out = applyJobs(t, s, store.JobBatch{Insert: []store.Job{b}})
	if !out[0].Created {
		t.Fatalf("insert of a key no live job holds: %+v", out)
	}
	if got, err = s.JobByUniqueKey(ctx, "key"); err != nil || got.ID != 2 {
		t.Fatalf("JobByUniqueKey with a live holder: %d, %v", got.ID, err)
	}
	// A final job's insert does not hold the key.
	c := newJob(3, "q", "key", store.JobCancelled, jobAt)
	if out = applyJobs(t, s, store.JobBatch{Insert: []store.Job{c}}); !out[0].Created {
		t.Fatalf("insert of a final job with a held key: %+v", out)
	}
	// Finishing one job and handing its key to another in one batch.
	b.State = store.JobDead
	d := newJob(4, "q", "key", store.JobScheduled, jobAt)
	applyJobs(t, s, store.JobBatch{Update: []store.Job{b}})
	if out = applyJobs(t, s, store.JobBatch{Insert: []store.Job{d}}); !out[0].Created {
		t.Fatalf("insert after the holder died: %+v", out)
	}
	// In ONE batch: the update that ends the holder comes before the
	// insert that takes its key (the job queue's core does both in one
	// turn: a job completed and its successor inserted).
	d.State, d.FinalizedAt = store.JobCompleted, jobAt.Add(2*time.Second)
	e := newJob(5, "q", "key", store.JobAvailable, jobAt)
	if out = applyJobs(t, s, store.JobBatch{Insert: []store.Job{e}, Update: []store.Job{d}}); !out[0].Created || out[0].Job.ID != 5 {
		t.Fatalf("insert of a key its holder frees in the same batch: %+v", out)
	}
	if got, err = s.JobByUniqueKey(ctx, "key"); err != nil || got.ID != 5 {
		t.Fatalf("JobByUniqueKey after the hand-over: %d, %v", got.ID, err)
	}
}

func jobsUpdateRefused(t *testing.T, s store.JobStore) {
	ctx := context.Background()
	a := newJob(1, "q", "key", store.JobRunning, jobAt)
	b := newJob(2, "q", "", store.JobCompleted, jobAt)
	applyJobs(t, s, store.JobBatch{Insert: []store.Job{a, b}})
	c := newJob(3, "q", "", store.JobAvailable, jobAt)
	a2 := a
	a2.State = store.JobCompleted
	// An unknown ID fails the batch: nothing of it is written.
	_, err := s.ApplyJobs(ctx, store.JobBatch{Insert: []store.Job{c}, Update: []store.Job{a2, newJob(9, "q", "", store.JobAvailable, jobAt)}})
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("update of an unknown id: %v, want ErrNotFound", err)
	}
	// A second live holder of a key fails the batch.
	b2 := b
	b2.UniqueKey, b2.State = "key", store.JobRetryable
	_, err = s.ApplyJobs(ctx, store.JobBatch{Insert: []store.Job{c}, Update: []store.Job{b2}})
	if !errors.Is(err, store.ErrUniqueLive) {
		t.Fatalf("a second live holder: %v, want ErrUniqueLive", err)
	}
	sameJob(t, "job 1 after refused batches", getJob(t, s, 1), a)
	sameJob(t, "job 2 after refused batches", getJob(t, s, 2), b)
	if _, err := s.Job(ctx, 3); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("insert of a refused batch was stored: %v", err)
	}
}

func jobsInvalid(t *testing.T, s store.JobStore) {
	ctx := context.Background()
	ok := newJob(1, "q", "", store.JobAvailable, jobAt)
	for _, tc := range []struct {
		name string
		mod  func(*store.Job)
	}{
		{"id 0", func(j *store.Job) { j.ID = 0 }},
		{"empty queue", func(j *store.Job) { j.Queue = "" }},
		{"empty kind", func(j *store.Job) { j.Kind = "" }},
		{"bad state", func(j *store.Job) { j.State = "pending" }},
		{"negative attempt", func(j *store.Job) { j.Attempt = -1 }},
	} {
		bad := newJob(2, "q", "", store.JobAvailable, jobAt)
		tc.mod(&bad)
		if _, err := s.ApplyJobs(ctx, store.JobBatch{Insert: []store.Job{ok, bad}}); err == nil {
			t.Fatalf("%s: accepted", tc.name)
		}
		if _, err := s.ApplyJobs(ctx, store.JobBatch{Insert: []store.Job{ok}, Update: []store.Job{bad}}); err == nil {
			t.Fatalf("%s (update): accepted", tc.name)
		}
		if _, err := s.Job(ctx, 1); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("%s: the batch's valid insert was stored: %v", tc.name, err)
		}
	}
}

func jobsDue(t *testing.T, s store.JobStore) {
	ctx := context.Background()
	now := jobAt.Add(time.Hour)
	applyJobs(t, s, store.JobBatch{Insert: []store.Job{
		newJob(1, "q", "", store.JobAvailable, now.Add(-time.Minute)),
		newJob(2, "q", "", store.JobScheduled, now),                     // due exactly now
		newJob(3, "q", "", store.JobRetryable, now.Add(-2*time.Minute)), // due earliest
		newJob(4, "q", "", store.JobScheduled, now.Add(time.Nanosecond)),
		newJob(5, "q", "", store.JobRunning, now.Add(-time.Hour)),
		newJob(6, "q", "", store.JobCompleted, now.Add(-time.Hour)),
		newJob(7, "other", "", store.JobAvailable, now.Add(-time.Hour)),
		newJob(8, "q", "", store.JobAvailable, now.Add(-time.Minute)), // ties with 1: after it
	}})
	ids := func(js []store.Job) []int64 {
		out := []int64{}
		for _, j := range js {
			out = append(out, j.ID)
		}
		return out
	}
	got, err := s.DueJobs(ctx, "q", now, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{3, 1, 8, 2}; !reflect.DeepEqual(ids(got), want) {
		t.Fatalf("DueJobs = %v, want %v", ids(got), want)
	}
	if got, _ = s.DueJobs(ctx, "q", now, 2); !reflect.DeepEqual(ids(got), []int64{3, 1}) {
		t.Fatalf("DueJobs limit 2 = %v", ids(got))
	}
	live, err := s.LiveJobs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{1, 2, 3, 4, 5, 7, 8}; !reflect.DeepEqual(ids(live), want) {
		t.Fatalf("LiveJobs = %v, want %v", ids(live), want)
	}
}

func jobsCountsAndList(t *testing.T, s store.JobStore) {
	ctx := context.Background()
	var ins []store.Job
	for i := int64(1); i <= 12; i++ {
		q, st := "a", store.JobAvailable
		if i%3 == 0 {
			q = "b"
		}
		if i%4 == 0 {
			st = store.JobDead
		}
		j := newJob(i, q, "", st, jobAt)
		if i%2 == 0 {
			j.Kind = "even"
		}
		ins = append(ins, j)
	}
	applyJobs(t, s, store.JobBatch{Insert: ins})
	counts, err := s.JobCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[store.JobState]int{
		"a": {store.JobAvailable: 6, store.JobDead: 2},
		"b": {store.JobAvailable: 3, store.JobDead: 1},
	}
	if !reflect.DeepEqual(counts, want) {
		t.Fatalf("JobCounts = %v, want %v", counts, want)
	}
	for _, tc := range []struct {
		f    store.JobFilter
		want []int64
	}{
		{store.JobFilter{}, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}},
		{store.JobFilter{Queue: "b"}, []int64{3, 6, 9, 12}},
		{store.JobFilter{State: store.JobDead}, []int64{4, 8, 12}},
		{store.JobFilter{Queue: "a", State: store.JobDead}, []int64{4, 8}},
		{store.JobFilter{Kind: "even", After: 4, Limit: 2}, []int64{6, 8}},
		{store.JobFilter{Queue: "b", Kind: "even"}, []int64{6, 12}},
		{store.JobFilter{Queue: "a", State: store.JobAvailable, Kind: "k"}, []int64{1, 5, 7, 11}},
	} {
		got, err := s.Jobs(ctx, tc.f)
		if err != nil {
			t.Fatal(err)
		}
		ids := []int64{}
		for _, j := range got {
			ids = append(ids, j.ID)
		}
		if !reflect.DeepEqual(ids, tc.want) {
			t.Fatalf("Jobs(%+v) = %v, want %v", tc.f, ids, tc.want)
		}
	}
}
