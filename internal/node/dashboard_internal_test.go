package node

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/sqlite"
	"github.com/ordolabs/ordo/internal/testkit"
)

// openDashStore opens a SQLite store with n intents WAITING.
func openDashStore(t testing.TB, n int) store.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "ordo.db"), sqlite.Options{Synchronous: sqlite.SyncNormal})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	for lo := 0; lo < n; lo += 1000 {
		var txs []store.NewTransaction
		for i := lo; i < min(lo+1000, n); i++ {
			txs = append(txs, store.NewTransaction{UID: fmt.Sprintf("tx-%07d", i), Queue: fmt.Sprintf("q%d", i%50), Type: "T", Data: []byte(`{}`)})
		}
		if _, err := st.Enqueue(context.Background(), txs); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

// TestSamplerRing: the sampler samples on the node's clock, every
// interval, the store's counts and the registry's figures, and keeps the
// last HistorySamples, oldest first.
func TestSamplerRing(t *testing.T) {
	t.Parallel()
	st := openDashStore(t, 3)
	reg := prometheus.NewRegistry()
	intake := prometheus.NewCounter(prometheus.CounterOpts{Name: "ordo_sequencer_intake_total"})
	senders := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "ordo_sequencer_senders"}, []string{"state"})
	outcomes := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ordo_leader_outcomes_total"}, []string{"outcome"})
	reg.MustRegister(intake, senders, outcomes)
	senders.WithLabelValues("bound").Set(1)
	senders.WithLabelValues("free").Set(3)
	outcomes.WithLabelValues("done").Add(2)
	clk := clock.NewVirtual(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	s := newSampler(DashboardConfig{HistorySamples: 3, SampleInterval: Duration(5 * time.Second)}, st, reg, clk)
	s.leader = st.(store.LeaderStore)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = s.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	// Each sample is told by its time, not its figures: the sampler's
	// first sample (at its start) may already count the first intake, and
	// waiting on a figure would then let the next intake race the sample
	// the timer fires.
	for i := 1; i <= 5; i++ {
		intake.Inc()
		testkit.WaitFor(t, 5*time.Second, time.Millisecond, "the sampler waits on its timer", func() bool { return clk.Pending() > 0 })
		clk.Advance(5 * time.Second)
		at := clk.Now().UTC()
		testkit.WaitFor(t, 5*time.Second, time.Millisecond, fmt.Sprintf("sample %d", i), func() bool {
			h := s.history()
			return len(h.Samples) > 0 && h.Samples[len(h.Samples)-1].At.Equal(at)
		})
	}
	h := s.history()
	if h.Capacity != 3 || h.IntervalSeconds != 5 || len(h.Samples) != 3 {
		t.Fatalf("history: capacity %d, interval %vs, %d samples; want 3, 5s, 3", h.Capacity, h.IntervalSeconds, len(h.Samples))
	}
	for i, sm := range h.Samples {
		if sm.IntakeTotal != float64(i+3) {
			t.Fatalf("sample %d: intake %v, want %d (the last three, oldest first)", i, sm.IntakeTotal, i+3)
		}
		if i > 0 && !sm.At.After(h.Samples[i-1].At) {
			t.Fatalf("sample %d at %v, not after %v", i, sm.At, h.Samples[i-1].At)
		}
		if sm.Intents[store.Waiting] != 3 || sm.SendersBusy != 1 || sm.SendersFree != 3 || sm.Engines["leader"]["outcome.done"] != 2 {
			t.Fatalf("sample %d = %+v; want 3 WAITING, 1 sender busy and 3 free, leader outcome.done 2", i, sm)
		}
		if n, ok := sm.Engines["leader"]["events."+string(store.EventQueued)]; !ok || n != 0 {
			t.Fatalf("sample %d: leader figures %v, want events by status (none Queued)", i, sm.Engines["leader"])
		}
	}
}

// BenchmarkSample measures one sample on a store of 100,000 intents: the
// store's count by state and a registry's gathering (b.N samples).
func BenchmarkSample(b *testing.B) {
	st := openDashStore(b, 100_000)
	reg := prometheus.NewRegistry()
	reg.MustRegister(prometheus.NewCounter(prometheus.CounterOpts{Name: "ordo_sequencer_intake_total"}))
	s := newSampler(DashboardConfig{}, st, reg, clock.Real{})
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.sample(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
