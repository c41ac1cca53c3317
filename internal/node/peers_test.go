package node

import (
	"slices"
	"testing"

	"github.com/ordolabs/ordo/internal/transport"
	"github.com/ordolabs/ordo/internal/transport/grpcnet"
)

// The node's peer directory lists its configured peers, so that GET
// /v1/peers shows each before any message (grpcnet.Lister).
func TestDirectoryListsConfiguredPeers(t *testing.T) {
	t.Parallel()
	static := grpcnet.NewStatic(map[transport.NodeID]grpcnet.Peer{"n1": {Endpoint: "127.0.0.1:1"}, "n2": {Endpoint: "127.0.0.1:2"}})
	var dir grpcnet.Directory = directory{static: static}
	l, ok := dir.(grpcnet.Lister)
	if !ok {
		t.Fatal("the node's directory cannot list its peers")
	}
	ids := l.IDs()
	slices.Sort(ids)
	if !slices.Equal(ids, []transport.NodeID{"n1", "n2"}) {
		t.Fatalf("IDs %v", ids)
	}
}
