package distseq

import (
	"github.com/ordolabs/ordo/internal/store"
	"maps"
	"slices"
	"time"
)

// Reads of the core's memory, for the driver's API, tests and
// simulations. They copy; none changes the core.

// TxView is a sender transaction as its sender sees it.
type TxView struct {
	ID, Contract string
	State        State
	// Coordinator is the active delegation's coordinator ("" if none).
	Coordinator NodeID
	// Delegations counts the delegations made for it since the core
	// started; Reverts the base-ledger reverts it survived.
	Delegations, Reverts int
	Granted              []store.DistseqGrant
	ParkReason           string
}

// Tx returns this node's in-flight transaction id, as its sender sees it.
func (c *Core) Tx(id string) (TxView, bool) {
	t := c.txs[id]
	if t == nil {
		return TxView{}, false
	}
	return TxView{ID: t.id, Contract: t.contract, State: t.state, Coordinator: t.coord, Delegations: t.redelegate, Reverts: t.reverts, Granted: t.granted, ParkReason: t.parkReason}, true
}

// InFlight returns the ids of this node's in-flight transactions, sorted.
func (c *Core) InFlight() []string { return slices.Sorted(maps.Keys(c.txs)) }

// Coordinating reports whether this node coordinates contract now.
func (c *Core) Coordinating(contract string) bool {
	k := c.active[contract]
	return k != nil && k.coord != nil
}

// Coordinated returns the transactions this node coordinates for
// contract, by id, with their coordinator states.
func (c *Core) Coordinated(contract string) map[string]State {
	out := map[string]State{}
	if k := c.active[contract]; k != nil && k.coord != nil {
		for id, t := range k.coord.txs {
			out[id] = t.state
		}
	}
	return out
}

// Submitting returns the ids this node's submitter holds for contract.
func (c *Core) Submitting(contract string) []string {
	if k := c.active[contract]; k != nil {
		return slices.Sorted(maps.Keys(k.subs))
	}
	return nil
}

// Unavailable returns the members this node holds unavailable for
// contract.
func (c *Core) Unavailable(contract string) []NodeID {
	var out []NodeID
	if k := c.active[contract]; k != nil {
		for _, m := range k.g.members {
			if k.unavailable[m] {
				out = append(out, m)
			}
		}
	}
	return out
}

// Active returns how many contracts hold in-memory state (the rest cost
// their group record alone).
func (c *Core) Active() int { return len(c.active) }

// Groups returns how many privacy groups this node knows.
func (c *Core) Groups() int { return len(c.groups) }

// Assured returns how many assured messages await an answer.
func (c *Core) Assured() int { return len(c.assured) }

// Preferred returns the coordinator this node would delegate contract's
// transactions to now (its unavailable members left out), or "".
func (c *Core) Preferred(contract string) NodeID {
	g := c.groupOf(contract)
	if g == nil {
		return ""
	}
	var un map[NodeID]bool
	if k := c.active[contract]; k != nil {
		un = k.unavailable
	}
	p := c.rings[g.ringKey].PreferenceAt(contract, c.rangeIndex(c.height), un)
	if len(p) == 0 {
		return ""
	}
	return p[0]
}

// ContractView is one privacy group as this node sees it now: the block
// range it is in, the coordinator it would delegate to, whether this node
// coordinates it, and when it last heard from each member (a heartbeat, a
// startup, an answer), while the contract is held in memory.
type ContractView struct {
	Contract     string
	Height       uint64
	Range        uint64
	Coordinator  NodeID
	Coordinating bool
	Heard        map[NodeID]time.Time
}

// Contracts returns every privacy group this node knows, sorted by
// contract.
func (c *Core) Contracts() []ContractView {
	out := make([]ContractView, 0, len(c.groups))
	for _, addr := range slices.Sorted(maps.Keys(c.groups)) {
		v := ContractView{Contract: addr, Height: c.height, Range: c.rangeIndex(c.height), Coordinator: c.Preferred(addr),
			Coordinating: c.Coordinating(addr)}
		if k := c.active[addr]; k != nil && len(k.heard) > 0 {
			v.Heard = maps.Clone(k.heard)
		}
		out = append(out, v)
	}
	return out
}

// SenderStates are the sender's states of seed 003, in the order of its
// diagram; CoordinatorStates the coordinator's.
var (
	SenderStates      = []State{Pending, Delegating, Delegated, Assembling, Prepared, Dispatched, Parked, Confirmed, Reverted}
	CoordinatorStates = []State{CQueued, CAssembling, CAttestation, CConfirmation, CDispatched, CAbandoned}
)

// StateCount is one privacy group's intents by state as this node holds
// them in memory: its own in-flight intents by the sender's state, and
// the delegations it coordinates by the coordinator's. A final intent
// leaves memory once its record is committed.
type StateCount struct {
	Contract    string
	Sender      map[State]int
	Coordinator map[State]int
}

// StateCounts returns the counts of every contract that has an intent in
// memory, sorted by contract. It costs one pass over the in-flight
// intents and delegations.
func (c *Core) StateCounts() []StateCount {
	by := map[string]*StateCount{}
	get := func(contract string) *StateCount {
		s := by[contract]
		if s == nil {
			s = &StateCount{Contract: contract, Sender: map[State]int{}, Coordinator: map[State]int{}}
			by[contract] = s
		}
		return s
	}
	for _, t := range c.txs {
		get(t.contract).Sender[t.state]++
	}
	for addr, k := range c.active {
		if k.coord == nil {
			continue
		}
		for _, t := range k.coord.txs {
			get(addr).Coordinator[t.state]++
		}
	}
	out := make([]StateCount, 0, len(by))
	for _, addr := range slices.Sorted(maps.Keys(by)) {
		out = append(out, *by[addr])
	}
	return out
}
