package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestBurndown runs a small burndown on each store: every intent ends DONE
// and the line names the store and the durability it ran with (the tests'
// throwaway PostgreSQL runs without fsync: pgcluster; a server named by
// ORDO_TEST_POSTGRES runs as configured, on as a rule).
func TestBurndown(t *testing.T) {
	pgDurability := "synchronous_commit=off fsync=off"
	if os.Getenv(pgtest.EnvURL) != "" {
		pgDurability = "durability synchronous_commit="
	}
	for _, tc := range []struct {
		store      string
		nodes      int
		durability string
	}{
		{StoreSQLite, 1, "synchronous=FULL"},
		{StorePostgres, 1, pgDurability},
		// Two nodes on one database, the queues and senders split: each
		// node works only its own, and every intent still ends DONE.
		{StorePostgres, 2, pgDurability},
	} {
		t.Run(fmt.Sprintf("%s/nodes=%d", tc.store, tc.nodes), func(t *testing.T) {
			o := BurndownOptions{Store: tc.store, Intents: 600, Queues: 20, Batch: 100, Dir: t.TempDir(), Nodes: tc.nodes}
			if tc.store == StorePostgres {
				o.Postgres = pgtest.URL(t)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			r, err := Burndown(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			if r.Failed != 0 || r.Insert <= 0 || r.Work <= 0 || r.Whole <= 0 || r.Blocks == 0 {
				t.Fatalf("unexpected result: %s", r)
			}
			line := r.String()
			for _, want := range []string{"store=" + tc.store, "N=600", "Q=20", fmt.Sprintf("nodes=%d", tc.nodes), tc.durability} {
				if !strings.Contains(line, want) {
					t.Errorf("line %q lacks %q", line, want)
				}
			}
		})
	}
}

// A second burndown on the same store is refused (its idempotency keys
// would meet the first run's, and it would wait for intents never created).
func TestBurndownRefusesAUsedStore(t *testing.T) {
	dir := t.TempDir()
	o := BurndownOptions{Intents: 50, Queues: 5, Batch: 10, Dir: dir}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := Burndown(ctx, o); err != nil {
		t.Fatal(err)
	}
	if _, err := Burndown(ctx, o); !errors.Is(err, ErrNotEmpty) || !strings.Contains(err.Error(), "50 DONE") {
		t.Fatalf("second burndown on %s: %v, want ErrNotEmpty naming 50 DONE", dir, err)
	}
}

// TestBurndownOptions refuses an unknown store, and several nodes on
// SQLite (one file, one writer).
func TestBurndownOptions(t *testing.T) {
	t.Parallel()
	for _, o := range []BurndownOptions{{Store: "mysql"}, {Store: StoreSQLite, Nodes: 2}} {
		if _, err := Burndown(context.Background(), o); err == nil {
			t.Errorf("%+v: want an error", o)
		}
	}
}

// BenchmarkBurndown runs the burndown on SQLite (N=20,000, Q=1,000), for a
// CPU profile of the engine's write path:
// go test -run '^$' -bench Burndown -benchtime 1x -cpuprofile cpu.out ./internal/bench/
func BenchmarkBurndown(b *testing.B) {
	for b.Loop() {
		r, err := Burndown(context.Background(), BurndownOptions{Intents: 20_000, Queues: 1000})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(r.Whole, "intents/s")
	}
}

// recordingStore keeps what a burndown wrote: its intake and its batches.
type recordingStore struct {
	store.Store
	mu      sync.Mutex
	intake  []store.NewTransaction
	batches []store.Batch
}

func (r *recordingStore) Enqueue(ctx context.Context, txs []store.NewTransaction) ([]store.EnqueueResult, error) {
	r.mu.Lock()
	r.intake = append(r.intake, txs...)
	r.mu.Unlock()
	return r.Store.Enqueue(ctx, txs)
}

func (r *recordingStore) Apply(ctx context.Context, b store.Batch) error {
	r.mu.Lock()
	r.batches = append(r.batches, b)
	r.mu.Unlock()
	return r.Store.Apply(ctx, b)
}

// BenchmarkBurndownApply replays the batches of a burndown's work phase
// (N=20,000, Q=1,000: the node's own batches, recorded once) on a fresh
// store holding the same intents, timing Apply alone: the store's write
// path without the node around it, on a machine others share.
//
//	go test -run '^$' -bench BurndownApply -benchtime 1x -count 5 ./internal/bench/
func BenchmarkBurndownApply(b *testing.B) {
	ctx := context.Background()
	var rec *recordingStore
	if _, err := Burndown(ctx, BurndownOptions{Intents: 20_000, Queues: 1000, Dir: b.TempDir(), wrap: func(s store.Store) store.Store {
		rec = &recordingStore{Store: s}
		return rec
	}}); err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{StoreSQLite, StorePostgres} {
		b.Run(name, func(b *testing.B) {
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				o := BurndownOptions{Store: name, Dir: b.TempDir()}
				if name == StorePostgres {
					o.Postgres = pgtest.URL(b)
				}
				st, _, _, closeStore, err := openBurndownStore(ctx, o)
				if err != nil {
					b.Fatal(err)
				}
				for i := 0; i < len(rec.intake); i += 1000 {
					if _, err := st.Enqueue(ctx, rec.intake[i:min(i+1000, len(rec.intake))]); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				cpu0 := cpuTime()
				for _, bt := range rec.batches {
					if err := st.Apply(ctx, bt); err != nil {
						b.Fatal(err)
					}
				}
				cpu += cpuTime() - cpu0
				b.StopTimer()
				if err := closeStore(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(len(rec.intake))/b.Elapsed().Seconds()*float64(b.N), "intents/s")
			// This process's CPU (the store's statements; on PostgreSQL the
			// server's CPU is not in it): steadier than wall time on a
			// shared machine.
			b.ReportMetric(float64(cpu.Microseconds())/float64(len(rec.intake))/float64(b.N), "cpu-µs/intent")
		})
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
