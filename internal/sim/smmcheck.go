package sim

import (
	"fmt"

	"github.com/ordolabs/ordo/internal/replog"
	"github.com/ordolabs/ordo/internal/store"
)

// The invariants of `ordo sim smm`, checked after every action
// (smmrealcheck.go), and the convergence checks of the quiet phase.

// Invariants of the state machine manager's simulation.
const (
	// SMMLogChain: a log is not a hash chain of valid entries (each sealed
	// correctly, of its queue, clock i+1 at position i, chained to the one
	// before, versions never going back), or an entry does not decode.
	SMMLogChain = "log-chain"
	// SMMAppliedOnce: an intent id applied on chain more than once.
	SMMAppliedOnce = "applied-once"
	// SMMOrder: a queue's intents applied on chain out of intake order,
	// both by a node the chain named the primary at the time, the one
	// applied late acknowledged (one never acknowledged is only counted,
	// SMMResult.UnackedOrder).
	SMMOrder = "intake-order"
	// SMMDeposedOrder: out of intake order where one of the two was
	// dispatched by a deposed primary that had not read the set update.
	// With AckAfter 0 it is the documented window (the deposed primary
	// acknowledged and dispatched an intent no secondary took: the fence
	// refuses it), and with AckAfter > 0 when one of the two was never
	// acknowledged (a primary cut off from its secondaries commits, is
	// not acknowledged, is replaced, and dispatches it before it reads
	// the update): only counted in SMMResult.DeposedOrder. Two
	// acknowledged intents out of order with AckAfter > 0 are a
	// violation.
	SMMDeposedOrder = "deposed-order"
	// SMMDeposedLost: an acknowledged intent lost (acked-lost or
	// acked-applied) that a deposed primary, which had not read the set
	// update, took in. Counted in SMMResult.DeposedLost with AckAfter 0
	// (the same window); a violation with AckAfter > 0.
	SMMDeposedLost = "deposed-lost"
	// SMMAckedLost: an acknowledged intent neither applied on chain nor in
	// any node's log while a node that held it kept its disk.
	SMMAckedLost = "acked-lost"
	// SMMAckedApplied: at the end of the quiet phase an acknowledged
	// intent (not lost with every disk that held it) is not applied.
	SMMAckedApplied = "acked-applied"
	// SMMConverged: the quiet phase did not converge within DrainBound
	// (every member up, holding the chain's version, at its primary's
	// head with the same hash; the set full; nothing WAITING at the
	// primary).
	SMMConverged = "converged"
)

func logHolds(log []replog.Entry, id string) bool {
	for _, e := range log {
		if c, err := store.DecodeChange(e.Payload); err == nil && c.UID == id && c.Op == store.ChangeIntent {
			return true
		}
	}
	return false
}

// checkLog checks that log is a hash chain of q's valid entries.
func checkLog(log []replog.Entry, q string) error {
	var prev replog.Hash
	var version uint64
	for i, e := range log {
		switch {
		case e.Queue != q:
			return fmt.Errorf("entry %d is of queue %q", i, e.Queue)
		case !e.Valid():
			return fmt.Errorf("entry %d (clock %d) is not sealed correctly", i, e.Clock)
		case e.Clock != uint64(i+1):
			return fmt.Errorf("entry %d has clock %d: a gap or a repeat", i, e.Clock)
		case e.Prev != prev:
			return fmt.Errorf("clock %d does not chain to the entry before: a fork", e.Clock)
		case e.Version < version:
			return fmt.Errorf("clock %d written under version %d after %d", e.Clock, e.Version, version)
		}
		if _, err := store.DecodeChange(e.Payload); err != nil {
			return fmt.Errorf("clock %d: %w", e.Clock, err)
		}
		prev, version = e.Hash, e.Version
	}
	return nil
}
