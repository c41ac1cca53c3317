// Command peers is ordo's peer benchmark: in one run, on one machine,
// River and ordo burn down the same number of jobs (River) and intents
// (ordo) on PostgreSQL and on SQLite, and one line per store gives ordo's
// figure, River's doing the same work and River's no-op, with both ratios.
//
// The same work: ordo's burndown builds and signs a transaction per intent
// (ed25519, about 20 µs of CPU) besides writing it; River's same-work job
// does that in its worker (signWorker: the burndown's transaction, ordo's
// own signing scheme, a key from a pool of one per River worker, each key's
// nonce counted) and keeps the hash and signature as the job's recorded
// output. The no-op line is River's floor, kept as context.
//
// It is its own Go module so that ordo's module does not depend on River;
// it imports only ordo's internal/clock (the wall clock benchmarks read)
// and internal/testkit/pgcluster (the throwaway PostgreSQL),
// through a replace of the module at ../.. . Run it from the repository:
//
//	go -C bench/peers run . --jobs 100000
//
// What one run does:
//
//   - PostgreSQL: a throwaway cluster (initdb into a temporary directory,
//     postgres on a free loopback port with fsync=on,
//     synchronous_commit=on, full_page_writes=on; as root, initdb and
//     postgres run as "nobody", or ORDO_TEST_POSTGRES_USER), or the server
//     of --postgres URL. Each contender gets a fresh database, dropped
//     afterwards.
//   - River v0.49.0 (riverpgxv5, riversqlite, rivermigrate), twice per
//     store, no-op then same work, each on a fresh database: migrate, insert
//     N jobs with InsertManyFast in batches of --insert-batch, then
//     start a client with one queue of --workers MaxWorkers and wait for N
//     JobCompleted events (sent after the completer has persisted the
//     state); the rows left not completed are counted and must be 0.
//   - River on SQLite: a file database in a temporary directory through
//     modernc.org/sqlite, journal_mode=WAL, synchronous=FULL, one open
//     connection (the driver's advice).
//   - ordo: the binary built from the repository (or --ordo PATH), run as
//     `ordo bench burndown --store sqlite|postgres --intents N --queues Q`
//     (--postgres: a fresh database of the same cluster); its line is
//     parsed for the insert, work and whole intents/s.
//
// Each contender is timed the same way: insert (all N in), work (from the
// start of the workers to the last one done) and whole (N over the sum).
// The ratios printed per store are ordo's whole over River's whole, same
// work first.
//
// Invariants: both contenders of a store run against the same server or
// the same filesystem with the same durability settings, which the summary
// line states as read back from the server (SHOW fsync,
// synchronous_commit); a River run that leaves a job not completed is an
// error, not a figure; the benchmark measures and reports, it never
// asserts a floor.
package main
