// Package chaintest is the behaviour suite of devchain: Run drives any
// DevChain handle (in-process *devchain.Chain, or the HTTP client) through the
// devchain specification using only the DevChain methods, so one suite proves
// both.
//
// It checks the devchain issue's specification: nonce and replacement rules,
// fee accounting, ordering by fee then arrival, zkapp's one change per block,
// the library contract's configured failures and the multicall transaction's
// all or nothing (issue 8), the registry and workflow contracts of the
// leader (issue 9), the privacygroup contract of the distributed
// sequencer (issue 10), the nodes registry (issue 11), the memo as an
// intent nullifier (issue 12: duplicate_intent, the intents read), every
// fault knob, determinism from a seed, restart from a data directory.
// RunConformance (conform.go) is the smaller suite of what every chain
// behind the seam shares (issue 25): nonces, replacement, duplicate intent,
// atomic batch, reorg re-inclusion with final events. It runs on devchain
// here (conform_test.go) and on the EVM backend in package evm, through
// the seam, the chain's Signer and GasEstimator, and a few hooks
// (Conformer).
// Invariants: the suite uses only DevChain methods (so it runs over HTTP too)
// and virtual time (so it never waits on the wall clock).
package chaintest
