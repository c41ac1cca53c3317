// Package crash holds the process-level crash tests. Each runs `ordo
// devchain` and `ordo serve` as separate processes, kills the node with
// SIGKILL at random points under load, restarts it on the same data
// directory and audits the outcome against the chain. The package has no
// code of its own.
//
// The sequencer's (crash_test.go): devchain with its reject, drop and revert
// fault knobs on, intents under load (once right after intents were
// committed whose answers were never read); the audit finds double
// applies, lost intents, FIFO violations and two transactions of one queue
// in one block.
//
// The processor's (processor_*_test.go): two processors (one auto-ticked)
// owned by one principal, atomic and non-atomic batches against library
// methods set to fail n times or with a probability, confirmations by the
// owner and by a chain event, expirations and owner removals, access checks
// (another principal 403, a stranger 401, nothing changed), ticks from
// several goroutines, a webhook receiver (not ordo) that refuses one
// delivery in five and holds some answers past a kill; kills land during
// ticks, during deliveries and right after restarts. The audit: one
// callback per batch under its key, all delivered, every delivery of a key
// the same outcome; outcomes as the configured failures imply; from the
// chain, no execution id included twice and no unit with more attempts
// than its RetryLogic allows or more than one success.
//
// The processor's on an EVM chain (processor_evm_crash_test.go): `ordo
// evmdev` or a real `geth --dev` (skipped when no geth binary is found) as
// a process, the Library contract's methods set to fail hard (a revert:
// atomic batches rejected, non-atomic ones partly executed) or soft (a
// CallbackConfirmation of false, read from the chain's logs), one
// auto-ticked processor, the node killed -9 three times while executions
// are in flight. The audit reads the chain over plain JSON-RPC (every
// router transaction's calls and outcome, Library's counts): each batch's
// outcome and its count of executions match what the chain holds, no memo
// is applied twice and no intent conflicts.
//
// The leader's (leader_*_test.go): three tools served by the test, not by
// ordo (one right, one slow past the timeout or answering 503, one lying
// about its output schema or answering 403) and inputs off schema; walks
// requested from dev accounts while the node (its leader holding three caps
// on two accounts) is SIGKILLed during tool calls and with results in
// flight. The audit: one request and exactly one result per walk on chain,
// sent by a cap holder, ok exactly when the tool's last answer was right,
// the failure naming why, and every walk listed once by the node,
// Successful or Dead with a reason.
//
// ORDO_CRASH_SEED=<n> replays a run's plan, kill schedule and load pacing.
package crash
