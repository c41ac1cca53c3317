// Command worker is an example remote worker of an ordo node: it holds one
// sender's key, and the node hands it that sender's transactions over HTTP
// (the seed's cloud Worker). For each dispatch it builds the zkApp call of
// the transaction's type (as the node's built-in dispatcher,
// internal/sequencer/dispatch/zkapp.go, does), signs it with exactly the
// nonce and fee the node gives, sends it to a devchain and answers the
// transaction's hash. docs/workers.md states the protocol.
//
// It also answers POST /build, so that it can serve as a type's worker
// (types.X.worker in the node's config): it then only builds the unsigned
// transaction, which the node signs with its own senders' keys.
//
//	go run ./examples/worker --new-key worker.key      # prints the address
//	go run ./examples/worker --key worker.key --chain http://127.0.0.1:7545 --listen 127.0.0.1:7080 --fund 100000000000000
//
// Then a node whose config names it as a sender:
//
//	senders:
//	  - worker: http://127.0.0.1:7080
//	    address: <the address printed above>
//
// Invariants: it signs with exactly the nonce and fee the node hands it
// and never picks its own; a dispatch the chain refuses answers an error
// (permanent when the chain's code says so), never a bare hash; a build
// answer is a pure function of the transaction (the same intent builds
// the same bytes).
package main
