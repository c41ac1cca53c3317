// Package fslock takes an exclusive, advisory lock on a data directory, so
// that two processes never write the same devchain log or node store.
//
// Invariants: the lock is exclusive per open handle (a second Acquire of the
// same directory fails at once with ErrLocked, whether from another process
// or from this one); it is held until Release or process exit (the operating
// system drops it when the process dies, so a kill -9 never leaves a stale
// lock). The LOCK file itself is never removed: its presence means nothing,
// only the lock on it does.
//
// Platforms: on Unix the lock is flock(2) LOCK_EX|LOCK_NB on the LOCK file
// (fslock_unix.go); on Windows it is LockFileEx with
// LOCKFILE_EXCLUSIVE_LOCK|LOCKFILE_FAIL_IMMEDIATELY (fslock_windows.go).
// Elsewhere (aix, plan9, js, wasip1) Acquire reports errors.ErrUnsupported
// rather than pretending to lock (fslock_other.go).
package fslock
