// Package procs runs a devchain and a committee of `ordo serve` processes
// on loopback, set up the way docs/distseq.md ("By hand") tells a user
// (issue 11, "Tests" and "Benchmark"; seed 003's distributed sequencer
// over its real transport): `ordo devchain`, `ordo committee init`,
// `ordo committee deploy`, then one `ordo serve --config` per member. It
// is the harness of the process-level crash and security tests in this
// package and of `ordo bench distseq --processes`, so it returns errors
// instead of failing a test, and the caller names the ordo binary (Build
// compiles one).
//
// A Committee lets its caller talk to each node as any client would (the
// ptx_ JSON-RPC API with the node's bearer token, GET /v1/peers, any JSON
// route with Request), kill a node with SIGKILL, start it again, delete a
// stopped node's data directory (a lost disk), find a group's
// coordinator, and read a stopped node's store for audits. Config's
// replication fields pass `ordo committee init --replication` and its
// tunings (issue 12; TestReplicationFailoverProcs). On an EVM chain the
// committee runs through `ordo committee init --evm-config` and `ordo
// committee deploy --key-file` (issue 27): Config.EVM names a chain the
// caller started (TestCrashCoordinatorOnEVM, TestCrashCoordinatorOnGeth);
// Config.EVMDev runs `ordo evmdev` and Config.Geth `geth --dev` as the
// chain's process, with `ordo evm deploy --voting --replication
// --privacygroup` (TestReplicationFailoverEVMProcs,
// TestReplicationFailoverGethProcs).
//
// Invariants:
//   - Every process's stdout and stderr go to a log file under
//     Config.Dir/logs (node<i>.log, chain.log), with a marker line per
//     start and exit; an error about a process carries the tail of its log.
//   - Start returns a Committee only once the chain answers, the group
//     is deployed and minted, every node answers /readyz and every node's
//     distributed sequencer has indexed the group (GET /v1/peers names a
//     coordinator for it). On error, everything it started is stopped.
//   - Kill waits for the process to have exited; Start(i) waits for the
//     node to be ready again; Stop ends every process (SIGTERM, then
//     SIGKILL after a grace period) and waits for each; a Process's
//     ExitErr says how its last run ended (nil: status 0).
//   - The ports are 2N consecutive loopback ports found free (gRPC on the
//     first N, the API on the next N) and two more for the chain, all
//     below the kernel's ephemeral port range (internal/testkit/ports), so
//     no outgoing connection can hold one as its source port.
package procs
