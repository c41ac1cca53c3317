package noderegistry

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/transport"
	"github.com/ordolabs/ordo/internal/transport/grpcnet"
)

// DefaultInterval is how often Run refreshes the mapping.
const DefaultInterval = 30 * time.Second

// Directory is a grpcnet.Directory over the chain's nodes registry.
type Directory struct {
	chain chain.Chain
	mu    sync.RWMutex
	peers map[transport.NodeID]grpcnet.Peer
}

var _ grpcnet.Directory = (*Directory)(nil)

// New returns an empty Directory over c; call Refresh (or Run) to fill it.
func New(c chain.Chain) *Directory {
	return &Directory{chain: c, peers: map[transport.NodeID]grpcnet.Peer{}}
}

// Lookup returns the peer the last mapping holds for id.
func (d *Directory) Lookup(id transport.NodeID) (grpcnet.Peer, bool) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	p, ok := d.peers[id]
	return p, ok
}

// Len returns how many nodes the last mapping holds.
func (d *Directory) Len() int {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return len(d.peers)
}

// IDs returns the node ids the last mapping holds, sorted.
func (d *Directory) IDs() []transport.NodeID {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return slices.Sorted(maps.Keys(d.peers))
}

// Refresh reads the whole mapping from the chain and replaces the last
// one; on an error it keeps the last one.
func (d *Directory) Refresh(ctx context.Context) error {
	raw, err := d.chain.Call(ctx, devchain.NodesContract, "nodes", json.RawMessage(`{}`))
	if err != nil {
		return fmt.Errorf("noderegistry: read nodes: %w", err)
	}
	var out struct {
		Nodes []devchain.NodeEntry `json:"nodes"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return fmt.Errorf("noderegistry: decode nodes: %w", err)
	}
	peers := make(map[transport.NodeID]grpcnet.Peer, len(out.Nodes))
	for _, e := range out.Nodes {
		pub, err := hex.DecodeString(e.PublicKey)
		if err != nil || len(pub) != ed25519.PublicKeySize || devchain.NodeIDOf(pub) != e.ID {
			continue // the contract refuses these; a chain that serves one is not trusted with it
		}
		peers[transport.NodeID(e.ID)] = grpcnet.Peer{Endpoint: e.Endpoint, Fingerprint: e.Fingerprint}
	}
	d.mu.Lock()
	d.peers = peers
	d.mu.Unlock()
	return nil
}

// Run refreshes the mapping every interval (DefaultInterval when 0) on
// clk until ctx ends; errors go to log and the last mapping stays.
func (d *Directory) Run(ctx context.Context, clk clock.Clock, interval time.Duration, log *slog.Logger) {
	if interval <= 0 {
		interval = DefaultInterval
	}
	clock.Every(ctx, clk, interval, func(ctx context.Context) {
		if err := d.Refresh(ctx); err != nil && ctx.Err() == nil {
			log.Warn("node registry refresh failed; keeping the last mapping", "err", err)
		}
	})
}
