// Package cost measures what a benchmark's run spent per unit (an
// intent, a job) from outside the code it measures (issue 31): this
// process's CPU (/proc/self/stat), a PostgreSQL server's CPU (its
// postmaster's tree in /proc, when the server runs on this machine), its
// rows written (pg_stat_database) and WAL bytes (pg_current_wal_lsn), or
// on SQLite the bytes this process wrote to storage (/proc/self/io).
// `ordo bench burndown` and bench/peers read it alike, so ordo's cost per
// intent and River's per job are measured the same way.
//
// Invariants: a figure that cannot be read is unknown (negative, printed
// n/a), never 0; two samples of one meter are compared only with each
// other; the meter waits for PostgreSQL's statistics to settle before it
// reads rows, so rows reported by backends late are not lost.
package cost
