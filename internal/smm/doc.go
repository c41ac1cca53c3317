// Package smm is the state machine manager (seed 004; issue 12): it keeps
// each sequencer queue's replica set (a primary and secondaries, recorded
// on chain in devchain's `replicasets`) in sync and healthy. Seed 004's
// "user" is a queue, its "clock" the queue's head in its replication log
// (internal/replog: a clock and a hash), its "content node endpoint → SP
// ID mapping" the nodes registry.
//
// Built so far: the decisions of its jobs, as pure functions of what
// monitoring gathered (core_decide.go), which the jobs on the kernel's job
// queue (internal/jobq) will run:
//   - FindSyncRequests (find-sync-requests): a secondary behind its primary,
//     or at its clock with another hash (a fork: the clock alone would miss
//     it), needs a sync, unless its daily budget of failed syncs is spent;
//   - FindReplicaSetUpdates (find-replica-set-updates): a member unhealthy
//     for longer than a bound needs replacing;
//   - PlanReplicaSetUpdate (issue-replica-set-update): an unhealthy primary
//     is replaced by the healthy secondary with the highest clock (ties to
//     the lowest node id), unhealthy members by healthy nodes outside the
//     set, least loaded first; no plan while the registry mapping is stale
//     and the set shrinks when candidates run out.
//
// Invariants: every decision is deterministic (inputs sorted, ties broken
// by node id); a plan never names a node twice, never keeps a member it
// replaces (only members not healthy now are replaced), keeps the set's
// size, never demotes a healthy primary, and never promotes a member that
// is behind another healthy member it keeps.
//
// Still to come: the replication write path, the jobs and their queues,
// the failover rule, the API, the simulation and the benchmark.
package smm
