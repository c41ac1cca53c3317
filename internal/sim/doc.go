// Package sim runs deterministic simulations of ordo's engines (`ordo sim
// <engine>`): random inputs, faults and crashes drawn from a seed, on a
// virtual clock, with the engine's invariants checked after every step.
//
// The sequencer simulation (seed 000) drives the real sequencer: its Core and
// its driver's own Loop (sequencer.Config.Inline: effects performed in order
// by the loop, no worker pool; record ids from a seeded Config.Rand) over a real
// SQLite store, against an in-process devchain on the same virtual clock. A
// crash drops the node's memory and reopens its store; the chain lives on,
// as a separate process would.
//
// Beside the actions, one status check in ten cannot reach the chain (until
// the faults stop), and the retry delay outlasts the confirmations' blocks.
//
// A run is a list of Actions generated from the seed alone (not from the
// state), so that a failing list can be shrunk by deleting actions and
// running again.
//
// Invariants checked after every step (see seqcheck.go):
//   - the core's own invariants (sequencer.Core.CheckInvariants);
//   - exactly once: no record's intent succeeds on the canonical chain more
//     than once; a DONE record's succeeds exactly once, and stays so;
//   - FIFO per queue: the intents of one queue succeed on chain in the order
//     they were acknowledged;
//   - one per queue per block: no block includes two transactions of one
//     queue;
//   - nothing acknowledged is lost: after every crash the store holds every
//     acknowledged record;
//   - nothing FAILED that could still land: a FAILED record never succeeds
//     on chain, then or later (checked again after the drain);
//   - DONE and FAILED are final: a record ends once;
//   - liveness: once faults stop, every record ends DONE or FAILED within
//     DrainBound of virtual time (by default a minute plus, per intent open
//     on the longest queue, its worst case: every attempt taking its delay,
//     its inclusion timeout and its confirmations);
//   - hooks report: after the drain, no ended record waits for its hook's
//     result (store.PendingHooks is empty), whether the hooks run as
//     effects or on the loop (SequencerConfig.PureHooks).
//
// The same seed and flags give the same digest.
//
// The processor simulation (seed 002, proc*.go) drives the real processor
// and the real sequencer (processor.SubmitType dispatched by a
// CallDispatcher without retries) over one SQLite store, both Loops turned
// by hand with Inline, against devchain's library contract; the chain-event
// listener is polled by hand and callbacks go to an in-memory receiver that
// refuses one delivery in five. Actions: processors (with or without a
// callback URL or an auto-ticker), atomic and non-atomic batches (retries,
// confirmations, positions, expirations), library methods failing n times,
// with a probability or until a delay, ticks, pauses, resumes, removals,
// confirmations by the owner and by library.confirm transactions, time and
// blocks, and crashes of both engines (also after a turn's commit with only
// some of its effects performed). Invariants (proccheck.go), after every
// action: both cores' CheckInvariants; each batch at most one outcome, under
// exactly CallbackKey, no key reused; a delivery names an ended batch with
// the store's outcome; a manual tick takes Medium only when High is empty;
// no execution lands twice, no attempt beyond RetryLogic, a Rejected or
// PartiallyExecuted unit made exactly its allowed attempts, Executed only
// when every unit succeeded on chain; a confirmation carried by a final
// chain event is taken; and, in a drain without faults, every batch ends
// and every callback of a processor with a URL is delivered.
//
// The leader simulation (seed 001, lead*.go) drives the real leader and
// sequencer over one store against devchain's workflow and registry: the
// leader's listener polled by hand, its channels' queues pinned to the
// accounts holding its caps, tools behind an in-process transport whose
// behaviour per call comes from the seed (correct, slow, 5xx, 4xx, a lie
// about the output schema), reorgs, a rival leader, chain faults on results,
// crashes (also mid-turn). Invariants (leadcheck.go), after every action:
// the leader core's CheckInvariants; no request lost; no walk with two of
// our results on chain; Successful only with our ok result on chain, Dead
// only with the reason of our failure result; and, in a drain, every
// request ends with a result on chain. lead_crash_test.go crashes at each
// step of a request's life.
//
// The distributed-sequencer simulation (seed 003, dist*.go) drives the
// distseq cluster: N real cores, each with its store, on the in-memory
// network and one devchain, on one virtual clock. Actions: intents at random
// members on random active contracts (some with an idempotency key used
// again), network drops, duplicates, delays and reorders, partitions and
// heals, crashes (also at the crash points before and after a commit: 1S/1C
// and 2S/2C) and restarts, indexer lag and holds, chain drops, reverts and
// reorgs; then a quiet phase without faults. Reorgs: the protocol acts on
// final blocks only. Every indexer (and the checker) reads blocks at least
// FinalityDepth deep and the reorgs drawn are at most that deep, so nothing
// the nodes acted on is taken back; a dispatched transaction knocked out of
// the chain by a reorg returns to the mempool and lands again or reverts
// (a revert goes back to the protocol for re-assembly). Invariants
// (distcheck.go), after every action: no intent confirmed twice and no
// state spent twice (nor a state spent that was never minted or created)
// on chain; every state an intent confirmed on chain spent belonged, on
// chain, to the intent's from, an owner of its sender node (owner-spends;
// intents go from the sender's owner, cluster.Owner, to the next
// member's); an acknowledged intent is kept by its sender; a sender's final
// state (in its transitions and in its store) never changes; a node's view
// of the chain never moves back while it is up, nor its store's cursor
// ever; an intent Confirmed at its sender is confirmed on chain, one
// Reverted never is; a Step that does not return within StepTimeout of
// wall time is reported stuck. Liveness: once the faults stop, within
// DrainBound (DefaultDistDrainBound: two minutes of virtual time), every
// acknowledged intent ends Confirmed or Reverted, every intent confirmed on
// chain ends Confirmed at its sender, and every member holds every state
// unspent on chain (minted + created - spent) of every group.
//
// The state machine manager's simulation (seed 004, issues 12 and 26,
// smm*.go) runs the real internal/smm Nodes, core and driver, as the
// distributed sequencer's runs real cores: N nodes in one process, each
// with its SQLite store, its ed25519 key registered in one in-process
// devchain's nodes contract, a sequencer of the simulation's (its records
// in the node's store; a replica-set update sent to the chain and mined
// at once, a queue's intent when a dispatch action sends it, its uid the
// memo the chain's nullifier keys on), on one virtual clock. One
// goroutine drives them (smmreal.go, smmtask.go): driver code runs only
// in tasks (a job's run, an intake), one at a time, each waited for until
// it ends or parks on the clock (an intake waiting for its ack, a
// recurring sync polling), whose timer the simulation fires as it moves
// the clock; a request is served in the caller's goroutine (smm's
// SimServe), and fails at once on a link that is down (a node down, a
// partition, a drop). Each job queue hands every job back
// (SimDeferJobs); a node's due jobs are run by its monitor and pull
// actions, by due time, then kind, unique key and arguments (RunJob).
// Actions (smmactions.go): intake at any node (the real Submit), jobs
// run, dispatch, the clock moved, drops, partitions, crashes with or
// without the disk, restarts. Invariants (smmrealcheck.go), after every
// action: each up node's core holds its CheckInvariants; every log a node
// holds is a hash chain of valid entries (no gap, no fork, versions never
// back); no intent applied twice on chain, each queue's applied in intake
// order; an acknowledged intent not applied is in some log while a node
// that held it keeps its disk. Quiet phase (DefaultSMMDrainBound, two
// minutes of virtual time; no faults, every node up, every node's due
// jobs run and every primary dispatching every half second): every set's
// members up, holding the chain's version, at the primary's head with
// equal hashes; every set full (min(Replicas, nodes): every node is up
// and healthy then); nothing WAITING at a primary; every acknowledged
// intent applied once (one all of whose holders lost their disk is
// excused: more failed than its ack allowed for). A deposed primary that
// has not read the set update still takes intake and dispatches: an
// acknowledged intent such a node took lost (deposed-lost), or two
// acknowledged intents out of order with one of them dispatched by it
// (deposed-order), are violations with AckAfter > 0; with AckAfter 0 they
// are the documented window of acknowledging before any secondary holds
// an intent, and an intent never acknowledged applied out of order is
// not promised any order: those are only counted on each seed's line.
// The digest is a SHA-256 over the chain's head (its hash covers every
// block) and every node's log heads and held sets at the end.
package sim
