package noderegistry

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/transport"
	"github.com/ordolabs/ordo/internal/transport/grpcnet"
)

// DefaultInterval is how often Run refreshes the mapping.
const DefaultInterval = 30 * time.Second

// Directory is a grpcnet.Directory over the chain's nodes registry.
type Directory struct {
	chain   chain.Chain
	binding Binding
	mu      sync.RWMutex
	peers   map[transport.NodeID]grpcnet.Peer
}

var _ grpcnet.Directory = (*Directory)(nil)

// New returns an empty Directory over devchain's nodes contract on c; call
// Refresh (or Run) to fill it.
func New(c chain.Chain) *Directory { return NewWith(c, Devchain{}) }

// NewWith returns an empty Directory over the registry b reads on c.
func NewWith(c chain.Chain, b Binding) *Directory {
	return &Directory{chain: c, binding: b, peers: map[transport.NodeID]grpcnet.Peer{}}
}

// Binding returns how the Directory reads (and its node writes) the
// chain's registry.
func (d *Directory) Binding() Binding { return d.binding }

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
	es, err := d.binding.Entries(ctx, d.chain)
	if err != nil {
		return fmt.Errorf("noderegistry: %w", err)
	}
	peers := make(map[transport.NodeID]grpcnet.Peer, len(es))
	for _, e := range es {
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
