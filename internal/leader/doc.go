// Package leader is the leader engine (seed 001): it listens for the
// workflow's RequestWalkExecution events, indexes each request in the store
// (the seed's Indexer: id, digest, json, retried, error, status), runs the
// requested tool with its input and output checked against the registry's
// JSON Schemas, and reports each result to the workflow over one of N
// channels, N being the leader caps it holds.
//
// # The seed, in ordo
//
//   - Listener: the kernel's chain-event listener reads events after the
//     persisted cursor; a page's requests are indexed Queued and the cursor
//     moves in the same store transaction, so no event is lost or indexed
//     twice across crashes (the seed's Redis edge case cannot happen). A
//     walk is indexed once, whatever cursor a reorg brings it back under.
//   - The high-integrity channel is on the store: a request is saved, then
//     sent to the execution engine's run queue while it has room
//     (Capacity; the queue is refilled from the saved ones, oldest first, as
//     room frees: it has room only when no Queued request waits outside
//     it, so a burst past Capacity drains at the engine's pace); receiving moves it to the active set (Active, phase
//     invoke); ack is its result, nack puts it back to Queued with retried+1.
//     The retrier picks a random Queued request not in the run queue and
//     resends it, or, past MaxRetries, drops it to Dead with a failure
//     result; the sweeper puts back to Queued an Active request whose
//     execution no longer runs (its node restarted).
//   - Execution: the tool's definition from the registry (cached,
//     invalidated by the registry's events), the input from the workflow,
//     both checked against the tool's schemas; the tool invoked over HTTP
//     (internal/tool). Success → a result; timeout, 5xx, connection refused
//     → retriable; 4xx or a schema violation → a failure result (Dead).
//   - Channels: each result is a `submitResult` contract call through the
//     sequencer on the queue leader/<channel>, pinned to the account that
//     holds the channel's cap. A result transaction that fails on chain
//     blocks its channel for BlockFor (24h) and goes over another; an
//     already_reported failure is checked first: if the recorded result is
//     ours (a resend after a crash), nothing is blocked.
//   - Chains: the engine reads devchain's shapes of the workflow's and the
//     registry's reads. On an EVM chain (Workflow.sol, ToolRegistry.sol)
//     the node's wiring reshapes those reads and gives Config.ResultArgs
//     submitResult's four arguments; the engine is the same.
//   - Stale disposal: an Active request older than StaleAfter whose tool
//     has given no result ends Dead with a failure result (a result waiting
//     for a blocked channel keeps its place).
//
// # Invariants
//
//   - A request in flight is in exactly one place: Queued (in the run queue
//     or saved for the retrier), Active invoke (running, or awaiting the
//     sweeper), Active report (in the channels' line once), Active sent (its
//     result transaction known by its sequencer record).
//   - Each result transaction has its own idempotency key (ResultKey: walk,
//     count), so a resubmission after a crash answers the same record and
//     a resend after a failure is a new transaction; the workflow accepts
//     one result per walk, so none gets two results on chain.
//   - At most MaxActive executions run; the run queue holds at most
//     Capacity requests.
package leader
