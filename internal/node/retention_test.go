package node

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/sqlite"
	"github.com/ordolabs/ordo/internal/testkit"
)

// countingPruner records each PruneFinished call of a store.
type countingPruner struct {
	store.Pruner
	mu    sync.Mutex
	calls []store.Pruned
	limit []int
}

func (c *countingPruner) PruneFinished(ctx context.Context, before time.Time, limit int) (store.Pruned, error) {
	p, err := c.Pruner.PruneFinished(ctx, before, limit)
	c.mu.Lock()
	c.calls = append(c.calls, p)
	c.limit = append(c.limit, limit)
	c.mu.Unlock()
	return p, err
}

func (c *countingPruner) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.calls)
}

// TestReaperPrunesInBatches: with retention {after: 1h, every: 1h, batch:
// 10} on the node's (virtual) clock, the first round, a minute after the
// start, deletes the 25 records finished more than an hour ago in batches
// of at most 10 (10, 10, 5) and keeps the 5 younger ones, which the next
// round, an hour later, deletes; the metric counts the rows.
func TestReaperPrunesInBatches(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "ordo.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	clk := clock.NewVirtual(clock.Epoch)
	var news []store.NewTransaction
	var ends []store.TxUpdate
	for i := range 30 {
		uid := fmt.Sprintf("tx%02d", i)
		news = append(news, store.NewTransaction{UID: uid, Queue: fmt.Sprintf("q%d", i%3), Type: "T", Data: json.RawMessage(`{}`), At: clk.Now().Add(-3 * time.Hour)})
		finished := clk.Now().Add(-2 * time.Hour)
		if i >= 25 {
			finished = clk.Now().Add(-10 * time.Minute)
		}
		ends = append(ends, store.TxUpdate{UID: uid, State: store.Done, Result: json.RawMessage(`{"ok":true}`), At: finished,
			Attempt: &store.Attempt{N: 1, Sender: "s", Hash: "h" + uid, At: finished, Outcome: store.OutcomeIncluded}})
	}
	if _, err := st.Enqueue(ctx, news); err != nil {
		t.Fatal(err)
	}
	if err := st.Apply(ctx, store.Batch{Txs: ends}); err != nil {
		t.Fatal(err)
	}
	cp := &countingPruner{Pruner: st}
	reg := prometheus.NewRegistry()
	r := newReaper(RetentionConfig{After: Duration(time.Hour), Every: Duration(time.Hour), Batch: 10}, cp, clk, slog.New(slog.DiscardHandler), reg)
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- r.Run(rctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	left := func() int {
		txs, err := st.List(ctx, store.Filter{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		return len(txs)
	}
	testkit.WaitFor(t, 10*time.Second, 5*time.Millisecond, "the first round's timer", func() bool { return clk.Pending() > 0 })
	clk.Advance(59 * time.Second)
	if cp.count() != 0 {
		t.Fatal("a round before a minute passed")
	}
	clk.Advance(time.Second)
	testkit.WaitFor(t, 10*time.Second, 5*time.Millisecond, "the first round", func() bool { return cp.count() == 3 })
	if n := left(); n != 5 {
		t.Fatalf("%d records after the first round, want the 5 finished 10 minutes ago", n)
	}
	cp.mu.Lock()
	for i, want := range []int{10, 10, 5} {
		if cp.calls[i].Transactions != want || cp.calls[i].Attempts != want || cp.limit[i] != 10 {
			t.Errorf("batch %d: %+v (limit %d), want %d transactions and attempts, limit 10", i, cp.calls[i], cp.limit[i], want)
		}
	}
	cp.mu.Unlock()
	testkit.WaitFor(t, 10*time.Second, 5*time.Millisecond, "the next round's timer", func() bool { return clk.Pending() > 0 })
	clk.Advance(time.Hour)
	testkit.WaitFor(t, 10*time.Second, 5*time.Millisecond, "the second round", func() bool { return cp.count() == 4 })
	if n := left(); n != 0 {
		t.Fatalf("%d records after the second round, want none", n)
	}
	if got := testutil.ToFloat64(r.pruned.WithLabelValues("transactions")); got != 30 {
		t.Fatalf("ordo_retention_pruned_rows_total{table=transactions} = %v, want 30", got)
	}
	if got := testutil.ToFloat64(r.pruned.WithLabelValues("attempts")); got != 30 {
		t.Fatalf("ordo_retention_pruned_rows_total{table=attempts} = %v, want 30", got)
	}
}

func TestRetentionConfigValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		c    RetentionConfig
		want string
	}{
		{RetentionConfig{}, ""},
		{RetentionConfig{After: Duration(720 * time.Hour), Every: Duration(time.Hour), Batch: 1000}, ""},
		{RetentionConfig{After: -1}, "retention.after"},
		{RetentionConfig{Every: -1}, "retention.every"},
		{RetentionConfig{Batch: -1}, "retention.batch"},
		{RetentionConfig{Batch: maxRetentionBatch + 1}, "retention.batch"},
	} {
		var errs []string
		tc.c.validate(func(field, format string, args ...any) { errs = append(errs, field+": "+fmt.Sprintf(format, args...)) })
		if got := strings.Join(errs, "; "); (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("validate(%+v) = %q, want an error naming %q", tc.c, got, tc.want)
		}
	}
}

// TestRetentionConfigYAML: the config file's retention and shutdownGrace.
func TestRetentionConfigYAML(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ordo.yaml")
	if err := os.WriteFile(path, []byte("shutdownGrace: 20s\nretention: {after: 720h, every: 1h, batch: 500}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	want := RetentionConfig{After: Duration(720 * time.Hour), Every: Duration(time.Hour), Batch: 500}
	if c.Retention != want || c.shutdownGrace() != 20*time.Second || (Config{}).shutdownGrace() != DefaultShutdownGrace {
		t.Fatalf("retention %+v, shutdownGrace %s; want %+v and 20s (default %s)", c.Retention, c.shutdownGrace(), want, DefaultShutdownGrace)
	}
}
