// Package cluster runs a committee of distributed-sequencer nodes (seed
// 003) in one process: N cores (package distseq), each with its own store
// (memstore, kept across a crash), one in-memory network (simnet) and one
// devchain with the privacygroup contract and the token domain, all in one
// goroutine on one virtual clock. It is the world of the scenario tests,
// `ordo sim distseq` and `ordo bench distseq`.
//
// Each node's driver is the engine's contract made concrete: Step, commit
// the batch, then send, perform effects (a load answered before the next
// input; a dispatch into the node's own sequencer, whose nonce-ordered
// pipeline fills any gap a dropped transaction leaves) and reply. Each node's indexer
// reads the chain's final blocks only (FinalityDepth deep), Lag blocks
// behind the head, and can be held to make a node fall behind.
//
// Invariants of the harness: the same Config (Seed included) and the same
// calls give the same run; a crash keeps exactly what the node's store
// committed; the network never reorders or loses a message unless its
// faults say so.
package cluster
