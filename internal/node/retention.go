package node

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/store"
)

// RetentionConfig prunes finished sequencer records: DONE and FAILED
// transactions (with their attempts and history) whose last update is
// older than After and whose hook has reported. A pruned record is gone:
// GET answers 404 for it, and its idempotency key is free again (an
// intent sent again with it is a new record). Processor batches, leader
// requests, distseq intents and replication logs are not pruned.
type RetentionConfig struct {
	// After is how long a finished record is kept after its last update.
	// Defaults to 0: off, every record is kept.
	After Duration `yaml:"after"`
	// Every is how often the node prunes; the first round comes
	// min(Every, 1m) after the start. Defaults to 1h.
	Every Duration `yaml:"every"`
	// Batch is the most records one prune transaction deletes: a round
	// deletes batch after batch, each its own short transaction, the
	// engines' writes going on between them, until a batch is not full.
	// From 1 to 100000. Defaults to 1000.
	Batch int `yaml:"batch"`
}

// Retention defaults.
const (
	DefaultRetentionEvery = time.Hour
	DefaultRetentionBatch = 1000
	maxRetentionBatch     = 100_000
)

func (c RetentionConfig) enabled() bool { return c.After > 0 }

func (c RetentionConfig) every() time.Duration {
	if c.Every <= 0 {
		return DefaultRetentionEvery
	}
	return time.Duration(c.Every)
}

func (c RetentionConfig) batch() int {
	if c.Batch <= 0 {
		return DefaultRetentionBatch
	}
	return c.Batch
}

// validate reports the fields' mistakes to bad.
func (c RetentionConfig) validate(bad func(field, format string, args ...any)) {
	if c.After < 0 {
		bad("retention.after", "must not be negative, got %s", time.Duration(c.After))
	}
	if c.Every < 0 {
		bad("retention.every", "must not be negative, got %s", time.Duration(c.Every))
	}
	if c.Batch < 0 || c.Batch > maxRetentionBatch {
		bad("retention.batch", "must be from 1 to %d (0 for the default %d), got %d", maxRetentionBatch, DefaultRetentionBatch, c.Batch)
	}
}

// reaper prunes finished records on the node's clock (Config.Retention).
type reaper struct {
	cfg    RetentionConfig
	st     store.Pruner
	clock  clock.Clock
	log    *slog.Logger
	pruned *prometheus.CounterVec // rows deleted, by table
}

func newReaper(cfg RetentionConfig, st store.Pruner, clk clock.Clock, log *slog.Logger, reg prometheus.Registerer) *reaper {
	r := &reaper{cfg: cfg, st: st, clock: clk, log: log,
		pruned: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ordo_retention_pruned_rows_total",
			Help: "Rows deleted by retention, by table (transactions, attempts, history)."}, []string{"table"})}
	if reg != nil {
		reg.MustRegister(r.pruned)
	}
	return r
}

// Run prunes a round every cfg.Every (the first after min(Every, 1m))
// until ctx ends. A failed round is logged; the next one tries again.
func (r *reaper) Run(ctx context.Context) error {
	wait := min(r.cfg.every(), time.Minute)
	for {
		t := r.clock.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C():
		}
		wait = r.cfg.every()
		if _, err := r.round(ctx); err != nil && ctx.Err() == nil {
			r.log.Warn("retention: a round failed; the next one tries again", "err", err, "every", wait)
		}
	}
}

// round deletes, batch after batch, the records finished before now -
// After, until a batch is not full; it returns what it deleted.
func (r *reaper) round(ctx context.Context) (store.Pruned, error) {
	t0 := r.clock.Now()
	before := t0.Add(-time.Duration(r.cfg.After))
	var total store.Pruned
	batches := 0
	for {
		p, err := r.st.PruneFinished(ctx, before, r.cfg.batch())
		if err != nil {
			return total, fmt.Errorf("retention: %w", err)
		}
		batches++
		r.pruned.WithLabelValues("transactions").Add(float64(p.Transactions))
		r.pruned.WithLabelValues("attempts").Add(float64(p.Attempts))
		r.pruned.WithLabelValues("history").Add(float64(p.History))
		total.Transactions += p.Transactions
		total.Attempts += p.Attempts
		total.History += p.History
		if p.Transactions < r.cfg.batch() || ctx.Err() != nil {
			break
		}
	}
	if total.Transactions > 0 {
		r.log.Info("retention: pruned finished records", "transactions", total.Transactions, "attempts", total.Attempts,
			"history", total.History, "batches", batches, "finishedBefore", before, "took", r.clock.Now().Sub(t0).String())
	}
	return total, nil
}
