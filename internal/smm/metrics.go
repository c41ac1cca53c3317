package smm

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the state machine manager's Prometheus metrics. Labels take
// bounded values only: a job kind, an outcome, a role.
type Metrics struct {
	// Jobs counts job runs, by kind and outcome (done, failed, snoozed,
	// cancelled).
	Jobs *prometheus.CounterVec
	// JobSeconds observes each job run's duration, by kind.
	JobSeconds *prometheus.HistogramVec
	// Forwarded counts intents forwarded to their queue's primary, by
	// result (ok, refused, unavailable).
	Forwarded *prometheus.CounterVec
	// Entries counts log entries a push or a pull moved to a secondary.
	Entries prometheus.Counter
	// SyncLag observes, for each intent a manual sync got a secondary to
	// hold, the seconds since its commit on the primary.
	SyncLag prometheus.Histogram
	// Refused counts pushes this node refused as a secondary, by code
	// (log_gap, log_fork, stale_replica_set, log_corrupt).
	Refused *prometheus.CounterVec
	// Adopted counts queues this node adopted as their new primary.
	Adopted prometheus.Counter
	// Fenced counts newer replica sets this node read from the chain
	// because another member asked under a newer version (the fence).
	Fenced prometheus.Counter
	// Deposed counts queues this node learnt it is no longer the primary
	// of.
	Deposed prometheus.Counter
	// SetUpdates counts replica-set updates this node wrote, by result
	// (ok, lost_race, failed).
	SetUpdates *prometheus.CounterVec
}

// NewMetrics makes the metrics and registers them with reg (when not nil).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		Jobs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ordo_smm_jobs_total",
			Help: "State machine manager job runs, by kind and outcome."}, []string{"kind", "outcome"}),
		JobSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "ordo_smm_job_seconds",
			Help: "Duration of state machine manager job runs, by kind.", Buckets: prometheus.ExponentialBuckets(0.0005, 2, 18)}, []string{"kind"}),
		Forwarded: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ordo_smm_forwarded_total",
			Help: "Intents forwarded to their queue's primary, by result."}, []string{"result"}),
		Entries: prometheus.NewCounter(prometheus.CounterOpts{Name: "ordo_smm_entries_synced_total",
			Help: "Replication log entries pushed to or pulled by secondaries."}),
		SyncLag: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "ordo_smm_sync_lag_seconds",
			Help: "Seconds from an intent's commit on its primary to a secondary holding it (manual sync).", Buckets: prometheus.ExponentialBuckets(0.0005, 2, 18)}),
		Refused: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ordo_smm_refused_total",
			Help: "Pushes refused by this node as a secondary, nothing applied, by code."}, []string{"code"}),
		Adopted: prometheus.NewCounter(prometheus.CounterOpts{Name: "ordo_smm_adopted_total",
			Help: "Queues this node adopted as their new primary."}),
		Fenced: prometheus.NewCounter(prometheus.CounterOpts{Name: "ordo_smm_fenced_total",
			Help: "Newer replica sets read from the chain because a member asked under a newer version."}),
		Deposed: prometheus.NewCounter(prometheus.CounterOpts{Name: "ordo_smm_deposed_total",
			Help: "Queues this node learnt it is no longer the primary of."}),
		SetUpdates: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ordo_smm_set_updates_total",
			Help: "Replica-set updates this node wrote on chain, by result."}, []string{"result"}),
	}
	if reg != nil {
		reg.MustRegister(m.Jobs, m.JobSeconds, m.Forwarded, m.Entries, m.SyncLag, m.Refused, m.Adopted, m.Fenced, m.Deposed, m.SetUpdates)
	}
	return m
}
