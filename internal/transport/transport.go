package transport

import (
	"context"
	"errors"
)

// NodeID is a node's identity in the committee. Over the real network it is
// derived from the node's public key (issue 11); in simnet it is any name.
type NodeID string

// Message is one node-to-node message.
type Message struct {
	// From is the sending peer's authenticated identity, set by the
	// transport on delivery; a sender's own value is ignored.
	From NodeID
	// Kind names the message type (seed 003's names, e.g.
	// "DelegationRequest"); the transport does not interpret it.
	Kind string
	// Assured marks a message that its protocol resends until it is
	// acknowledged (seed 003's ReliableNotification, Command, Request);
	// a full queue sheds messages without it (heartbeats) first.
	Assured bool
	// Body is the encoded message (protobuf, with its own ids). The
	// transport neither reads nor changes it.
	Body []byte
}

// Handler receives the messages a node is sent. A transport calls it in
// per-peer FIFO order and never concurrently for one peer; it may call it
// concurrently for different peers. A Handler should return quickly (hand the
// message to the engine's loop, e.g. through internal/mailbox): while it runs,
// that peer's later messages wait. It may call Send.
type Handler func(m Message)

// Transport is one node's end of the network.
type Transport interface {
	// Self returns this node's identity.
	Self() NodeID
	// Send queues m for delivery to the node to, setting m.From to Self.
	// A nil error means queued, not delivered. It does not block on the
	// peer: a full queue sheds a non-assured message or, for an assured one
	// with nothing to shed, returns ErrQueueFull. It returns ErrUnknownPeer
	// for a node the transport cannot address, ErrClosed once this end is
	// closed (or its node crashed), and ctx's error if ctx is done.
	Send(ctx context.Context, to NodeID, m Message) error
}

// Errors callers branch on.
var (
	// ErrUnknownPeer: the destination is not a node this transport knows.
	ErrUnknownPeer = errors.New("transport: unknown peer")
	// ErrClosed: this end of the transport is closed (its node stopped).
	ErrClosed = errors.New("transport: closed")
	// ErrQueueFull: the peer's queue is full of assured messages; resend
	// later.
	ErrQueueFull = errors.New("transport: peer queue full")
)
