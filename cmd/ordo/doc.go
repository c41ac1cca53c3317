// Command ordo runs an ordo node and its tools: the node (serve), the
// embedded base ledger (devchain), the demo, benchmarks and API clients.
//
// Subcommands: serve (a node: intake API, sequencer of seed 000, and an
// in-process devchain unless --chain names one), devchain (the ledger as its
// own process), demo (the README's main job), bench devchain|sequencer (one
// line of figures each), sim sequencer (a deterministic simulation from a
// seed, invariants after every step), replay (checks a sequencer trace
// recorded by serve --trace), tx send|get|list, queues, senders (API
// clients).
//
// Invariants: flags override the config file; errors go to stderr with a
// non-zero exit; SIGINT and SIGTERM stop a running node cleanly.
package main
