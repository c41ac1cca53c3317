// Package grpcnet is transport.Transport over gRPC with mutual TLS between
// ordo processes (issue 11, "The wire"; docs/ARCHITECTURE.md, principle 4:
// the transport seam, whose in-memory twin is simnet). Each node serves the
// Peer service (proto/ordo/transport/v1) and dials the peers it sends to;
// a pair of nodes talks over one bidirectional stream of Frames.
//
// Identities: a node presents its identity certificate (internal/identity)
// on both sides of every connection. A peer is accepted only if the NodeID
// derived from its certificate's public key (CN and URI SAN agreeing) is in
// the Directory and the certificate's SHA-256 fingerprint is the one the
// Directory holds for it, and the certificate is within its validity on the
// transport's clock; otherwise the handshake fails, the refusal is logged and
// nothing reaches the Handler. A dialer checks the same of the node it meant
// to dial. Message.From is the id from the verified certificate.
//
// One stream per pair, chosen by this rule: a node dials a peer when it has
// sent to it and has no stream with it (wanting it: a node that only
// receives never dials). The accepting side keeps a new inbound stream and
// drops the pair's older one, except that a node refuses a stream from a
// higher NodeID while it is itself dialing that peer or holds a stream it
// dialed to it (the lower id's dial wins a simultaneous dial, before either
// stream carries a message; a higher peer that restarted is let in once the
// old stream is seen to end, its keepalive bounding that for a silent one). A
// dialer whose hello arrives when the pair already has a stream drops its
// own. Reconnection backs off exponentially (MinBackoff doubling to
// MaxBackoff, no jitter) on the injected clock and starts again from nothing
// after a stream was accepted.
//
// Invariants (transport's, and these):
//   - Per-peer FIFO: one sender goroutine per peer pops its queue in order
//     and writes to the pair's current stream; the Handler is called from
//     the receiving goroutine of the peer's current stream, under a per-peer
//     lock, and never for a frame of a stream that has been replaced, so
//     what a peer receives is a subsequence of what was sent, in order.
//     Messages to Self are handed to the Handler by Self's sender goroutine.
//   - Bounded memory: at most QueueLimit frames are queued per peer; a full
//     queue sheds its oldest non-assured frame (or the new one, when it is
//     non-assured and none is queued) and refuses an assured frame with
//     ErrQueueFull when everything queued is assured. Send never waits on a
//     peer's stream.
//   - Send to a node the Directory does not know is ErrUnknownPeer, after
//     Close ErrClosed. Close stops the server, ends every stream and waits
//     for the transport's goroutines, including Handler calls in progress.
package grpcnet
