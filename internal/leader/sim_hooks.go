package leader

import "github.com/ordolabs/ordo/internal/chain"

// Hooks for a simulation that turns the Loop by hand from one goroutine
// (internal/sim): Do would wait for a turn only its caller can make. Ask,
// TurnDeferred and Perform come from internal/engine's Loop.

// PageInput is the input HandleEvents steps for a page of events (the
// registry's changes dropped from the tool cache first), for a listener
// whose handler turns the loop itself (Ask, then Turn).
func (n *Node) PageInput(evs []chain.Event, next uint64) Input { return n.pageInput(evs, next) }
