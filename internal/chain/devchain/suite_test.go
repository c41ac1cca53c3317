package devchain_test

import (
	"testing"

	"github.com/ordolabs/ordo/internal/chain/chaintest"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/clock"
)

// inProcessFactory runs the suite against *devchain.Chain directly: Advance is
// the virtual clock's, Restart closes the chain and reopens its data directory
// with the same config.
func inProcessFactory(t chaintest.TB, cfg devchain.Config) *chaintest.Harness {
	t.Helper()
	clk, ok := cfg.Clock.(*clock.Virtual)
	if !ok {
		t.Fatalf("suite config clock is %T, want *clock.Virtual", cfg.Clock)
	}
	c, err := devchain.New(cfg)
	if err != nil {
		t.Fatalf("devchain.New: %v", err)
	}
	cur := c
	t.Cleanup(func() { cur.Close() })
	h := &chaintest.Harness{Chain: c, Advance: clk.Advance}
	h.Restart = func() chaintest.DevChain {
		if err := cur.Close(); err != nil {
			t.Fatalf("close before restart: %v", err)
		}
		n, err := devchain.New(cfg)
		if err != nil {
			t.Fatalf("reopen: %v", err)
		}
		cur = n
		h.Chain = n
		return n
	}
	return h
}

func TestSuite(t *testing.T) { chaintest.Run(t, inProcessFactory) }
