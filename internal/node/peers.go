package node

import (
	"slices"

	"github.com/ordolabs/ordo/internal/transport"
	"github.com/ordolabs/ordo/internal/transport/grpcnet"
)

// IDs lists every peer the node knows, configured (distseq.peers) or read
// from the chain's nodes registry, so that GET /v1/peers shows each one,
// connected or not (the directory is a grpcnet.Lister).
func (d directory) IDs() []transport.NodeID {
	ids := d.static.IDs()
	if d.reg != nil {
		for _, id := range d.reg.IDs() {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

var _ grpcnet.Lister = directory{}
