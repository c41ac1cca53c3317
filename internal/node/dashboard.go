package node

import (
	"context"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ordolabs/ordo/internal/api"
	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/store"
)

// DashboardConfig tunes what the node keeps and tells for the dashboard
// (issue 29): the history of its own figures (GET /v1/stats/history) and
// the chain's explorer (GET /v1/session).
type DashboardConfig struct {
	// HistorySamples is how many samples the node keeps, oldest dropped
	// first. From 1 to 10000. Defaults to 180 (15 minutes of 5s samples).
	HistorySamples int `yaml:"historySamples"`
	// SampleInterval is how often the node samples its figures. At least
	// 1s. Defaults to 5s.
	SampleInterval Duration `yaml:"sampleInterval"`
	// ExplorerTxURL is the chain explorer's link of a transaction, with
	// {hash} where the hash goes (https://explorer.example/tx/{hash}): the
	// dashboard links each attempt to it. Defaults to "": no links.
	ExplorerTxURL string `yaml:"explorerTxURL"`
}

// Dashboard defaults.
const (
	DefaultHistorySamples = 180
	DefaultSampleInterval = 5 * time.Second
	maxHistorySamples     = 10_000
)

func (c DashboardConfig) samples() int {
	if c.HistorySamples <= 0 {
		return DefaultHistorySamples
	}
	return c.HistorySamples
}

func (c DashboardConfig) interval() time.Duration {
	if c.SampleInterval <= 0 {
		return DefaultSampleInterval
	}
	return time.Duration(c.SampleInterval)
}

// validate reports the fields' mistakes to bad.
func (c DashboardConfig) validate(bad func(field, format string, args ...any)) {
	if c.HistorySamples < 0 || c.HistorySamples > maxHistorySamples {
		bad("dashboard.historySamples", "must be from 1 to %d (0 for the default %d), got %d", maxHistorySamples, DefaultHistorySamples, c.HistorySamples)
	}
	if c.SampleInterval != 0 && time.Duration(c.SampleInterval) < time.Second {
		bad("dashboard.sampleInterval", "must be at least 1s (0 for the default %s), got %s", DefaultSampleInterval, time.Duration(c.SampleInterval))
	}
	web := strings.HasPrefix(c.ExplorerTxURL, "https://") || strings.HasPrefix(c.ExplorerTxURL, "http://")
	if c.ExplorerTxURL != "" && (!strings.Contains(c.ExplorerTxURL, "{hash}") || !web) {
		bad("dashboard.explorerTxURL", "must be an http(s) URL with {hash} in it, got %q", c.ExplorerTxURL)
	}
}

// sampler keeps the node's recent figures in a ring: a sample every
// interval on the node's clock, taken from the store's counts by state
// (and the leader's events by status, when it runs here) and the node's
// Prometheus registry.
type sampler struct {
	st store.Store
	// leader, when set, counts the leader's events by status each sample.
	leader   store.LeaderStore
	reg      prometheus.Gatherer
	clock    clock.Clock
	interval time.Duration

	mu   sync.Mutex
	ring []api.StatsSample
	next int // where the next sample goes
	full bool
}

func newSampler(cfg DashboardConfig, st store.Store, reg prometheus.Gatherer, clk clock.Clock) *sampler {
	return &sampler{st: st, reg: reg, clock: clk, interval: cfg.interval(), ring: make([]api.StatsSample, cfg.samples())}
}

// Run samples every interval until ctx ends; a sample the store cannot
// give is skipped (the chart shows a gap).
func (s *sampler) Run(ctx context.Context) error {
	clock.Every(ctx, s.clock, s.interval, func(ctx context.Context) {
		if sm, err := s.sample(ctx); err == nil {
			s.add(sm)
		}
	})
	return nil
}

func (s *sampler) add(sm api.StatsSample) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ring[s.next] = sm
	s.next = (s.next + 1) % len(s.ring)
	if s.next == 0 {
		s.full = true
	}
}

// history returns the samples kept, oldest first.
func (s *sampler) history() api.StatsHistoryResponse {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := api.StatsHistoryResponse{IntervalSeconds: s.interval.Seconds(), Capacity: len(s.ring)}
	if s.full {
		out.Samples = append(append(out.Samples, s.ring[s.next:]...), s.ring[:s.next]...)
	} else {
		out.Samples = append(out.Samples, s.ring[:s.next]...)
	}
	return out
}

// engineMetrics are the counters by label a sample keeps per engine.
var engineMetrics = map[string]struct{ engine, prefix string }{
	"ordo_processor_outcomes_total": {"processor", "outcome."},
	"ordo_leader_outcomes_total":    {"leader", "outcome."},
	"ordo_leader_indexed_total":     {"leader", "indexed"},
	"ordo_smm_entries_synced_total": {"smm", "entriesSynced"},
	"ordo_smm_jobs_total":           {"smm", "jobs."},
}

// sample takes one sample.
func (s *sampler) sample(ctx context.Context) (api.StatsSample, error) {
	counts, err := s.st.CountByState(ctx)
	if err != nil {
		return api.StatsSample{}, err
	}
	sm := api.StatsSample{At: s.clock.Now().UTC(), Intents: counts, SlotsInUse: counts[store.Revision] + counts[store.Retry],
		Engines: map[string]map[string]float64{}}
	mfs, err := s.reg.Gather()
	if err != nil {
		return sm, err
	}
	if s.leader != nil {
		byStatus, err := s.leader.LeaderCounts(ctx)
		if err != nil {
			return sm, err
		}
		lf := map[string]float64{}
		for st, n := range byStatus {
			lf["events."+string(st)] = float64(n)
		}
		sm.Engines["leader"] = lf
	}
	for _, mf := range mfs {
		name := mf.GetName()
		for _, m := range mf.GetMetric() {
			v := m.GetCounter().GetValue() + m.GetGauge().GetValue() // one is nil: 0
			lbl := ""
			if ls := m.GetLabel(); len(ls) > 0 {
				lbl = ls[0].GetValue()
			}
			switch name {
			case "ordo_sequencer_intake_total":
				sm.IntakeTotal = v
			case "ordo_sequencer_done_total":
				sm.DoneTotal = v
			case "ordo_sequencer_retries_total":
				sm.RetriesTotal += v
			case "ordo_sequencer_senders":
				switch lbl {
				case "free":
					sm.SendersFree += int(v)
				default:
					sm.SendersBusy += int(v)
				}
			case "ordo_chain_head_height":
				sm.HeadHeight = uint64(v)
			case "ordo_chain_head_age_seconds":
				sm.HeadAgeSeconds = v
			default:
				e, ok := engineMetrics[name]
				if !ok {
					continue
				}
				if sm.Engines[e.engine] == nil {
					sm.Engines[e.engine] = map[string]float64{}
				}
				key := e.prefix
				if strings.HasSuffix(key, ".") {
					key += lbl
				}
				sm.Engines[e.engine][key] += v
			}
		}
	}
	return sm, nil
}

// version is the node's version as its build tells it.
func version() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "unknown"
}

// session is what GET /v1/session tells of the node.
func (n *Node) session() *api.Session {
	engines := []string{"sequencer", "processor"}
	if n.Leader != nil {
		engines = append(engines, "leader")
	}
	if n.Distseq != nil {
		engines = append(engines, "distseq")
	}
	if n.SMM != nil {
		engines = append(engines, "smm")
	}
	name := "devchain"
	if n.Config.EVM.enabled() {
		name = "evm"
	}
	return &api.Session{DevMode: n.Config.DevMode, Engines: engines, Version: version(),
		Chain: api.SessionChain{Name: name, ExplorerTxURL: n.Config.Dashboard.ExplorerTxURL}}
}
