package devchain

import (
	"context"
	"time"
)

// Run produces blocks every BlockTime on the chain's clock until ctx ends.
// It is the devchain's only driver loop; Mine serves tests that want blocks on
// demand instead.
func (c *Chain) Run(ctx context.Context) error {
	clk := c.cfg.Clock
	for {
		wait := max(c.NextBlockAt().Sub(clk.Now()), time.Duration(0))
		t := clk.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C():
			c.Tick(clk.Now())
		}
	}
}
