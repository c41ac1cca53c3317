// Command ordo runs an ordo node and its tools: the node (serve), the
// embedded base ledger (devchain), the demo, benchmarks, simulations, trace
// replay, tools and API clients.
//
// Subcommands: serve (a node: the API behind principals, the sequencer of
// seed 000, the processor of seed 002, the leader of seed 001 when
// leader.accounts names cap holders, the distributed sequencer of seed 003
// when distseq names an identity, and an in-process devchain unless
// --chain names one), devchain (the ledger as its own process), demo (the
// README's first command), bench devchain|sequencer|processor|leader|distseq (one
// line of figures each), sim sequencer|processor|leader|distseq
// (deterministic simulations from a seed, invariants after every step),
// replay (checks an engine's trace recorded by serve --trace), committee
// init|deploy (a local committee's identities and configs; its privacy
// group), token (a bearer token and its config lines),
// tool serve|meta|invoke (the tool protocol and its example tools), version
// (the binary's version, commit and Go version), and the
// API clients tx send|get|list, queues, senders, processor …, leader ….
//
// Invariants: flags override the config file; errors go to stderr with a
// non-zero exit; SIGINT and SIGTERM stop a running node cleanly; client
// commands read their token from --token or ORDO_TOKEN.
package main
