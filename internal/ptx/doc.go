// Package ptx is the node's `ptx_` JSON-RPC 2.0 API for the distributed
// sequencer (issue 11; Paladin's method and field names where they exist),
// served under POST /rpc on the node's API listener, batches allowed:
//
//   - ptx_sendTransaction(tx) → id; ptx_sendTransactions([tx]) → [id]: tx is
//     {type?: "private", domain?: "token", function?: "transfer", from,
//     to: <privacy group>, data: {to, amount}, idempotencyKey?}; from is
//     an owner of this node the principal acts for (its own name, or
//     Handler.Owners); the intent {from, to, amount} is committed before
//     the id is answered, and a resend with the same idempotencyKey by the
//     same principal answers the same id (other content: CodeConflict);
//   - ptx_getTransaction(id) → the transaction with its status (pending,
//     confirmed, reverted) or null; ptx_getTransactionReceipt(id) → {id,
//     success, failureMessage} once final, else null;
//   - ptx_queryTransactions({status?, to?, limit?}) → transactions, oldest
//     first (ordo's filter, where Paladin takes a query language).
//
// Sends need the role submit, reads the role read (admin holds both; dev
// mode opens everything).
//
// Invariants: a body that is not JSON answers -32700, a request that is
// not JSON-RPC 2.0 -32600, an unknown method -32601, bad params -32602
// (a send without from included), and none of them changes anything; a
// batch answers each call in order (notifications, without an id, are not
// answered); an error of the engine answers -32000 with a stable code in
// its data; an answer never holds more than MaxAnswerBytes of results, nor
// the answers being built more than the node's Budget (plus the short
// errors of the calls refused): a call past either is not run and answers
// CodeBudget; a send spends only from's states, from an owner of this node
// the principal acts for, holding enough settled states (CodeRefused
// otherwise); an idempotency key is unique per principal and never answers
// or names another principal's record. docs/private-transactions.md says
// more.
package ptx
