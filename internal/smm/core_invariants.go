package smm

import (
	"fmt"
	"maps"
	"slices"
)

// CheckInvariants walks the core and returns what is broken: this node is
// never a peer found unhealthy; an unhealthy peer has the time it stopped
// answering and a healthy one none; a loss being planned names a node
// unhealthy since that loss (or one that answered since: its job then
// drops it) and never this node; a pending loss is never this node; what
// monitoring saw of a queue names its set's members only. Tests and
// simulations call it after each step.
func (c *Core) CheckInvariants() []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if p := c.peers[c.cfg.Self]; p != nil && p.state == unhealthy {
		bad("this node %s is found unhealthy", c.cfg.Self)
	}
	for _, id := range slices.Sorted(maps.Keys(c.peers)) {
		p := c.peers[id]
		switch {
		case p.state == unhealthy && p.since.IsZero():
			bad("peer %s unhealthy without a time", id)
		case p.state != unhealthy && !p.since.IsZero():
			bad("peer %s %v with an unhealthy time", id, p.state)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(c.losing)) {
		if id == c.cfg.Self {
			bad("this node is being planned for as lost")
		}
		if p := c.peers[id]; p == nil {
			bad("loss of %s planned for a node never asked", id)
		}
	}
	for _, l := range c.losses {
		if l.Node == c.cfg.Self {
			bad("this node is a pending loss")
		}
	}
	for _, q := range slices.Sorted(maps.Keys(c.seen)) {
		st := c.seen[q]
		for m := range st.Members {
			if !st.Set.Holds(m) {
				bad("queue %s: monitoring saw %s, not a member of version %d", q, m, st.Set.Version)
			}
		}
	}
	c.queueInvariants(bad)
	return errs
}
