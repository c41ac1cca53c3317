// Package distseq is the distributed sequencer of seed 003
// (../shared/seeds/003_ef389dbd47435fa9.txt, "Distributed Sequencer
// Protocol"): the nodes of a privacy group's committee agree on one
// coordinator per contract per range of blocks without an election, senders
// delegate their transactions to it, and it assembles them (many per block,
// each spending the outputs of those before it), gathers endorsements, asks
// each sender for leave to dispatch and dispatches, with heartbeats,
// failover, startup notifications and the assured distribution of the
// states a confirmed transaction creates (issue 10).
//
// # Shape
//
// One Core per node holds every role the node plays for every contract
// (sender, coordinator, endorser, submitter). It is sans-I/O
// (docs/ARCHITECTURE.md, the engine shape; the lint rule engine-core keeps
// core*.go to pure packages): Step(Input) returns a Ready its driver carries
// out in order — commit Ready.Batch (store.DistseqStore), then send
// Ready.Sends over a transport.Transport, perform Ready.Effects (load a
// contract's states; dispatch through the node's submitter) and deliver
// Ready.Replies. Time comes in InputTick; ids from a counter and the
// incarnation InputStart names; the coordinator's domain context and the
// token domain (package token) are pure functions. A Tracer records a run
// and Replay checks it (engine "distseq" of internal/trace).
//
// Node (node.go) is the production driver: one goroutine steps inputs
// from a mailbox (the transport's handler, the indexer's events, the
// submitter's outcomes, Submit) and a tick; it commits each batch, then
// sends, performs (a load answered at once; a dispatch to the Submitter,
// the node's sequencer) and replies. The cluster package drives cores the
// same way on a virtual clock.
//
// Where each part of the seed lives:
//   - core_ring.go: "Coordinator selection" (the hash ring with virtual
//     nodes, floor(b/n) and the contract address hashed together).
//   - core_sender.go: "Senders transaction state" (Pending, Delegating,
//     Delegated, Assembling, Prepared, Dispatched, Confirmed, Reverted,
//     Parked), "Handle transaction", "Select coordinator", the delegation
//     handshake and its rejections, OnAssembleRequest, the dispatch
//     confirmation (granted to the active delegation only), the sender's
//     timers (delegation timeout, missing heartbeats, submitter
//     heartbeats, a dispatch DispatchRanges ranges late, parking; the
//     liveness rules of docs/distseq.md); core_park.go: when a parked
//     transaction may revert (no granted dispatch can still land).
//   - core_coord.go: "Coordinators transaction state" (Queued, Assembling,
//     Attestation, Confirmation, Dispatched; Abandoned when it leaves),
//     OnDelegationCommand, "Coordinate transaction" (one assembly at a
//     time against the domain context: confirmed states no assembled
//     transaction spends, then the outputs of assembled ones), the graph
//     of dependants, switchover at a range boundary.
//   - core_assemble.go: the assembly slots and offers of "Coordinate
//     transaction" (which transaction assembles next, against which
//     states) and the coordinator's side of the assemble Request.
//   - core_endorse.go: "Transaction endorsement" and "Gather endorsements";
//     the endorser's check that the requester is the coordinator it would
//     select for its own block range; core_endorsed.go: the endorser's
//     record of the outputs it endorsed, which judges speculative inputs.
//   - core_heartbeat.go: coordinator heartbeats, "Startup", and the decision
//     "When to send heartbeat messages".
//   - core_submit.go: the submitter ("Syncpoint on submission"), submitter
//     heartbeats, TransactionReverted, and "Assured delivery data
//     distribution".
//   - core_assured.go: the patterns ReliableNotification, Command and
//     Request (resend every RetryInterval with a new message id and the same
//     idempotency id; answers are idempotent on both sides).
//
// # Persistence
//
// Only where the seed puts it: the sender commits the intent before it
// answers (1S-2S), and ordo adds the spends of each dispatch it grants
// (committed before the grant, so that a park after a restart still knows
// what may land); the coordinator commits the dispatch before it
// dispatches (1C-2C), and the submitter owns it from then on; a
// distribution is committed by its sender before the first send and by its
// receiver before the acknowledgement. The rest (delegations, assemblies,
// endorsements) is memory: a restart re-delegates every pending intent, and
// re-delegation is idempotent at the coordinator.
//
// # External submission
//
// An intent submitted with Prepare (ptx_prepareTransaction, Paladin's
// external submission) is delegated with prepare_only. Its coordinator
// assembles and endorses it as any other, then puts the prepared
// transaction (the domain's call and its assembly) in
// RequestDispatchConfirmation; the sender commits it (the intent record's
// Prepared) before it grants, and the caller reads it there. Granted, the
// coordinator's submitter holds that copy as dispatched, never sending it,
// until the chain confirms the intent; no other assembly spends its
// outputs meanwhile (its caller may never send it). When the chain confirms
// the assembly the sender holds, the sender distributes what it created as
// well as the submitter (the same distribution ids). Once a state it
// spends is no longer held, confirmed or speculative (another confirmed
// transaction spent it, or its creator reverted), it can never land, and
// nobody sees it revert: at the next tick its submitter gives it up as it
// would a revert (TransactionReverted), and the sender has it prepared
// again.
//
// # Base ledgers
//
// The core names no signature scheme and no chain. CoreConfig.Scheme
// signs and checks assemblies and endorsements (nil: Ed25519Scheme over
// the identity key, devchain's privacygroup); the Domain's Digest and
// Confirm are the base ledger's encoding (token.Domain.Ledger); the
// Indexer's Decode reads its events (nil: DecodeEvent, devchain's). The
// node's wiring picks them from its chain: on an EVM chain, package
// evmledger's (secp256k1 over PrivacyGroup's EIP-712 digest).
//
// # Reorgs
//
// The seed leaves them open. ordo's indexers hand the core final blocks
// only (the chain's declared reorg depth deep): heights, confirmations and
// spends never move backwards in the core. A dispatched transaction that a
// reorg knocks out of a non-final block goes back to the mempool and lands
// again, or reverts (its states spent meanwhile), which sends it back to
// the protocol for re-assembly.
//
// # Invariants
//
//   - a sender's Confirmed or Reverted is final: the transaction leaves the
//     core's memory, its record is final in the store, and nothing changes
//     it again;
//   - a sender grants a dispatch only to its active delegation, so at most
//     one coordinator at a time may dispatch a transaction by its leave (the
//     base ledger's at-most-once rule covers the rest);
//   - a coordinator's graph is consistent (CheckInvariants): every state an
//     assembled transaction spends is locked by it alone, every
//     speculative output belongs to a transaction in the graph, a
//     transaction is dispatched only after every transaction whose outputs
//     it spends, and the assemblies in flight (at most MaxAssembling) are
//     offered disjoint states, so no two of them spend one state;
//   - an endorsement error, a refused dispatch or a base-ledger revert takes
//     the transaction and everything assembled on its outputs out of the
//     graph, and they are assembled again (never dispatched stale);
//   - a confirm of another coordinator's copy of an intent (its sender
//     re-delegated it) frees only the locks of this coordinator's copy, not
//     the states the event spent: whoever in the graph locks one of those
//     is assembled again, and so is everything assembled on the copy's
//     outputs, which never land (its outputs are held only when the
//     confirmed digest is its own assembly's);
//   - the states a node holds are those its store keeps unspent: a
//     received distribution is held once read back from the store after
//     its commit, so a state this node's indexer saw spent before its
//     distribution arrived is never offered again (docs/distseq.md);
//   - an idempotency key names one intent: a submit asking for another
//     intent with it is refused (ErrKeyConflict), never answered the
//     other's id;
//   - a prepare-only transaction is never handed to a Submitter, and its
//     outputs are never offered to another assembly before it is confirmed;
//   - a contract with nothing in flight releases its in-memory state after
//     IdleAfter and sends nothing: an idle contract costs its group record;
//   - an endorser signs an assembly only after Domain.CheckEndorsement
//     accepted its inputs, judged on its own copy of each state it holds,
//     and for a speculative output it does not hold on the copy it
//     endorsed the creation of (core_endorsed.go; the coordinator's copy
//     in the request's inputStates must agree, and is never taken alone:
//     an input it neither holds nor endorsed the creation of is not
//     answered until it holds it), and only once its states are loaded;
//     its record of endorsed outputs is bounded by EndorsedMemory per
//     contract and holds no state it holds; the coordinator offers an
//     intent only the states Domain.Usable lets it spend (the token
//     domain: its from's coins);
//   - a transaction parked until ParkTimeout is reverted with the domain's
//     reason for the park (the token domain: insufficient_funds), and only
//     once no dispatch its sender granted can still land: the spends of
//     every granted assembly, and their creators, are committed with the
//     intent before the grant goes out, and one is dropped only when the
//     sender's store shows one of its states spent by another transaction
//     or its creator confirmed without it (core_park.go);
//   - a domain names a created state by its content (the token domain:
//     "<txId>.<n>.<hash>"): two assemblies of one transaction with other
//     outputs never share a state id, so nothing assembled on one of them
//     can spend the other's;
//   - the Core is deterministic: the same inputs give the same Readys.
//
// Where ordo departs from or completes the seed: docs/distseq.md,
// "Decisions (seed 003)".
package distseq
