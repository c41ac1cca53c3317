package leader

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ordolabs/ordo/internal/store"
)

// Metrics are the leader's Prometheus metrics: requests indexed, outcomes by
// status, results by channel, channels blocked.
type Metrics struct {
	// Indexed counts requests indexed (Queued for the first time).
	Indexed prometheus.Counter
	// Outcomes counts requests ended, by status (Successful, Dead).
	Outcomes *prometheus.CounterVec
	// Results counts result transactions handed to the sequencer, by
	// channel.
	Results *prometheus.CounterVec
	// Blocked is 1 for a channel blocked now (as of its last change).
	Blocked *prometheus.GaugeVec
	// Commit observes each commit's latency, in seconds.
	Commit prometheus.Histogram
}

// NewMetrics makes the metrics and registers them with reg (when not nil).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		Indexed: prometheus.NewCounter(prometheus.CounterOpts{Name: "ordo_leader_indexed_total",
			Help: "Requests indexed."}),
		Outcomes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ordo_leader_outcomes_total",
			Help: "Requests ended, by status (Successful, Dead)."}, []string{"status"}),
		Results: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ordo_leader_results_total",
			Help: "Result transactions handed to the sequencer, by channel."}, []string{"channel"}),
		Blocked: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "ordo_leader_channel_blocked",
			Help: "1 while a channel is blocked after a failed result transaction."}, []string{"channel"}),
		Commit: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "ordo_leader_commit_seconds",
			Help: "Latency of the leader's store commits.", Buckets: prometheus.ExponentialBuckets(0.0001, 2, 16)}),
	}
	if reg != nil {
		reg.MustRegister(m.Indexed, m.Outcomes, m.Results, m.Blocked, m.Commit)
	}
	return m
}

func (m *Metrics) observe(r Ready, seconds float64) {
	if m == nil {
		return
	}
	m.Commit.Observe(seconds)
	for _, e := range r.Batch.Events {
		if e.CreatedAt.Equal(e.UpdatedAt) && e.Retried == 0 && e.Reports == 0 {
			m.Indexed.Inc() // first written by the turn that indexed it
		}
		if e.Status == store.EventSuccessful || e.Status == store.EventDead {
			m.Outcomes.WithLabelValues(string(e.Status)).Inc()
		}
	}
	for _, e := range r.Effects {
		if e.Kind == EffectReport && !e.Again {
			m.Results.WithLabelValues(strconv.Itoa(e.Channel)).Inc()
		}
	}
	for _, ch := range r.Batch.Channels {
		v := 0.0
		if !ch.BlockedUntil.IsZero() && ch.BlockedUntil.After(ch.UpdatedAt) {
			v = 1
		}
		m.Blocked.WithLabelValues(strconv.Itoa(ch.Index)).Set(v)
	}
}
