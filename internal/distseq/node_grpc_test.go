package distseq_test

import (
	"crypto/rand"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/identity"
	"github.com/ordolabs/ordo/internal/transport"
	"github.com/ordolabs/ordo/internal/transport/grpcnet"
)

// TestNodeOverGRPC: the same committee and flow as TestNodeDrivesTheProtocol,
// over gRPC with mutual TLS on loopback (node ids from the identity keys,
// certificates pinned by fingerprint): the engine does not change between
// the two transports.
func TestNodeOverGRPC(t *testing.T) {
	dir := grpcnet.NewStatic(nil)
	handlers := map[transport.NodeID]func(transport.Message){}
	var ms []member
	for range 3 {
		k, err := identity.Generate(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		cert, err := identity.NewCertificate(k, now.Add(-time.Hour), now.Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		id := k.ID()
		tr, err := grpcnet.New(grpcnet.Config{Key: k, Certificate: cert, Listen: "127.0.0.1:0", Peers: dir,
			MinBackoff: 5 * time.Millisecond}, func(m transport.Message) { handlers[id](m) })
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tr.Close() })
		dir.Set(id, grpcnet.Peer{Endpoint: tr.Addr().String(), Fingerprint: identity.FingerprintDER(cert.Certificate[0])})
		ms = append(ms, member{id: id, key: k.Private, tr: tr})
	}
	driveProtocol(t, ms, func(id transport.NodeID, h func(transport.Message)) { handlers[id] = h })
}
