package smm

import "time"

// Config is the replication of the node's queues (issue 12): off unless
// Enabled. Durations are written as Go durations ("30s"). Zero fields take their defaults, the starting figures of
// Audius's deployment where seed 004's system had one.
type Config struct {
	// Enabled turns replication on: each queue taken in through the
	// public intake gets a replica set on chain, and this node monitors
	// and reconciles the queues it is a member of. Defaults to false (a
	// replica set of one: the node alone).
	Enabled bool `yaml:"enabled"`
	// Secondaries is how many secondaries a new queue's set names (fewer
	// when fewer nodes are registered). Defaults to 2.
	Secondaries int `yaml:"secondaries"`
	// AckAfter is how many secondaries must hold an intent before its
	// primary acknowledges it: 0 acknowledges after the local commit (an
	// intent acknowledged and not yet synced is lost with its primary's
	// disk), 1 after one secondary holds it. Defaults to 0.
	AckAfter int `yaml:"ackAfter"`
	// AckTimeout bounds the wait for AckAfter secondaries; past it the
	// intake answers an error (the intent is committed: a retry with its
	// idempotency key finds it). Defaults to 10s.
	AckTimeout time.Duration `yaml:"ackTimeout"`
	// SliceSize is how many queues one monitor-state job covers. Defaults
	// to 100.
	SliceSize int `yaml:"sliceSize"`
	// MonitorEvery is the pause between two monitor-state slices.
	// Defaults to 1s.
	MonitorEvery time.Duration `yaml:"monitorEvery"`
	// UnhealthyAfter is how long a member stays unhealthy (unanswered)
	// before find-replica-set-updates replaces it. Defaults to 30s.
	UnhealthyAfter time.Duration `yaml:"unhealthyAfter"`
	// SyncPoll is how often a recurring sync polls the secondary's clock,
	// and SyncTimeout how long it waits for it to reach the primary's.
	// Default to 15s and 5m.
	SyncPoll    time.Duration `yaml:"syncPoll"`
	SyncTimeout time.Duration `yaml:"syncTimeout"`
	// MaxFailedSyncs is how many failed syncs per secondary per queue per
	// day are issued before that pair is left alone until the day ends.
	// Defaults to 20.
	MaxFailedSyncs int `yaml:"maxFailedSyncs"`
	// MappingEvery is how often the mapping job refreshes the node
	// registry (endpoint → node id); replica-set changes are off while
	// it could not be read for 3 periods. Defaults to 10m.
	MappingEvery time.Duration `yaml:"mappingEvery"`
	// RequestTimeout bounds one request to another node. Defaults to 5s.
	RequestTimeout time.Duration `yaml:"requestTimeout"`
	// Sender is the sender (account id) reserved for this node's
	// replica-set updates. Defaults to the last of the node's senders by
	// id that no other pin holds, when it has more than one; with one,
	// the updates share it with the queues.
	Sender string `yaml:"sender"`
	// PushPage is the most entries one push or pull carries. Defaults to
	// 500.
	PushPage int `yaml:"pushPage"`
}

// Defaults of Config.
const (
	DefaultSecondaries    = 2
	DefaultAckTimeout     = 10 * time.Second
	DefaultSliceSize      = 100
	DefaultMonitorEvery   = time.Second
	DefaultUnhealthyAfter = 30 * time.Second
	DefaultSyncPoll       = 15 * time.Second
	DefaultSyncTimeout    = 5 * time.Minute
	DefaultMaxFailedSyncs = 20
	DefaultMappingEvery   = 10 * time.Minute
	DefaultRequestTimeout = 5 * time.Second
	DefaultPushPage       = 500
)

// WithDefaults returns c with its zero fields set to their defaults.
func (c Config) WithDefaults() Config {
	set := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	seti := func(d *int, v int) {
		if *d <= 0 {
			*d = v
		}
	}
	seti(&c.Secondaries, DefaultSecondaries)
	seti(&c.SliceSize, DefaultSliceSize)
	seti(&c.MaxFailedSyncs, DefaultMaxFailedSyncs)
	seti(&c.PushPage, DefaultPushPage)
	set(&c.AckTimeout, DefaultAckTimeout)
	set(&c.MonitorEvery, DefaultMonitorEvery)
	set(&c.UnhealthyAfter, DefaultUnhealthyAfter)
	set(&c.SyncPoll, DefaultSyncPoll)
	set(&c.SyncTimeout, DefaultSyncTimeout)
	set(&c.MappingEvery, DefaultMappingEvery)
	set(&c.RequestTimeout, DefaultRequestTimeout)
	return c
}
