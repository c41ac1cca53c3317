package jobq

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/memstore"
	"github.com/ordolabs/ordo/internal/store/sqlite"
)

// stores are the stores the driver's tests run on.
var stores = []struct {
	name string
	open func(t *testing.T) store.JobStore
}{
	{"memstore", func(*testing.T) store.JobStore { return memstore.NewJobs() }},
	{"sqlite", func(t *testing.T) store.JobStore {
		s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "ordo.db"), sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}},
}

// turnUntil runs f on a goroutine and turns n (Inline) until f returns.
func turnUntil[T any](t *testing.T, n *Node, f func() T) T {
	t.Helper()
	ch := make(chan T, 1)
	go func() { ch <- f() }()
	for {
		select {
		case v := <-ch:
			return v
		default:
		}
		if err := n.Turn(context.Background()); err != nil {
			t.Fatal(err)
		}
		runtime.Gosched()
	}
}

type inserted struct {
	job     store.Job
	created bool
	err     error
}

func insertInline(t *testing.T, n *Node, p InsertParams) inserted {
	t.Helper()
	return turnUntil(t, n, func() inserted {
		j, c, err := n.Insert(context.Background(), p)
		return inserted{j, c, err}
	})
}

func openNode(t *testing.T, st store.JobStore, clk clock.Clock, cfg CoreConfig, workers map[string]Worker) *Node {
	t.Helper()
	n, err := New(Config{Store: st, Core: cfg, Clock: clk, Inline: true})
	if err != nil {
		t.Fatal(err)
	}
	for k, w := range workers {
		n.Register(k, w)
	}
	if err := n.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	return n
}

func storedJob(t *testing.T, st store.JobStore, id int64) store.Job {
	t.Helper()
	j, err := st.Job(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// TestNodeInline runs the driver's Loop by hand on a virtual clock over
// each store: a job done, one failing then done, one snoozed, one
// cancelled by its worker, refusals mapped to their sentinels.
func TestNodeInline(t *testing.T) {
	for _, sc := range stores {
		t.Run(sc.name, func(t *testing.T) {
			st := sc.open(t)
			clk := clock.NewVirtual(clock.Epoch)
			var flaky, snoozed atomic.Int32
			n := openNode(t, st, clk, CoreConfig{Queues: []QueueConfig{{Name: "q", Concurrency: 4, MaxWaiting: 3}}}, map[string]Worker{
				"ok": WorkerFunc(func(context.Context, store.Job) error { return nil }),
				"flaky": WorkerFunc(func(context.Context, store.Job) error {
					if flaky.Add(1) == 1 {
						return errors.New("first time fails")
					}
					return nil
				}),
				"snooze": WorkerFunc(func(context.Context, store.Job) error {
					if snoozed.Add(1) == 1 {
						return Snooze(time.Minute)
					}
					return nil
				}),
				"cancel": WorkerFunc(func(context.Context, store.Job) error { return Cancel(errors.New("not wanted")) }),
			})
			for id, kind := range map[int64]string{1: "ok", 2: "flaky", 3: "snooze", 4: "cancel"} {
				if r := insertInline(t, n, InsertParams{ID: id, Queue: "q", Kind: kind, Args: []byte(`{"n":1}`)}); r.err != nil || !r.created {
					t.Fatalf("insert %d: %+v", id, r)
				}
			}
			for range 3 { // the work's answers are stepped by the next turns
				if err := n.Turn(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			if j := storedJob(t, st, 1); j.State != store.JobCompleted || string(j.Args) != `{"n":1}` {
				t.Fatalf("job 1: %+v", j)
			}
			if j := storedJob(t, st, 2); j.State != store.JobRetryable || j.Errors[0].Error != "first time fails" {
				t.Fatalf("job 2: %+v", j)
			}
			if j := storedJob(t, st, 3); j.State != store.JobScheduled || j.Attempt != 0 {
				t.Fatalf("job 3: %+v", j)
			}
			if j := storedJob(t, st, 4); j.State != store.JobCancelled || j.Errors[0].Error != "not wanted" {
				t.Fatalf("job 4: %+v", j)
			}
			clk.Advance(time.Hour)
			for range 3 {
				if err := n.Turn(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			for _, id := range []int64{2, 3} {
				if j := storedJob(t, st, id); j.State != store.JobCompleted {
					t.Fatalf("job %d after an hour: %+v", id, j)
				}
			}
			for _, tc := range []struct {
				p   InsertParams
				err error
			}{
				{InsertParams{Queue: "nope", Kind: "ok"}, ErrUnknownQueue},
				{InsertParams{Queue: "q", Kind: "nope"}, ErrUnknownKind},
				{InsertParams{Queue: "q", Kind: "ok", MaxAttempts: -1}, ErrInvalid},
			} {
				if r := insertInline(t, n, tc.p); !errors.Is(r.err, tc.err) {
					t.Fatalf("insert %+v: %v, want %v", tc.p, r.err, tc.err)
				}
			}
			later := clk.Now().Add(time.Hour)
			for i := range 4 {
				r := insertInline(t, n, InsertParams{Queue: "q", Kind: "ok", RunAt: later})
				if i == 3 {
					if !errors.Is(r.err, ErrQueueFull) {
						t.Fatalf("insert beyond the cap: %v", r.err)
					}
				} else if r.err != nil {
					t.Fatalf("scheduled insert %d: %v", i, r.err)
				}
			}
		})
	}
}

// TestNodeTwoInserters: two nodes on one store insert one unique key; the
// second's core did not know the first's job, so its commit retires it
// (ErrRetired) and, rebuilt from the store, it answers the first's job.
func TestNodeTwoInserters(t *testing.T) {
	for _, sc := range stores {
		t.Run(sc.name, func(t *testing.T) {
			st := sc.open(t)
			clk := clock.NewVirtual(clock.Epoch)
			cfg := CoreConfig{Queues: []QueueConfig{{Name: "q"}}}
			block := make(chan struct{})
			workers := map[string]Worker{"k": WorkerFunc(func(ctx context.Context, _ store.Job) error { <-block; return nil })}
			a := openNode(t, st, clk, cfg, workers)
			b := openNode(t, st, clk, cfg, workers)
			defer close(block)
			if r := insertInline(t, a, InsertParams{ID: 1, Queue: "q", Kind: "k", UniqueKey: "u", RunAt: clk.Now().Add(time.Hour)}); !r.created {
				t.Fatalf("a's insert: %+v", r)
			}
			r := insertInline(t, b, InsertParams{ID: 2, Queue: "q", Kind: "k", UniqueKey: "u", RunAt: clk.Now().Add(time.Hour)})
			if !errors.Is(r.err, ErrRetired) {
				t.Fatalf("b's insert: %+v, want ErrRetired", r)
			}
			r = insertInline(t, b, InsertParams{ID: 2, Queue: "q", Kind: "k", UniqueKey: "u"})
			if r.err != nil || r.created || r.job.ID != 1 {
				t.Fatalf("b's insert again: %+v, want job 1", r)
			}
		})
	}
}

// TestNodeRescue: a job the store holds as running when the node opens
// (its node crashed) is rescued: retryable with ErrRescued, then run.
func TestNodeRescue(t *testing.T) {
	for _, sc := range stores {
		t.Run(sc.name, func(t *testing.T) {
			st := sc.open(t)
			clk := clock.NewVirtual(clock.Epoch)
			if _, err := st.ApplyJobs(context.Background(), store.JobBatch{Insert: []store.Job{{ID: 5, Queue: "q", Kind: "k",
				State: store.JobRunning, Attempt: 1, MaxAttempts: 3, RunAt: clk.Now(), CreatedAt: clk.Now(), UpdatedAt: clk.Now()}}}); err != nil {
				t.Fatal(err)
			}
			var ran atomic.Int32
			n := openNode(t, st, clk, CoreConfig{Queues: []QueueConfig{{Name: "q"}}},
				map[string]Worker{"k": WorkerFunc(func(context.Context, store.Job) error { ran.Add(1); return nil })})
			if err := n.Turn(context.Background()); err != nil {
				t.Fatal(err)
			}
			j := storedJob(t, st, 5)
			if j.State != store.JobRetryable || j.Errors[0].Error != ErrRescued.Error() {
				t.Fatalf("rescued job: %+v", j)
			}
			clk.Advance(time.Minute)
			for range 2 {
				if err := n.Turn(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			if j := storedJob(t, st, 5); j.State != store.JobCompleted || j.Attempt != 2 || ran.Load() != 1 {
				t.Fatalf("after the retry: %+v (ran %d)", j, ran.Load())
			}
		})
	}
}

// TestNodeRun runs the driver with its goroutines on the real clock: a
// periodic job and an inserted one both complete.
func TestNodeRun(t *testing.T) {
	st := memstore.NewJobs()
	done := make(chan int64, 16)
	n, err := New(Config{Store: st, Core: CoreConfig{
		Queues:   SMMQueues(),
		Periodic: []PeriodicJob{{Name: "mapping", Queue: QueueReplicaSetUpdate, Kind: "refresh", Every: time.Hour}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	w := WorkerFunc(func(_ context.Context, j store.Job) error { done <- j.ID; return nil })
	n.Register("refresh", w)
	n.Register("sync", w)
	if err := n.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- n.Run(ctx) }()
	j, created, err := n.Insert(ctx, InsertParams{Queue: QueueManualSync, Kind: "sync"})
	if err != nil || !created {
		t.Fatalf("insert: %v %v", created, err)
	}
	seen := map[int64]bool{}
	deadline := time.After(30 * time.Second)
	for len(seen) < 2 {
		select {
		case id := <-done:
			seen[id] = true
		case <-deadline:
			t.Fatalf("ran %v, want job %d and the periodic one", seen, j.ID)
		}
	}
	if !seen[j.ID] {
		t.Fatalf("ran %v, not job %d", seen, j.ID)
	}
	cancel()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

// failingJobs is a memstore whose writes and loads fail once fail is set.
type failingJobs struct {
	store.JobStore
	fail atomic.Bool
}

var errStoreDown = errors.New("store down")

func (s *failingJobs) ApplyJobs(ctx context.Context, b store.JobBatch) ([]store.JobInserted, error) {
	if s.fail.Load() {
		return nil, errStoreDown
	}
	return s.JobStore.ApplyJobs(ctx, b)
}

func (s *failingJobs) LiveJobs(ctx context.Context) ([]store.Job, error) {
	if s.fail.Load() {
		return nil, errStoreDown
	}
	return s.JobStore.LiveJobs(ctx)
}

// TestNodeRunLoopFails: a commit that fails and a rebuild that fails stop
// the loop; Run returns that error (its dispatcher and workers stopped)
// while its ctx is still live.
func TestNodeRunLoopFails(t *testing.T) {
	st := &failingJobs{JobStore: memstore.NewJobs()}
	n, err := New(Config{Store: st, Core: CoreConfig{Queues: []QueueConfig{{Name: "q"}}}})
	if err != nil {
		t.Fatal(err)
	}
	n.Register("k", WorkerFunc(func(context.Context, store.Job) error { return nil }))
	if err := n.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- n.Run(ctx) }()
	st.fail.Store(true)
	if _, _, err := n.Insert(ctx, InsertParams{Queue: "q", Kind: "k"}); !errors.Is(err, ErrRetired) {
		t.Fatalf("insert: %v, want ErrRetired", err)
	}
	select {
	case err := <-errc:
		if !errors.Is(err, errStoreDown) {
			t.Fatalf("Run: %v, want the store's error", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after its loop failed")
	}
}
