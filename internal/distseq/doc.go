// Package distseq is the distributed sequencer of seed 003
// (../shared/seeds/003_ef389dbd47435fa9.txt, "Distributed Sequencer
// Protocol"): the nodes of a privacy group's committee agree on one
// coordinator per contract per range of blocks without an election, senders
// delegate their transactions to it, and it assembles, gathers endorsements
// and dispatches them through the node's sequencer, with heartbeats,
// failover, startup notifications and data distribution (issue 10). It will
// take the engine shape of docs/ARCHITECTURE.md: a sans-I/O core in
// core*.go (standard library, internal/store and internal/chain only, as the
// lint rule engine-core enforces) and a driver around it.
//
// Built so far: coordinator selection (seed 003, "Coordinator selection",
// and the sub process "Select coordinator"), in core_ring.go. A Ring places
// each committee member at DefaultVirtualNodes points (the hash of the
// member's id and i); a range of n blocks has index floor(b/n) (RangeOf),
// and its point is the hash of (contract address, floor(b/n)). Preference
// lists the available members by the distance from that point to their
// nearest point, in either direction around the ring: the first is the
// coordinator, the rest the fallbacks in order.
//
// Invariants of the selector:
//   - it is a pure function of the committee as a set, the contract
//     address, floor(b/n), the unavailable set and the options: no clock, no
//     randomness, no map order, so every node with the same view computes
//     the same list, and every block of a range gives the same list;
//   - the list holds each available member exactly once, and no unavailable
//     one (with none unavailable it is a permutation of the committee);
//   - marking a member unavailable removes it and keeps the others' order:
//     the next closest takes over, as the seed's availability walkthrough
//     has it;
//   - over many ranges and contracts each member is chosen in proportion to
//     its share of the ring, which virtual nodes keep close to 1/m.
//
// Where ordo departs from the seed (README, "Decisions (seed 003)"): the
// point hashes the contract address with floor(b/n), so that the contracts
// of one committee do not all move to the same coordinator at the same
// block.
package distseq
