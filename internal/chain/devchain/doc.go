// Package devchain is ordo's embedded base ledger: a deterministic simulated
// chain that runs in the node's process or standalone (`ordo devchain`) behind
// an HTTP API, and the oracle every other test audits against.
//
// It implements chain.Chain. Blocks are produced on a timer of the injected
// clock (Run) or on demand (Mine). Accounts hold ed25519 keys, balances and
// nonces; a mempool orders transactions by fee, then arrival; contracts are Go
// types registered by name. Fault knobs (reject, silent drop, revert, fee
// spike, stall, reorg) draw all their randomness from the seed.
//
// Built-in contracts:
//   - zkapp (ZkApp): small JSON accounts that change at most once per block;
//   - library (Library, seed 002): methods set to fail n times, with a
//     probability drawn from the transaction's hash (LibraryDraw), or until a
//     delay in blocks, to exercise a caller's retries; confirm emits a
//     CallbackConfirmation event; anyone may configure it (a dev tool);
//   - registry (Registry, seed 001): tool definitions (a name, a URL, the
//     JSON Schemas of input and output) that only their registrant changes
//     or removes, each change a ToolRegistered or ToolDeregistered event
//     with a version that never repeats for a name;
//   - workflow (Workflow, seed 001): an admin set once by init grants and
//     revokes leader caps; anyone requests a walk (an id, a tool, an input;
//     RequestWalkExecution); a holder of a cap submits its one result
//     (WalkResult; a second fails "already_reported");
//   - privacygroup (PrivacyGroup, seed 003): a committee of members with
//     ed25519 keys fixed at deploy; UTXO-style states, each spent at most
//     once; intents (txIds), each confirmed at most once, with endorsements
//     by at least the group's threshold of members over PrivacyDigest; an
//     IntentConfirmed event per confirmed intent (with the confirmed
//     PrivacyDigest);
//   - nodes (Nodes, issue 11): node id (NodeIDOf) -> ed25519 key, TLS
//     certificate fingerprint, endpoint; each change signed by the node's
//     own key with a growing seq (NodeRegistered / NodeDeregistered);
//   - replicasets (ReplicaSets, issue 12): per sequencer queue a primary and
//     up to 8 secondaries, node ids of nodes, at a version each update moves
//     on by one; update names the version it replaces and is signed by a
//     member's node key (ReplicaSetUpdated); update_many applies 1 to
//     MaxReplicaSetBatch such updates in order, each applied or refused on
//     its own (ReplicaSetUpdated or ReplicaSetRefused with update's reason);
//   - multicall (method all): several calls as one transaction, applied all
//     or none, whose reason names the failing call ("call <i>
//     (<contract>.<method>): <reason>"): an atomic batch;
//   - intents (Intents, issue 12): the intent nullifiers, written by the
//     chain itself: a successful transaction with a non-empty memo (the
//     sequencer's record uid) records memo -> {hash, height}; a later one
//     with that memo fails chain.ReasonDuplicateIntent whatever it calls,
//     without running; read with get {uid} (not_found when absent).
//
// Invariants:
//   - same seed, same configuration and the same inputs at the same virtual
//     times give the same blocks, byte for byte;
//   - an included transaction consumed its sender's nonce and paid its fee,
//     whether it succeeded or failed; a failed one changed nothing else but
//     the Exec.SetAlways writes of the calls that ran (library's failure
//     countdown), and emitted no event;
//   - among the successful transactions of the canonical chain no two carry
//     the same non-empty memo: an intent is applied at most once, and a
//     reorg or a replay of the log undoes or redoes its record with its
//     block;
//   - for each sender at most one transaction per nonce is ever included, and
//     nonces are included in order without gaps;
//   - a reorg of depth k restores the state exactly as it was k blocks ago and
//     returns the removed blocks' transactions to the mempool;
//   - with a data directory, every produced block is on disk (fsync) before
//     any reader can see it; a restart replays the log and loses only the
//     mempool and the fault settings; the replay runs every contract again,
//     failed transactions included (not those the revert fault failed), and
//     stops at a block whose outcomes or reasons come out otherwise;
//   - every record of the log carries its length and a CRC-32C: at start a
//     torn tail (a crash in the middle of an append) is truncated with a
//     warning naming the height kept, and any other damage stops the start
//     with a *CorruptLogError naming its offset; the chain never restarts
//     silently at another height.
package devchain
