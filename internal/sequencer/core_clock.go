package sequencer

import "time"

// SetTime moves the core's clock forward without running the cycle; the
// driver calls it before each batch of inputs so that records are stamped
// with the time they changed. Tick is what ends DELAYs.
func (c *Core) SetTime(now time.Time) {
	if now.After(c.now) {
		c.now = now
	}
}
