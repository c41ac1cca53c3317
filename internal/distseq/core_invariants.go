package distseq

import (
	"fmt"
	"maps"
	"slices"
)

// CheckInvariants verifies the core's memory against the invariants of
// doc.go; tests and simulations call it after every Step. It returns the
// first violation found.
func (c *Core) CheckInvariants() error {
	if err := c.checkSenders(); err != nil {
		return err
	}
	for _, addr := range slices.Sorted(maps.Keys(c.active)) {
		k := c.active[addr]
		if k.coord != nil {
			if err := c.checkCoordinator(k); err != nil {
				return fmt.Errorf("contract %s: coordinator: %w", addr, err)
			}
		}
		if err := c.checkEndorsed(k); err != nil {
			return fmt.Errorf("contract %s: endorser: %w", addr, err)
		}
		for id, s := range k.subs {
			if s.contract != addr || s.txID != id {
				return fmt.Errorf("contract %s: submission %s filed under the wrong key", addr, id)
			}
		}
	}
	return nil
}

// checkSenders: in-flight transactions are not final, belong to an active
// contract that counts them, and their idempotency keys point back.
func (c *Core) checkSenders() error {
	count := map[string]int{}
	for id, t := range c.txs {
		if t.state.Final() {
			return fmt.Errorf("tx %s: final state %s still in flight", id, t.state)
		}
		if c.active[t.contract] == nil {
			return fmt.Errorf("tx %s: contract %s released while the tx is in flight", id, t.contract)
		}
		if t.key != "" && c.keys[t.key] != id {
			return fmt.Errorf("tx %s: key %q maps to %q", id, t.key, c.keys[t.key])
		}
		if (t.state == Delegating || t.state == Delegated || t.state == Prepared) && (t.coord == "" || t.delegationID == "") {
			return fmt.Errorf("tx %s: %s without an active delegation", id, t.state)
		}
		count[t.contract]++
	}
	for key, id := range c.keys {
		if c.txs[id] == nil {
			return fmt.Errorf("key %q maps to %q, not in flight", key, id)
		}
	}
	for addr, k := range c.active {
		if k.inflight != count[addr] {
			return fmt.Errorf("contract %s: counts %d in flight, holds %d", addr, k.inflight, count[addr])
		}
	}
	return nil
}

// checkCoordinator: the graph is consistent. Every assembled transaction
// is in the dispatch order once; each state is locked by the one
// transaction that spends it; each speculative state belongs to a
// transaction in the graph; dependencies come earlier in the order; at
// most MaxAssembling transactions assemble, each with its own offer; the
// queue holds Queued ones only.
func (c *Core) checkCoordinator(k *contract) error {
	co := k.coord
	pos := map[string]int{}
	for i, id := range co.order {
		t := co.txs[id]
		if t == nil || t.asm == nil {
			return fmt.Errorf("order[%d] %s: not an assembled transaction", i, id)
		}
		if _, dup := pos[id]; dup {
			return fmt.Errorf("%s twice in the order", id)
		}
		pos[id] = i
		if t.state != CAttestation && t.state != CConfirmation && t.state != CDispatched {
			return fmt.Errorf("%s in the order in state %s", id, t.state)
		}
		for _, s := range t.asm.Spends {
			if co.locked[s] != id {
				return fmt.Errorf("%s spends %s, locked by %q", id, s, co.locked[s])
			}
		}
		for _, d := range t.deps {
			if p, ok := pos[d]; ok && p >= i {
				return fmt.Errorf("%s depends on %s, which comes later", id, d)
			}
			if dt := co.txs[d]; dt != nil && dt.prepare {
				return fmt.Errorf("%s spends outputs of %s, a prepared transaction not yet confirmed", id, d)
			}
		}
	}
	for s, by := range co.locked {
		t := co.txs[by]
		if t == nil || t.asm == nil || !slices.Contains(t.asm.Spends, s) {
			return fmt.Errorf("state %s locked by %s, which does not spend it", s, by)
		}
	}
	for s, sp := range co.spec {
		if _, ok := pos[sp.by]; !ok {
			return fmt.Errorf("speculative state %s of %s, not in the graph", s, sp.by)
		}
	}
	for id, t := range co.txs {
		if (t.state == CAssembling) != co.assembling[id] {
			return fmt.Errorf("%s in state %s, in the assembly slots: %v", id, t.state, co.assembling[id])
		}
		if t.state == CAbandoned {
			return fmt.Errorf("%s abandoned but kept", id)
		}
	}
	if len(co.assembling) > c.cfg.MaxAssembling {
		return fmt.Errorf("%d transactions assembling at once, at most %d", len(co.assembling), c.cfg.MaxAssembling)
	}
	for s, by := range co.offered {
		t := co.txs[by]
		if t == nil || !co.assembling[by] || !slices.ContainsFunc(t.offer, func(o StateRef) bool { return o.ID == s }) {
			return fmt.Errorf("state %s offered to %s, which is not assembling it", s, by)
		}
		if co.locked[s] != "" {
			return fmt.Errorf("state %s offered to %s and locked by %s", s, by, co.locked[s])
		}
	}
	for _, id := range co.queue {
		if t := co.txs[id]; t != nil && t.state != CQueued {
			return fmt.Errorf("%s queued in state %s", id, t.state)
		}
	}
	return nil
}
