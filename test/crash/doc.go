// Package crash holds the sequencer's crash test: it runs `ordo devchain`
// (with its reject, drop and revert fault knobs on) and `ordo serve` as
// separate processes, kills the node with SIGKILL at random points while it
// is under load (once right after intents were committed whose answers were
// never read), restarts it on the same data directory, and audits the chain
// for double applies, lost intents, FIFO violations and two transactions of
// one queue in one block. The package has no code of its own; see
// crash_test.go.
//
// ORDO_CRASH_SEED=<n> replays a run's kill schedule and load pacing.
package crash
