// Package noderegistry is the node-to-node transport's Directory read from
// the chain's nodes registry (issue 11, "Identities and set-up"; seed
// 004's "endpoint → ID mapping", used here first): node id → ed25519 key,
// TLS certificate fingerprint, endpoint, each entry signed by the node's
// own key. A Binding reads and writes one chain's registry: devchain's
// `nodes` contract (Devchain), which checks each signature itself, or the
// NodeRegistry contract on an EVM chain (EVM), which cannot: it binds an
// id to the account of its first register and stores the signature, over
// EVMRegistrationDigest (chain id, registry, account, id, fingerprint,
// endpoint, seq), for every peer to verify (EVM.Verify).
//
// A Directory keeps the last mapping it read and answers Lookup from it;
// Refresh reads the whole mapping again, and Run refreshes it every
// interval until its context ends. A refresh that fails keeps the last
// mapping (a node must keep talking to its peers while the chain is
// unreachable) and reports the error.
//
// Invariants: Lookup never blocks on the chain; an entry is served only
// when its id is the one its public key derives (devchain.NodeIDOf), so a
// malformed mapping never names a peer; on an EVM chain, only when its
// key signed it for this chain, this registry and the account the entry
// is bound to, so a forged or front-run entry never names a peer; the mapping is replaced whole,
// never merged, so a deregistered node stops being a peer at the next
// refresh.
package noderegistry
