// Package sim runs deterministic simulations of ordo's engines (`ordo sim
// <engine>`): random inputs, faults and crashes drawn from a seed, on a
// virtual clock, with the engine's invariants checked after every step.
//
// The sequencer simulation (seed 000) drives the real sequencer: its Core and
// its driver's own Loop (sequencer.Config.Inline: effects performed in order
// by the loop, no worker pool; record ids from a seeded Config.Rand) over a real
// SQLite store, against an in-process devchain on the same virtual clock. A
// crash drops the node's memory and reopens its store; the chain lives on,
// as a separate process would.
//
// Beside the actions, one status check in ten cannot reach the chain (until
// the faults stop), and the retry delay outlasts the confirmations' blocks.
//
// A run is a list of Actions generated from the seed alone (not from the
// state), so that a failing list can be shrunk by deleting actions and
// running again.
//
// Invariants checked after every step (see seqcheck.go):
//   - the core's own invariants (sequencer.Core.CheckInvariants);
//   - exactly once: no record's intent succeeds on the canonical chain more
//     than once; a DONE record's succeeds exactly once, and stays so;
//   - FIFO per queue: the intents of one queue succeed on chain in the order
//     they were acknowledged;
//   - one per queue per block: no block includes two transactions of one
//     queue;
//   - nothing acknowledged is lost: after every crash the store holds every
//     acknowledged record;
//   - nothing FAILED that could still land: a FAILED record never succeeds
//     on chain, then or later (checked again after the drain);
//   - DONE and FAILED are final: a record ends once;
//   - liveness: once faults stop, every record ends DONE or FAILED within
//     DrainBound of virtual time (by default a minute plus, per intent open
//     on the longest queue, its worst case: every attempt taking its delay,
//     its inclusion timeout and its confirmations).
//
// The same seed and flags give the same digest.
package sim
