package sequencer

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ordolabs/ordo/internal/store"
)

// Metrics are the sequencer's Prometheus metrics. Labels take bounded values
// only: type is one of the node's allowed types ("unknown" if a record
// cannot be read), reason one of the Reason classes, state free or bound,
// effect and call fixed names.
type Metrics struct {
	// Intake counts the transactions accepted at intake as new records (an
	// idempotent repeat is not counted).
	Intake prometheus.Counter
	// Reloads counts the loop's starts over from the store (a change of
	// the leases held, or a fenced commit: owner.go).
	Reloads prometheus.Counter
	// Dispatches counts the moves to REVISION: a dispatch that succeeded.
	Dispatches prometheus.Counter
	// Retries counts the moves to RETRY, by type and reason class.
	Retries *prometheus.CounterVec
	// Failures counts the transactions FAILED, by type and reason class.
	Failures *prometheus.CounterVec
	// Done counts the transactions DONE.
	Done prometheus.Counter
	// InclusionBlocks observes, for each transaction DONE, the blocks from
	// its first dispatch to DONE.
	InclusionBlocks prometheus.Histogram
	// QueueDepth is the number of WAITING transactions over all queues:
	// counted from the store at start, then raised by each new record and
	// lowered by each committed move out of WAITING. Never negative.
	QueueDepth prometheus.Gauge
	// SendersBusy is the number of senders bound to a queue.
	SendersBusy prometheus.Gauge
	// Senders is the number of senders by state: free or bound (to a
	// queue).
	Senders *prometheus.GaugeVec
	// HeadHeight is the newest head the sequencer has taken in.
	HeadHeight prometheus.Gauge
	// DeepReorgs counts the reorgs deeper than the chain declares: an
	// anomaly (DONE records they touched are flagged in their history).
	DeepReorgs prometheus.Counter
	// StoreCommit observes the latency of each batch commit, in seconds.
	StoreCommit prometheus.Histogram
	// StoreBatch observes the size of each committed batch, in records
	// written (transaction updates, queues, senders, history entries).
	StoreBatch prometheus.Histogram
	// Effects observes how long each effect took, by effect (dispatch,
	// submit, check, hook, load), in seconds.
	Effects *prometheus.HistogramVec
	// WorkerTimeouts counts dispatcher calls (a remote worker's, mostly)
	// that timed out, by call (build, dispatch, onSuccess, onFailure).
	WorkerTimeouts *prometheus.CounterVec
	// PendingAtFeeCap is the number of transactions whose latest attempt
	// was sent at the fee policy's Max and is not decided yet: an alert
	// (a replacement cannot outbid it; raise fees.max or cancel its nonce).
	PendingAtFeeCap prometheus.Gauge
	// sender holds the per-sender gauges (driver_senders.go).
	sender senderMetrics
}

// NewMetrics makes the metrics and registers them with reg (when not nil).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		Intake:     prometheus.NewCounter(prometheus.CounterOpts{Name: "ordo_sequencer_intake_total", Help: "Transactions accepted at intake (new records)."}),
		Reloads:    prometheus.NewCounter(prometheus.CounterOpts{Name: "ordo_sequencer_reloads_total", Help: "Starts over from the store after the leases held changed or a commit was fenced."}),
		Dispatches: prometheus.NewCounter(prometheus.CounterOpts{Name: "ordo_sequencer_dispatches_total", Help: "Transactions moved to REVISION by a successful dispatch."}),
		Retries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ordo_sequencer_retries_total",
			Help: "Transactions moved to RETRY, by type and reason (dispatch_error, not_included, failed_inclusion, dropped, recovered, other)."}, []string{"type", "reason"}),
		Failures: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ordo_sequencer_failures_total",
			Help: "Transactions FAILED, by type and reason (permanent, ambiguous, failed_inclusion, or the last retry's reason when the retries ran out)."}, []string{"type", "reason"}),
		Done: prometheus.NewCounter(prometheus.CounterOpts{Name: "ordo_sequencer_done_total", Help: "Transactions DONE."}),
		InclusionBlocks: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "ordo_sequencer_inclusion_latency_blocks", Help: "Blocks from first dispatch to DONE.",
			Buckets: []float64{1, 2, 3, 4, 5, 8, 12, 20, 50}}),
		QueueDepth:  prometheus.NewGauge(prometheus.GaugeOpts{Name: "ordo_sequencer_queue_depth", Help: "Transactions WAITING (accepted, not yet dispatched), over all queues."}),
		SendersBusy: prometheus.NewGauge(prometheus.GaugeOpts{Name: "ordo_sequencer_senders_busy", Help: "Senders bound to a queue."}),
		Senders:     prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "ordo_sequencer_senders", Help: "Senders by state: free, or bound to a queue."}, []string{"state"}),
		HeadHeight:  prometheus.NewGauge(prometheus.GaugeOpts{Name: "ordo_sequencer_head_height", Help: "Height of the newest head the sequencer has taken in."}),
		DeepReorgs: prometheus.NewCounter(prometheus.CounterOpts{Name: "ordo_sequencer_deep_reorgs_total",
			Help: "Reorgs deeper than the chain declares: an anomaly; the DONE records they touched are flagged in their history."}),
		StoreCommit: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "ordo_sequencer_store_commit_seconds", Help: "Latency of the sequencer's batch commits to the store.",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5}}),
		StoreBatch: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "ordo_sequencer_store_commit_batch_records", Help: "Records written by each batch commit (transaction updates, queues, senders, history entries).",
			Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096}}),
		Effects: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "ordo_sequencer_effect_seconds", Help: "Time to perform an effect, by effect (dispatch, submit, check, hook, load).",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}}, []string{"effect"}),
		WorkerTimeouts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ordo_sequencer_worker_timeouts_total", Help: "Dispatcher calls (remote workers') that timed out, by call (build, dispatch, onSuccess, onFailure)."}, []string{"call"}),
		PendingAtFeeCap: prometheus.NewGauge(prometheus.GaugeOpts{Name: "ordo_sequencer_attempts_pending_at_fee_cap",
			Help: "Transactions whose latest attempt was sent at fees.max and is not decided: no replacement can outbid it (alert)."}),
		sender: newSenderMetrics(),
	}
	if reg != nil {
		reg.MustRegister(m.Intake, m.Reloads, m.Dispatches, m.Retries, m.Failures, m.Done, m.InclusionBlocks, m.QueueDepth, m.SendersBusy, m.Senders, m.HeadHeight, m.DeepReorgs,
			m.StoreCommit, m.StoreBatch, m.Effects, m.WorkerTimeouts, m.PendingAtFeeCap)
		reg.MustRegister(m.sender.collectors()...)
	}
	return m
}

// batchRecords is how many records a batch writes.
func batchRecords(b store.Batch) int {
	return len(b.Txs) + len(b.Queues) + len(b.Senders) + len(b.History)
}

// observeCommit records a batch commit that took took.
func (n *Node) observeCommit(b store.Batch, took time.Duration) {
	if m := n.cfg.Metrics; m != nil {
		m.StoreCommit.Observe(took.Seconds())
		m.StoreBatch.Observe(float64(batchRecords(b)))
	}
}

// since is the time on the node's clock since t0 (latencies: under a
// virtual clock, I/O takes no time).
func (n *Node) since(t0 time.Time) time.Duration { return n.cfg.Clock.Now().Sub(t0) }

// observeEffect records an effect that took took.
func (n *Node) observeEffect(k EffectKind, took time.Duration) {
	if m := n.cfg.Metrics; m != nil {
		m.Effects.WithLabelValues(effectName(k)).Observe(took.Seconds())
	}
}

func effectName(k EffectKind) string {
	switch k {
	case EffectDispatch:
		return "dispatch"
	case EffectSubmit:
		return "submit"
	case EffectCheck:
		return "check"
	case EffectHook:
		return "hook"
	case EffectLoad:
		return "load"
	}
	return "other"
}

// observeDeepReorg counts a reorg deeper than the chain declares.
func (n *Node) observeDeepReorg() {
	if m := n.cfg.Metrics; m != nil {
		m.DeepReorgs.Inc()
	}
}

// observeHead records a head the loop took in.
func (n *Node) observeHead(height uint64) {
	if m := n.cfg.Metrics; m != nil {
		m.HeadHeight.Set(float64(height))
	}
}

// observe updates metrics and logs (driver_log.go) from a committed batch.
func (n *Node) observe(ctx context.Context, c *Core, ended map[string]store.Transaction, b store.Batch) {
	m := n.cfg.Metrics
	v := n.newBatchView(ctx, c, ended, b)
	v.logAttempts()
	n.watchFeeCap(b)
	for _, h := range b.History {
		if h.From == h.To && (h.To == store.Done || h.To == store.Failed) {
			continue // a note on a finished record (a deep reorg's flag), not an end
		}
		if h.From == store.Waiting && h.To != store.Waiting {
			n.begun++ // the queue-depth gauge: one WAITING fewer
		}
		switch h.To {
		case store.Revision:
			if _, ok := n.dispHead[h.UID]; !ok {
				n.dispHead[h.UID] = c.Head()
			}
			if m != nil {
				m.Dispatches.Inc()
			}
		case store.Retry:
			class := reasonClass(h.Note)
			if m != nil {
				m.Retries.WithLabelValues(v.typeOf(h.UID), class).Inc()
			}
			v.logRetry(h, class)
		case store.Done, store.Failed:
			start, ok := n.dispHead[h.UID]
			delete(n.dispHead, h.UID)
			delete(n.atCap, h.UID)
			blocks := uint64(0)
			if ok {
				blocks = c.Head() - start
			}
			if n.cfg.OnFinish != nil {
				n.cfg.OnFinish(h.UID, h.To, blocks)
			}
			if h.To == store.Failed {
				class := failureClass(h.Note, v.errs[h.UID])
				if m != nil {
					m.Failures.WithLabelValues(v.typeOf(h.UID), class).Inc()
				}
				v.logFailed(h, class)
				continue
			}
			v.logDone(h, blocks, ok)
			if m == nil {
				continue
			}
			m.Done.Inc()
			if ok {
				m.InclusionBlocks.Observe(float64(blocks))
			}
		default: // WAITING: no metric
		}
	}
}

// observeGauges sets the gauges of the node's state after a turn: the
// senders by state and the queue depth (the WAITING transactions counted
// from the store at start, plus the records created since, minus the moves
// out of WAITING committed since).
func (n *Node) observeGauges(c *Core) {
	m := n.cfg.Metrics
	if m == nil {
		return
	}
	busy := c.BusySenders()
	m.SendersBusy.Set(float64(busy))
	m.Senders.WithLabelValues("bound").Set(float64(busy))
	m.Senders.WithLabelValues("free").Set(float64(max(len(n.cfg.Senders)-busy, 0)))
	m.QueueDepth.Set(float64(max(n.intake.Load()-n.begun, 0)))
	m.PendingAtFeeCap.Set(float64(len(n.atCap)))
}

// watchFeeCap follows the attempts a batch saves: a transaction whose
// latest attempt is sent at the fee cap is pending there (logged once as
// a warning) until a later attempt or its end; see PendingAtFeeCap.
func (n *Node) watchFeeCap(b store.Batch) {
	for _, u := range b.Txs {
		a := u.Attempt
		if a == nil {
			continue
		}
		if a.Gas != 0 {
			n.gas.note(a.Sender, a.Gas)
		}
		if a.Fee >= n.cfg.Fees.Max && a.Outcome == store.OutcomeSent {
			if !n.atCap[u.UID] {
				n.log.Warn("sequencer: an attempt is pending at the fee cap: no replacement can outbid it; raise fees.max or cancel its nonce",
					"uid", u.UID, "attempt", a.N, "sender", a.Sender, "nonce", a.Nonce, "fee", a.Fee, "hash", a.Hash)
				n.atCap[u.UID] = true
			}
			continue
		}
		delete(n.atCap, u.UID)
	}
}
