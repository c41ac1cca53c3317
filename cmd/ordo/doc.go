// Command ordo runs an ordo node and its tools: the node (serve), the
// embedded base ledger (devchain), the demo, benchmarks, simulations, trace
// replay, tools and API clients.
//
// Subcommands: serve (a node: the API behind principals, the sequencer of
// seed 000, the processor of seed 002, the leader of seed 001 when
// leader.accounts names cap holders, and an in-process devchain unless
// --chain names one), devchain (the ledger as its own process), demo (the
// README's main job), bench devchain|sequencer|processor|leader (one line of
// figures each), sim sequencer|processor|leader (deterministic simulations
// from a seed, invariants after every step), replay (checks an engine's trace
// recorded by serve --trace), token (a bearer token and its config lines),
// tool serve|meta|invoke (the tool protocol and its example tools), and the
// API clients tx send|get|list, queues, senders, processor …, leader ….
//
// Invariants: flags override the config file; errors go to stderr with a
// non-zero exit; SIGINT and SIGTERM stop a running node cleanly; client
// commands read their token from --token or ORDO_TOKEN.
package main
