package sequencer

import (
	"github.com/ordolabs/ordo/internal/store"
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the sequencer's Prometheus metrics.
type Metrics struct {
	// Intake counts the transactions accepted at intake as new records (an
	// idempotent repeat is not counted).
	Intake prometheus.Counter
	// Dispatches counts the moves to REVISION: a dispatch that succeeded.
	Dispatches prometheus.Counter
	// Retries counts the moves to RETRY.
	Retries prometheus.Counter
	// Failures counts the transactions FAILED (after their retries).
	Failures prometheus.Counter
	// Done counts the transactions DONE.
	Done prometheus.Counter
	// InclusionBlocks observes, for each transaction DONE, the blocks from
	// its first dispatch to DONE.
	InclusionBlocks prometheus.Histogram
	// QueueDepth is the number of transactions accepted and not yet
	// dispatched, over all queues (WAITING).
	QueueDepth prometheus.Gauge
	// SendersBusy is the number of senders bound to a queue.
	SendersBusy prometheus.Gauge
}

// NewMetrics makes the metrics and registers them with reg (when not nil).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		Intake:     prometheus.NewCounter(prometheus.CounterOpts{Name: "ordo_sequencer_intake_total", Help: "Transactions accepted at intake (new records)."}),
		Dispatches: prometheus.NewCounter(prometheus.CounterOpts{Name: "ordo_sequencer_dispatches_total", Help: "Transactions moved to REVISION by a successful dispatch."}),
		Retries:    prometheus.NewCounter(prometheus.CounterOpts{Name: "ordo_sequencer_retries_total", Help: "Transactions moved to RETRY."}),
		Failures:   prometheus.NewCounter(prometheus.CounterOpts{Name: "ordo_sequencer_failures_total", Help: "Transactions FAILED after their retries."}),
		Done:       prometheus.NewCounter(prometheus.CounterOpts{Name: "ordo_sequencer_done_total", Help: "Transactions DONE."}),
		InclusionBlocks: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "ordo_sequencer_inclusion_latency_blocks", Help: "Blocks from first dispatch to DONE.",
			Buckets: []float64{1, 2, 3, 4, 5, 8, 12, 20, 50}}),
		QueueDepth:  prometheus.NewGauge(prometheus.GaugeOpts{Name: "ordo_sequencer_queue_depth", Help: "Transactions accepted and not yet dispatched, over all queues."}),
		SendersBusy: prometheus.NewGauge(prometheus.GaugeOpts{Name: "ordo_sequencer_senders_busy", Help: "Senders bound to a queue."}),
	}
	if reg != nil {
		reg.MustRegister(m.Intake, m.Dispatches, m.Retries, m.Failures, m.Done, m.InclusionBlocks, m.QueueDepth, m.SendersBusy)
	}
	return m
}

// observe updates metrics from a committed batch.
func (n *Node) observe(c *Core, b store.Batch) {
	m := n.cfg.Metrics
	for _, h := range b.History {
		if h.From == h.To && (h.To == store.Done || h.To == store.Failed) {
			continue // a note on a finished record (a deep reorg's flag), not an end
		}
		switch h.To {
		case store.Revision:
			if _, ok := n.dispHead[h.UID]; !ok {
				n.dispHead[h.UID] = c.Head()
				n.begun++
			}
			if m != nil {
				m.Dispatches.Inc()
			}
		case store.Retry:
			if m != nil {
				m.Retries.Inc()
			}
		case store.Done, store.Failed:
			start, ok := n.dispHead[h.UID]
			delete(n.dispHead, h.UID)
			if !ok && h.From == store.Waiting {
				n.begun++
			}
			if n.cfg.OnFinish != nil {
				blocks := uint64(0)
				if ok {
					blocks = c.Head() - start
				}
				n.cfg.OnFinish(h.UID, h.To, blocks)
			}
			if m == nil {
				continue
			}
			if h.To == store.Failed {
				m.Failures.Inc()
				continue
			}
			m.Done.Inc()
			if ok {
				m.InclusionBlocks.Observe(float64(c.Head() - start))
			}
		}
	}
	if m != nil {
		m.SendersBusy.Set(float64(c.BusySenders()))
		m.QueueDepth.Set(float64(n.intake.Load() - n.begun))
	}
}
