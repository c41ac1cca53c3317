// Package smm is the state machine manager (seed 004; issue 12): it keeps
// each sequencer queue's replica set (a primary and secondaries, recorded
// on chain in devchain's `replicasets`) in sync and healthy. Seed 004's
// "user" is a queue, its "clock" the queue's head in its replication log
// (internal/replog: a clock and a hash), its "content node endpoint → SP
// ID mapping" the nodes registry.
//
// The core (core*.go) is sans-I/O, on internal/engine's contract in its
// synchronous variant: the driver steps it under one mutex and performs
// its Ready outside it (step.go). It holds what this node knows of the
// others (each peer's health, a typed sub-state: unknown, healthy,
// unhealthy since the request it first left unanswered), the losses still
// to plan for, what monitoring last saw of each queue, the failed-sync
// budgets, the mapping's age and monitoring's cycle, and per queue the set
// held, this node's role (a typed sub-state: none, secondary, primary not
// adopted, adopted, deposed) and the clocks its secondaries acknowledged.
// Its inputs: Answered (a request answered or not), Monitored (a slice
// gathered), FindSyncs, Plan, LossDue, LossDone, Mapped, SyncFailed,
// LossNotQueued, SetHeld (a set read from the chain, before it is held),
// Adopted, Acked, and Asked (a push, sync or pull from another node,
// admitted, refused, or first read from the chain: core_serve.go); its
// effects: EffectLost (end the requests waiting on a node), EffectInsert
// (a job on one of the four lanes), EffectGate (close a deposed primary's
// dispatch, open an adopted one's) and EffectAcked (wake intake waiting
// for acknowledgements); its Reply answers the step. Its decisions are
// pure functions of what monitoring gathered (core_decide.go):
//   - FindSyncRequests (find-sync-requests): a secondary behind its primary,
//     or at its clock with another hash (a fork: the clock alone would miss
//     it), needs a sync, unless its daily budget of failed syncs is spent;
//   - FindReplicaSetUpdates (find-replica-set-updates): a member unhealthy
//     for longer than a bound needs replacing;
//   - PlanReplicaSetUpdate (issue-replica-set-update): an unhealthy primary
//     is replaced by the most up-to-date healthy secondary (its last
//     entry's version, then its clock; ties to the lowest node id), unhealthy members by healthy nodes outside the
//     set, least loaded first; no plan while the registry mapping is
//     stale, while a member is unanswered but not yet replaceable, or
//     when fewer than a majority of the set answer; the set shrinks when
//     candidates run out;
//   - PlanGrow: a set that shrank grows back, least loaded first.
//
// Invariants of the core (CheckInvariants): this node is never found
// unhealthy; an unhealthy peer has the time it stopped answering, a
// healthy one none; a loss being planned names a node asked before and
// never this node; what monitoring saw of a queue names its set's members
// only; acknowledgements are kept only for queues this node is or was the
// primary of, never from itself; an older request's timeout never marks a
// node that answered a later one; a node is lost (EffectLost, a loss's job) once per time it
// stops answering. Every decision is deterministic (inputs sorted, ties
// broken by node id); a plan never names a node twice, never keeps a
// member it replaces (only members not healthy now are replaced), keeps
// the set's size, never demotes a healthy primary, and never promotes a
// member that is behind another healthy member it keeps. A run traced
// with NodeConfig.Trace replays (Replay, `ordo replay`).
//
// The driver (Node; every other file) does the I/O around them:
//   - intake (intake.go): each intent goes to its queue's primary — this
//     node, or another reached over the node transport with the caller's
//     principal (rpc.go: requests and responses of proto/ordo/smm/v1 as
//     `smm.*` messages, served by a fixed pool of workers); a queue with no
//     set gets one on chain, this node its primary (sets.go); the primary
//     commits (the store logs the entry in the same transaction), queues a
//     manual sync of each secondary and acknowledges, after AckAfter
//     secondaries hold the entry;
//   - replication (serve.go, reconcile.go): pushes by the primary, pulls by
//     a secondary asked to sync, heads for monitoring; a secondary applies
//     entries only through the store's AppendLog (replog.Extend) or, when
//     diverged, ResetLog from its primary's whole log;
//   - the seed's jobs on the kernel's job queue (jobs.go, reconcile.go) in
//     its four queues: monitoring, recurring-sync, manual-sync,
//     replica-set-update (the periodic mapping refresh runs on
//     monitoring's, not behind the updates that need it fresh);
//   - adoption (adopt.go): a node that becomes a queue's primary makes the
//     queue's records from its log, the chain asked first for every intent
//     the log does not show final (by the queue's next job or intake);
//   - failover from a loss (failover.go): a node found unanswered by any
//     request has every queue whose set names it planned by one job due
//     unhealthyAfter later, the failovers this node signs put on chain by
//     it in batches (replicasets.update_many); probe-node asks nodes found
//     unhealthy, named by a set or not, so that shrunk sets grow back;
//   - the chain's replica-set contract is read and written through a
//     SetsBinding (chainsets.go): devchain's replicasets (DevchainSets, an
//     update signed by the node's ed25519 key) or ReplicaSets on an EVM
//     chain (EVMSets, an update sent from the account the NodeRegistry
//     binds to the node); applied intents are asked of the chain's
//     `intents` read, which the EVM backend answers from its router.
//
// Invariants of the driver: a node accepts pushes and sync requests only
// from the primary of the newest set it knows, and refuses a sender whose
// version is older; intake of a queue this node is primary of is
// committed only after the queue is adopted (adopted intents keep their
// order ahead of new ones); a replica-set update is signed by the member
// the plan names (the primary, or the secondary it promotes) and names
// the version it replaces; an intent is acknowledged with AckAfter > 0 only
// once that many of the set's current secondaries answered a head at or
// past its entry; a node found unhealthy is asked by no monitoring,
// planning or adoption request but probe-node's, a node never finds
// itself unhealthy, and a forward waiting on a primary ends when the
// primary is found unhealthy; a node takes a queue on as its primary only after a
// majority of the set answered it and its log caught up with the most
// advanced of them, and it never syncs a secondary ahead of it down to its
// shorter head (it catches up from it instead).
package smm
