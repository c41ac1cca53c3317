// Package node assembles an ordo node from its configuration: the store
// (SQLite, or PostgreSQL with store.url), the chain (an in-process devchain or a remote one), the keystore,
// the sequencer with its dispatchers, and the HTTP API. `ordo serve`, `ordo
// demo` and `ordo bench sequencer` all start nodes through it.
//
// Invariants: a node never starts with an allowed type that has no
// dispatcher; every configuration field has a documented default; dev senders'
// keys are created once and kept in the data directory, so a restarted node
// signs with the same accounts. On a PostgreSQL store several nodes share
// the database (leases.go): a node processes only the queues, uses only the
// senders and runs only the engines whose leases it holds (the sequencer's
// Owner), every sequencer batch carries the fence of those leases, and
// nothing is sent to the chain once they may have lapsed; an engine that
// lost its lease stops, and the processor and the leader stand by for it
// again (run again, built from the store, when it is held); replica sets
// (replication) are refused there.
//
// A store belongs to one chain (startup.go): the first node to reach its
// chain records the chain's identity in the store, and a node whose chain
// is another never runs its engines or its lease keeper; a PostgreSQL
// store with an in-process devchain is refused. The engines run only once
// the chain has answered: a node starts without its chain (intake works),
// and with leader.accounts the leader's channels are read from the
// chain's caps and set as the sequencer's pins and the leader's channels
// before either runs (a core reads them when it is built). A full store
// (store.ErrStorageFull) stops no engine for good: the sequencer waits
// and loads again, the processor and the leader run again from the store.
// On an EVM chain (evm:) the leader reads the workflow and the registry
// through leader_evm.go, which gives their reads devchain's shapes.
//
// The lease holder id is kept in the data
// directory (holder.go): a node restarted on it ends its previous run's
// leases and takes them again at once, each with a higher token, before
// its engines load.
package node
