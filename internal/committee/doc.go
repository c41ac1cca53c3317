// Package committee writes the files of a local committee of ordo nodes
// (issue 11, "Identities and set-up": `ordo committee init`): for each node
// an ed25519 identity key and its self-signed TLS certificate
// (internal/identity), an API token, and a config file (internal/node's
// Config) naming its chain, its API principal and every other member as a
// pinned distseq peer. It deploys nothing and starts nothing. With
// Options.EVM the configs name an EVM chain (its evm: section, one sender
// key file per node) instead of a devchain.
//
// Invariants:
//   - Node i (from 1) lives in <out>/node<i>/: node.key (0600), node.crt,
//     node.yaml and token (0600, the API token in clear); the directory is
//     0700. The config holds the token's SHA-256, never the token.
//   - A member's id is its key's id (identity.Key.ID) and the fingerprint
//     its peers pin is identity.FingerprintDER of its certificate.
//   - Node i listens on host:APIBasePort+i-1 (API) and host:BasePort+i-1
//     (gRPC); the 2N ports are distinct, or Init refuses the options.
//   - Every config Init writes loads with node.LoadConfig and passes
//     node.Config.Validate.
//   - Init refuses an existing non-empty output directory unless Force;
//     with Force it writes over the files it makes and deletes nothing.
//   - Without Options.Replication a config has no replication block and
//     no distseq.registry, and the replication tunings are refused; with
//     it every config has replication.enabled and distseq.registry (the
//     node validation requires both), and each tuning is written only
//     when set, so a node's own defaults stay in force otherwise.
package committee
