// Package pgcluster starts a throwaway PostgreSQL cluster: initdb into a
// temporary directory, postgres on a free loopback port, run as an
// unprivileged user ("nobody", or
// ORDO_TEST_POSTGRES_USER) when the process is root, since initdb and
// postgres refuse root. A durable cluster (the benchmarks') has fsync,
// synchronous_commit and full_page_writes on; the tests' has them off,
// since a test kills processes, never the machine. The binaries are found on PATH or in the highest
// /usr/lib/postgresql/<version>/bin. The tests' harness (pgtest), the
// benchmarks (ordo bench burndown, recovery) and bench/peers use it; it
// imports no "testing", so the ordo binary links none.
//
// Invariants: a cluster New started is stopped by Stop, which removes its
// directory; the throwaway cluster runs on Linux only (elsewhere New and
// FindBin answer an error naming ORDO_TEST_POSTGRES).
package pgcluster
