// Package pgtest gives tests a fresh, empty PostgreSQL database (issue 13).
//
// URL(t) returns the URL of a database made for the calling test and
// dropped when it ends; URLFor(t, key) returns the database kept for a key
// (the stores' conformance suites reopen "the store in dir": the key is the
// dir), created on its first call. Where the server comes from:
//
//   - ORDO_TEST_POSTGRES set (postgres://user:pass@host:port/db?…): that
//     server; each database is created there with CREATE DATABASE under a
//     unique name and dropped (WITH (FORCE)) at the test's cleanup. The
//     user needs CREATEDB.
//   - otherwise one throwaway cluster per test binary, started on first use
//     (sync.Once): initdb into a temporary directory, postgres on a free
//     loopback port with its unix socket in that directory, fsync,
//     synchronous_commit and full_page_writes off (a killed process loses
//     nothing the page cache holds; only a machine crash would), or on
//     when the binary runs benchmarks (-test.bench),
//     trust authentication, superuser "postgres". The binaries are found on
//     PATH or in /usr/lib/postgresql/<version>/bin (the highest version).
//     As root (initdb and postgres refuse root) they run as the user
//     "nobody" (ORDO_TEST_POSTGRES_USER overrides), the directory chowned to
//     it. Main(m) stops the cluster and removes the directory after m.Run,
//     and on SIGINT or SIGTERM; should the test binary die otherwise, the
//     postmaster gets SIGQUIT from the kernel (Pdeathsig) and its directory
//     is left in the temporary directory.
//   - no binaries and no ORDO_TEST_POSTGRES: the test is skipped with the
//     reason, except under CI=true, where it fails (CI installs them).
//
// The cluster itself is package pgcluster's (no "testing" import): a
// program that is not a test (ordo bench burndown, recovery) calls
// pgcluster.Start for a cluster of its own.
//
// Invariants: every URL names a database no other test uses (URLFor: no
// other key); the shared cluster is started at most once per binary; a
// database is dropped only by the test that created it; a cluster Start
// made is stopped only by its stop. Test code, and benchmarks through
// Start.
package pgtest
