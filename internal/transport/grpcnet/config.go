package grpcnet

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/identity"
	"github.com/ordolabs/ordo/internal/transport"
)

// Defaults of Config.
const (
	DefaultQueueLimit    = 1024
	DefaultMinBackoff    = 100 * time.Millisecond
	DefaultMaxBackoff    = 30 * time.Second
	DefaultMaxFrameBytes = 4 << 20
)

// Peer is what the Directory knows of a node: where to dial it and the
// fingerprint of the certificate it must present.
type Peer struct {
	// Endpoint is the node's gRPC address, host:port.
	Endpoint string
	// Fingerprint is the SHA-256 of its certificate's DER, lowercase hex
	// (identity.Fingerprint).
	Fingerprint string
}

// Directory resolves node ids to peers (the devchain `nodes` registry will
// implement it; Static now). It is called on every handshake and dial, and
// must be safe for concurrent use.
type Directory interface {
	Lookup(id transport.NodeID) (Peer, bool)
}

// Lister is a Directory that can list the nodes it knows: Transport.Peers
// then shows each of them, connected or not.
type Lister interface {
	Directory
	// IDs returns the ids of every node the directory knows.
	IDs() []transport.NodeID
}

// Static is a Directory held in memory, safe for concurrent use.
type Static struct {
	mu    sync.RWMutex
	peers map[transport.NodeID]Peer
}

// NewStatic returns a Static directory holding a copy of peers.
func NewStatic(peers map[transport.NodeID]Peer) *Static {
	s := &Static{peers: map[transport.NodeID]Peer{}}
	for id, p := range peers {
		s.peers[id] = p
	}
	return s
}

// Lookup returns the peer id names.
func (s *Static) Lookup(id transport.NodeID) (Peer, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	p, ok := s.peers[id]
	return p, ok
}

// Set adds or replaces id's entry.
func (s *Static) Set(id transport.NodeID, p Peer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.peers[id] = p
}

// IDs returns the ids of the entries, in no order.
func (s *Static) IDs() []transport.NodeID {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]transport.NodeID, 0, len(s.peers))
	for id := range s.peers {
		out = append(out, id)
	}
	return out
}

// Delete removes id's entry.
func (s *Static) Delete(id transport.NodeID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.peers, id)
}

// Config configures a Transport.
type Config struct {
	// Key is the node's identity key. Required.
	Key identity.Key
	// Certificate is the node's certificate for Key (identity.NewCertificate
	// or identity.Load). Required.
	Certificate tls.Certificate
	// Listen is the address the Peer service listens on, host:port (port 0
	// picks one; Transport.Addr tells which). Required.
	Listen string
	// Peers resolves node ids to endpoints and fingerprints. Required.
	// When it is a Lister, Transport.Peers lists every node it knows.
	Peers Directory
	// QueueLimit bounds the frames queued per peer. Defaults to 1024.
	QueueLimit int
	// MinBackoff is the first wait after a failed dial. Defaults to 100ms.
	MinBackoff time.Duration
	// MaxBackoff caps the doubling wait between dials. Defaults to 30s.
	MaxBackoff time.Duration
	// MaxFrameBytes bounds a received frame. Defaults to 4 MiB.
	MaxFrameBytes int
	// Clock times the backoff, the stats and the certificates' validity.
	// Defaults to clock.Real.
	Clock clock.Clock
	// Logger receives refusals and connection changes. Defaults to
	// slog.Default().
	Logger *slog.Logger
}

// ErrConfig is wrapped by New's errors for a config it cannot run.
var ErrConfig = errors.New("grpcnet: bad config")

func (c *Config) defaults() error {
	if err := identity.Check(c.Key, c.Certificate); err != nil {
		return fmt.Errorf("%w: key and certificate: %w", ErrConfig, err)
	}
	if c.Listen == "" {
		return fmt.Errorf("%w: no listen address", ErrConfig)
	}
	if c.Peers == nil {
		return fmt.Errorf("%w: no peer directory", ErrConfig)
	}
	if c.QueueLimit <= 0 {
		c.QueueLimit = DefaultQueueLimit
	}
	if c.MinBackoff <= 0 {
		c.MinBackoff = DefaultMinBackoff
	}
	if c.MaxBackoff <= 0 {
		c.MaxBackoff = DefaultMaxBackoff
	}
	c.MaxBackoff = max(c.MaxBackoff, c.MinBackoff)
	if c.MaxFrameBytes <= 0 {
		c.MaxFrameBytes = DefaultMaxFrameBytes
	}
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return nil
}
