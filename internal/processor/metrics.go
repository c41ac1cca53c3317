package processor

import (
	"encoding/json"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ordolabs/ordo/internal/store"
)

// Metrics are the processor's Prometheus metrics. Labels take bounded
// values only: an outcome status, a tick outcome, a delivery result.
type Metrics struct {
	// Outcomes counts batches ended, by status (Executed, Rejected,
	// PartiallyExecuted, Expired, RemovedByOwner).
	Outcomes *prometheus.CounterVec
	// Executions counts executions handed to the sequencer (first
	// submissions; a check's resubmission is not counted).
	Executions prometheus.Counter
	// Ticks counts the ticks callers asked for, by what they did.
	Ticks *prometheus.CounterVec
	// Deliveries counts callback deliveries, by result (delivered, failed).
	Deliveries *prometheus.CounterVec
	// Commit observes each turn's store commit, in seconds.
	Commit prometheus.Histogram
}

// NewMetrics makes the metrics and registers them with reg (when not nil).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		Outcomes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ordo_processor_outcomes_total",
			Help: "Batches ended, by outcome status."}, []string{"status"}),
		Executions: prometheus.NewCounter(prometheus.CounterOpts{Name: "ordo_processor_executions_total",
			Help: "Executions (a batch, or a non-atomic action) handed to the sequencer."}),
		Ticks: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ordo_processor_ticks_total",
			Help: "Ticks asked by callers, by what they did."}, []string{"outcome"}),
		Deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ordo_processor_deliveries_total",
			Help: "Callback deliveries, by result."}, []string{"result"}),
		Commit: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "ordo_processor_commit_seconds",
			Help: "Latency of the processor's store commits.", Buckets: prometheus.ExponentialBuckets(0.0001, 2, 16)}),
	}
	if reg != nil {
		reg.MustRegister(m.Outcomes, m.Executions, m.Ticks, m.Deliveries, m.Commit)
	}
	return m
}

// observe counts what a committed Ready carried.
func (m *Metrics) observe(r Ready, seconds float64) {
	if m == nil {
		return
	}
	m.Commit.Observe(seconds)
	for _, cb := range r.Batch.Callbacks {
		switch {
		case cb.State == store.CallbackDelivered:
			m.Deliveries.WithLabelValues("delivered").Inc()
		case cb.Attempts > 0:
			m.Deliveries.WithLabelValues("failed").Inc()
		default: // a new callback: a batch ended
			var b CallbackBody
			if json.Unmarshal(cb.Body, &b) == nil {
				m.Outcomes.WithLabelValues(string(b.Outcome.Status)).Inc()
			}
		}
	}
	for _, rep := range r.Replies {
		if tr, ok := rep.Body.(TickResult); ok {
			m.Ticks.WithLabelValues(tr.Outcome).Inc()
		}
	}
	for _, e := range r.Effects {
		if e.Kind == EffectSubmit && !e.Again {
			m.Executions.Inc()
		}
	}
}
