// Package transport is the seam between ordo nodes (docs/ARCHITECTURE.md,
// principle 4; seed 003's node-to-node messages, issue 10 "Transport seam and
// in-memory network"). An engine sends a Message to a node identity through a
// Transport and receives messages through the Handler it gave the
// implementation, with the sender's identity set by the transport. Nothing in
// an engine knows which implementation it runs on: the in-memory network
// (simnet, for tests and simulation) or gRPC with mutual TLS between
// processes (grpcnet, issue 11).
//
// Invariants every implementation keeps:
//   - Message.From is the authenticated identity of the peer that sent the
//     message, set by the transport on the receiving side; whatever the
//     sender wrote there is overwritten.
//   - Per-peer FIFO: the messages one node sends to another are handed to the
//     receiver's Handler in the order they were sent, never concurrently with
//     one another. Handlers of different peers may run concurrently (gRPC: one
//     stream, hence one reader, per peer pair).
//   - Delivery is at most once and may fail silently: a message may be lost
//     (a crash, a broken connection, a full queue shedding it). Protocols that
//     need delivery resend (seed 003's assured patterns) and are idempotent.
//     Only simnet's explicit faults duplicate or reorder messages.
//   - Memory per peer is bounded: when a peer's queue is full, non-assured
//     messages (Assured false: heartbeats) are shed first; an assured message
//     that finds the queue full of assured ones is refused with ErrQueueFull
//     and its sender resends it later. A slow peer never blocks another.
package transport
