// Package chain defines the ledger interface that every ordo engine writes
// through (docs/ARCHITECTURE.md, "three seams": chain), and the transaction format
// shared by its implementations.
//
// devchain (package chain/devchain) is the first implementation and the test
// oracle; its HTTP client implements the same interface, so a node uses a
// remote devchain exactly as it uses the in-process one.
//
// Invariants:
//   - a transaction's hash covers every signed field (from, nonce, fee,
//     contract, method, args, memo) and nothing else, so a signature over the
//     hash signs the whole intent;
//   - DecodeTx accepts only well-formed transactions: a decoded Tx always
//     passes Validate;
//   - errors a caller branches on are the sentinel *Error values below, matched
//     with errors.Is whatever the transport.
package chain
