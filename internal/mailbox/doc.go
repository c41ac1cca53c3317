// Package mailbox is the kernel's unbounded input queue between an engine's
// effect workers (and other goroutines) and its single loop goroutine.
//
// Invariants: Put never blocks; Take returns items in Put order; a Put
// is followed by a value on Signal unless one is already waiting there.
package mailbox
