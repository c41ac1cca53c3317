// Package fslock takes an exclusive, advisory lock on a data directory, so
// that two processes never write the same devchain log or node store.
//
// Invariants: the lock is held until Release or process exit (the kernel
// drops it when the process dies, so a kill -9 never leaves a stale lock).
package fslock
