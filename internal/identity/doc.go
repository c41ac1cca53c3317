// Package identity is a node's identity on the network between ordo nodes
// (issue 11, "Identities and set-up"; docs/ARCHITECTURE.md, the transport
// seam): an ed25519 key, the NodeID derived from its public key, and a
// self-signed X.509 certificate for that key which the gRPC transport
// (internal/transport/grpcnet) presents in mutual TLS.
//
// Invariants:
//   - NodeIDOf(pub) is "n" followed by the first 20 bytes of
//     SHA-256(pub) as 40 lowercase hex characters: 41 characters, a pure
//     function of the public key. The devchain `nodes` registry computes the
//     same rule independently; this package does not import devchain.
//   - A certificate made by NewCertificate is for the key's own public key,
//     signed by that key, and names the key's NodeID as its subject's common
//     name and as its one URI SAN, ordo-node://<id>. NodeIDOfCertificate
//     derives the id from the certificate's public key and refuses a
//     certificate whose CN or SAN name another id.
//   - Fingerprint is SHA-256 of the certificate's DER as 64 lowercase hex
//     characters; it is what the registry pins.
//   - Save writes the key file with mode 0600 (the certificate 0644);
//     Load refuses a certificate that is not for the key beside it.
package identity
