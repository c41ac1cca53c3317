// Package crash holds the sequencer's crash test: it runs `ordo devchain`
// and `ordo serve` as separate processes, kills the node with SIGKILL at
// random points while it is under load, restarts it on the same data
// directory, and audits the chain for double applies, lost intents and FIFO
// violations. The package has no code of its own; see crash_test.go.
//
// ORDO_CRASH_SEED=<n> replays a run's kill schedule and load pacing.
package crash
