package apidoc_test

import (
	"context"
	"encoding/hex"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ordolabs/ordo/internal/apidoc/gen"
	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/node"
)

// TestNodeRoutes checks the routers the node itself assembles
// (node.Build) register, together, the routes and rules of the router the
// generator reads (apitest), which TestRoutesDocumented holds to the
// document. Two nodes mount every engine's routes between them: one in
// dev mode with an in-process devchain (the devchain's routes), one with
// the leader on (its routes), whose remote chain does not answer (the
// leader needs a cap on chain only once the chain answers).
func TestNodeRoutes(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0") // a free port, closed again: nothing answers there
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String()
	_ = ln.Close()
	key := chain.KeyFromSeed("apidoc-leader")
	keyFile := filepath.Join(t.TempDir(), "leader.key")
	if err := os.WriteFile(keyFile, []byte(hex.EncodeToString(key.Seed())), 0o600); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, cfg := range []node.Config{
		{Data: t.TempDir(), DevMode: true},
		{Data: t.TempDir(), Chain: down, Senders: []node.SenderFile{{KeyFile: keyFile}},
			Leader: node.LeaderConfig{Accounts: []string{string(chain.KeyAddress(key))}}},
	} {
		n, err := node.Build(context.Background(), cfg, node.Options{Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range n.Router.Routes() {
			if !slices.Contains(got, r.String()) {
				got = append(got, r.String())
			}
		}
		if err := n.Close(); err != nil {
			t.Errorf("closing the node: %v", err)
		}
	}
	routes, _, err := gen.Routes()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, r := range routes {
		want = append(want, r.String())
	}
	for _, r := range got {
		if !slices.Contains(want, r) {
			t.Errorf("the node registers %s; the router the document is generated from does not", r)
		}
	}
	for _, r := range want {
		if !slices.Contains(got, r) {
			t.Errorf("the node does not register %s", r)
		}
	}
}
