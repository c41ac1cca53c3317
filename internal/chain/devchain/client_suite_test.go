package devchain_test

import (
	"net/http/httptest"
	"testing"

	"github.com/ordolabs/ordo/internal/chain/chaintest"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/clock"
)

var _ chaintest.DevChain = (*devchain.Client)(nil)

// httpFactory runs the suite against a *devchain.Client: an in-process
// devchain on the suite's virtual clock, served by NewHandler on a test
// server. Restart closes the server and the chain, reopens the data directory
// with the same config behind a new server and returns a new client.
func httpFactory(t chaintest.TB, cfg devchain.Config) *chaintest.Harness {
	t.Helper()
	clk, ok := cfg.Clock.(*clock.Virtual)
	if !ok {
		t.Fatalf("suite config clock is %T, want *clock.Virtual", cfg.Clock)
	}
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	type node struct {
		chain  *devchain.Chain
		srv    *httptest.Server
		client *devchain.Client
	}
	start := func() *node {
		c, err := devchain.New(cfg)
		if err != nil {
			t.Fatalf("devchain.New: %v", err)
		}
		srv := httptest.NewServer(devchain.NewHandler(c))
		return &node{chain: c, srv: srv, client: devchain.NewClient(srv.URL, nil)}
	}
	stop := func(n *node) {
		// Closing the chain first ends its head streams, so that the server's
		// Close does not wait on them.
		if err := n.chain.Close(); err != nil {
			t.Errorf("closing the chain: %v", err)
		}
		n.srv.Close()
		n.client.CloseIdleConnections()
	}
	cur := start()
	t.Cleanup(func() { stop(cur) })
	h := &chaintest.Harness{Chain: cur.client, Advance: clk.Advance}
	h.Restart = func() chaintest.DevChain {
		stop(cur)
		cur = start()
		h.Chain = cur.client
		return cur.client
	}
	return h
}

// TestClientSuite runs the devchain behaviour suite over HTTP.
func TestClientSuite(t *testing.T) { chaintest.Run(t, httpFactory) }
