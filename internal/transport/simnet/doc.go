// Package simnet is the in-memory network of transport's seam: N nodes that
// exchange transport.Messages, driven in one goroutine from a seed on a
// virtual clock (internal/clock's Virtual), for tests and `ordo sim`
// (docs/ARCHITECTURE.md, principle 4; issue 10, "Transport seam and
// in-memory network"). It is a real Transport: an engine cannot tell it from
// the gRPC one, except through the faults a test turns on.
//
// A Send draws the message's fate from the network's seeded source at once
// (lost, duplicated, its delay) and queues it with a due time; the driver
// moves the network with Step (the next message, moving the clock to it),
// DeliverDue (everything due by the clock) or RunUntil (up to a time).
// Handlers run synchronously inside those calls, without the network's lock,
// and may Send. Faults: Drop, Duplicate, Delay (an extra delay drawn from a
// distribution), Reorder (within a peer pair, and only when it is on),
// Partition/Heal, Crash (the node's queued messages, in and out, are lost and
// it stops sending and receiving) and Restart (a new endpoint for the node).
//
// Invariants:
//   - Without faults, every message is delivered exactly once, and the
//     messages of one directed peer pair in the order they were sent.
//   - Delivery order is a function of the seed, the configuration and the
//     sequence of calls alone: messages are delivered by (due time, send
//     sequence), and the same run gives the same Digest.
//   - A directed peer pair never holds more than QueueLimit queued messages;
//     a full pair sheds its oldest non-assured message (or the new one, when
//     it is non-assured and none is queued) before refusing an assured one.
//   - Nothing is delivered to a crashed node or across a partition; the
//     clock never moves backwards; no goroutine is started.
package simnet
