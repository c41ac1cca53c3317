// Package evmaudit reads what the OrdoRouter did on an EVM chain over plain
// JSON-RPC (blocks and receipts through go-ethereum's ethclient), for the
// tests that audit an engine's run from the chain and not from ordo: the
// processor's end-to-end test on evmdev (internal/node) and its kill -9
// test on evmdev and geth --dev (test/crash).
//
// Invariants: it only reads; every router transaction up to the head is
// counted once, under the outcome its receipt shows (a router event, or
// "reverted" for a failed receipt, which the router's events cannot show);
// a memo applied twice and an IntentConflict are reported as problems.
package evmaudit
