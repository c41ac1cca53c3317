// Package evmaudit reads what the OrdoRouter did on an EVM chain over plain
// JSON-RPC (blocks and receipts through go-ethereum's ethclient), for the
// tests that audit an engine's run from the chain and not from ordo: the
// processor's and the leader's end-to-end tests on evmdev (internal/node)
// and their kill -9 tests on evmdev and geth --dev (test/crash).
// LibraryOutcomes counts the processor's Library calls; WorkflowTxs lists
// the workflow's requests and results (sent directly or through the
// router) with their outcomes.
//
// Invariants: it only reads; every router transaction up to the head is
// counted once, under the outcome its receipt shows (a router event, or
// "reverted" for a failed receipt, which the router's events cannot show);
// a memo applied twice and an IntentConflict are reported as problems.
package evmaudit
