package bench

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/testkit/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestBurndown runs a small burndown on each store: every intent ends DONE
// and the line names the store and its durability.
func TestBurndown(t *testing.T) {
	for _, tc := range []struct {
		store      string
		durability string
	}{
		{StoreSQLite, "synchronous=FULL"},
		{StorePostgres, "synchronous_commit=on fsync=on"},
	} {
		t.Run(tc.store, func(t *testing.T) {
			o := BurndownOptions{Store: tc.store, Intents: 600, Queues: 20, Batch: 100, Dir: t.TempDir()}
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
			for _, want := range []string{"store=" + tc.store, "N=600", "Q=20", tc.durability} {
				if !strings.Contains(line, want) {
					t.Errorf("line %q lacks %q", line, want)
				}
			}
		})
	}
}

// TestBurndownOptions refuses an unknown store.
func TestBurndownOptions(t *testing.T) {
	if _, err := Burndown(context.Background(), BurndownOptions{Store: "mysql"}); err == nil {
		t.Fatal("want an error for an unknown store")
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
