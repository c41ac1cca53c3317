// Package engine holds the contract every engine core keeps, written once
// here, and the kernel's driver loop shared by the engines whose callers
// wait for answers.
//
// # The core contract
//
// Each of the five engines (the sequencer, seed 000; the leader, 001; the
// processor, 002; the distributed sequencer, 003; the state machine
// manager, 004) keeps its logic in a sans-I/O core: the files
// internal/<engine>/core*.go, which lint keeps free of I/O, clock reads,
// randomness and goroutine coordination (docs/ARCHITECTURE.md, "The
// engine shape"). A core is driven through three calls, after etcd's raft
// (RawNode: Step, Ready, Advance):
//
//   - Step(Input): one input in. An Input is plain, JSON-tagged data: a
//     typed Kind with one constructor per kind, At (the driver's clock when
//     it stepped the input; the core's clock is the latest At and never
//     moves back) and the fields its kind names. Ids and random choices
//     arrive in inputs: a core draws none. Step panics on an unknown kind.
//   - Ready(): what the steps since the last Advance ask of the driver: a
//     store batch (writes committed in one transaction), effects (I/O to
//     perform: a send, a submit, a job to insert) and replies (answers to
//     inputs that carry a request number), in a deterministic order, never
//     a map's. HasReady reports whether Ready would carry anything.
//   - Advance(): the driver has done what the Ready taken asked; the core
//     forgets it.
//
// Every core also keeps: typed sub-states (uint8 types with named
// constants and a stringer-generated String; transitions through one
// function per target state), CheckInvariants (a walk of everything,
// returning what is broken; tests and simulations call it after each
// step), and a trace (internal/trace: the config and snapshot a core was
// built from, each input, each Ready's digest, each Advance) that
// `ordo replay` steps into a fresh core, checking every Ready. The same
// inputs give the same Readys, byte for byte.
//
// The driver's duties: step inputs in the order they happened, each
// stamped with its clock; take Ready; commit its batch (a failed commit
// retires the core: a new one is built from the store); call Advance;
// then perform the effects, never before their batch is committed, and
// step each result back. Three ways to keep them:
//
//   - the Loop below (the processor and the leader; the sequencer has its
//     own, which overlaps a commit with the next turn's steps): inputs
//     queued from any goroutine, turned from one;
//   - Step that returns its Ready (the distributed sequencer:
//     `Step(Input) (Ready, error)`): one input, its Ready at once, the
//     batch committed and the effects performed by the caller before the
//     next step; its cluster simulation runs a whole committee this way in
//     one goroutine;
//   - the synchronous step (the state machine manager): the driver's job
//     workers and request servers run on goroutines, and each steps the
//     core under one mutex (stamp, Step, Ready, Advance, trace), then
//     performs the effects outside it and reads the step's Reply. Its core
//     holds soft state only (who answers, what monitoring saw, the losses
//     to plan for): its Ready has no store batch; the job queue's inserts
//     are its effects.
//
// # The Loop
//
// A Loop is driver code, not a core: it owns a mailbox, goroutine-safe
// entry points and the deadline timer, and it does I/O only through the
// functions of its Spec. It queues inputs from any goroutine (Put, Do,
// Ask) and Turn, called from one goroutine, does one turn:
//
//  1. take every queued input, prepare each against the store (Spec.Prepare
//     may leave it unstepped, or fail it: that caller gets the error at
//     once), stamp it with the clock read once for the turn and step it;
//     then step the clock input (Spec.Tick);
//  2. if the core has a Ready, take it and commit its batch (skipped when
//     empty); a failed commit answers every caller of the turn with
//     Spec.Retired and rebuilds the core from the store (Spec.Rebuild);
//  3. advance the core, answer each waiting caller with the reply bearing
//     its request number (the zero reply when there is none), and return the
//     effects, or, with Spec.Inline, perform them in order and queue their
//     answers.
//
// Invariants: a caller is answered only after the turn that stepped its
// input committed (or failed); inputs are stepped in the order they were
// queued, all stamped with the same time; request numbers are unique per
// Loop and start at 1; Turn and Run are called from one goroutine only;
// once Run has returned, no caller waits: each gets Spec.Retired, its input
// unstepped (an engine builds a new Loop from the store to run again).
package engine
