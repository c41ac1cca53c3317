// Package dispatch holds the sequencer's dispatchers (seed 000, "Senders and
// workers"): ZkAppDispatcher, the built-in in-process dispatcher of the seed's
// five transaction types, and RemoteWorker, the client of a remote worker that
// holds its sender's key and speaks the seed's dispatch / onSuccess /
// onFailure calls as JSON over HTTP.
// CallDispatcher (call.go): the generic contract-call type engines submit through, as deterministic as ZkAppDispatcher.
//
// They run in the sequencer's driver, never inside the core: Dispatch and the
// hooks on its effect workers (or on its loop with Config.Inline), Build on
// its loop when it signs inline (Build does no I/O).
//
// Invariants:
//   - ZkAppDispatcher.Build is deterministic: the same RawTxnData and Sender
//     give the same chain transaction, so the sequencer can commit the hash of
//     an attempt before sending it;
//   - a RemoteWorker answer is an error unless it is a 2xx whose TxnResult has
//     no error; no answer within the timeout is an error.
package dispatch
