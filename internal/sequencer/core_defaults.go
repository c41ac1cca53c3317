package sequencer

import "time"

// Defaults of the sequencer, defined once: the core, the driver and the
// node's configuration all use these.
const (
	// DefaultRetryDelay is a type's delay between a failure and its retry.
	DefaultRetryDelay = 5 * time.Second
	// DefaultMaxRetries is a type's retries before FAILED in the node's
	// configuration.
	DefaultMaxRetries = 5
	// DefaultInclusionTimeout is how many blocks an attempt may stay
	// unincluded before it is retried.
	DefaultInclusionTimeout = 5
	// DefaultConfirmations is how many blocks must hold an inclusion before
	// DONE, on a chain that does not reorg.
	DefaultConfirmations = 1
	// DefaultInFlightPerQueue is how many transactions of a queue may be in
	// flight: the seed's one per block per zkApp.
	DefaultInFlightPerQueue = 1
	// MaxInFlight is the most transactions a pipelined queue may have in
	// flight (CoreConfig.Pipelines).
	MaxInFlight = 1024
	// DefaultWaitingWindow is how many WAITING transactions per queue the
	// core keeps in memory.
	DefaultWaitingWindow = 64
	// DefaultWorkers is how many effects the driver performs at once.
	DefaultWorkers = 64
	// DefaultPollInterval is the head polling interval for chains without
	// push notifications.
	DefaultPollInterval = 500 * time.Millisecond
)
