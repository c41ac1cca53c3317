// Package engine is the kernel's driver loop shared by the engines whose
// callers wait for answers (the processor, seed 002, and the leader, seed
// 001): the part of "The driver's duties" (docs/ARCHITECTURE.md, "The
// engine shape") that does not depend on an engine's types. It is driver
// code, not a core: it owns a mailbox, goroutine-safe entry points and the
// deadline timer, and it does I/O only through the functions of its Spec.
//
// A Loop queues inputs from any goroutine (Put, Do, Ask) and Turn, called
// from one goroutine, does one turn:
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
