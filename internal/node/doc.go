// Package node assembles an ordo node from its configuration: the store
// (SQLite), the chain (an in-process devchain or a remote one), the keystore,
// the sequencer with its dispatchers, and the HTTP API. `ordo serve`, `ordo
// demo` and `ordo bench sequencer` all start nodes through it.
//
// Invariants: a node never starts with an allowed type that has no
// dispatcher; every configuration field has a documented default; dev senders'
// keys are created once and kept in the data directory, so a restarted node
// signs with the same accounts.
package node
