package distseq

import (
	"cmp"
	"encoding/json"
	"slices"
	"time"

	"github.com/ordolabs/ordo/internal/distseq/distseqpb"
)

// Assembly (seed 003, "Coordinate transaction": "Wait for assemble slot",
// "Assemble Transaction", and OnAssembleRequest's other side): the
// coordinator offers each queued transaction its share of the domain
// context and asks its sender to assemble against it.

// candidates walks the domain context in order: the confirmed states this
// node holds, oldest first, then the outputs of assembled transactions not
// yet confirmed, in assembly order; each one no assembled transaction
// spends and no assembly in flight was offered. fn returns false to stop.
func (c *Core) candidates(k *contract, fn func(StateRef) bool) {
	co := k.coord
	for _, id := range k.sortedStates() {
		if co.locked[id] == "" && co.offered[id] == "" && !c.quarantined(k, id) && !fn(k.states[id].ref) {
			return
		}
	}
	for _, txID := range co.order {
		t := co.txs[txID]
		if t == nil || t.asm == nil || t.prepare {
			continue // an external submission's outputs wait for its confirmation: its caller may never send it
		}
		for _, s := range t.asm.Creates {
			s.CreatedBy = txID // the sender keeps it with a grant (core_park.go)
			if co.locked[s.ID] == "" && co.offered[s.ID] == "" && co.spec[s.ID] != nil && !fn(s) {
				return
			}
		}
	}
}

// sortedStates returns the held states' ids, oldest first (cached until
// the set changes).
func (k *contract) sortedStates() []string {
	if k.sorted != nil {
		return k.sorted
	}
	ids := make([]string, 0, len(k.states))
	for id := range k.states {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int {
		return cmp.Or(cmp.Compare(k.states[a].height, k.states[b].height), cmp.Compare(a, b))
	})
	k.sorted = ids
	return ids
}

// hold and unhold change the held states (and drop the cached order).
// quarantined reports whether state id waits for this node's indexer to
// pass the height of a revert that spent it (and forgets it once passed).
func (c *Core) quarantined(k *contract, id string) bool {
	h, ok := k.quarantine[id]
	if ok && c.height >= h {
		delete(k.quarantine, id)
		return false
	}
	return ok
}

// quarantine keeps the states a reverted copy spent from assemblies until
// this node's indexer reaches the height the revert happened at.
func (k *contract) quarantineSpends(a Assembly, height uint64) {
	if height == 0 {
		return // it never landed: nothing was spent in a block
	}
	if k.quarantine == nil {
		k.quarantine = map[string]uint64{}
	}
	for _, s := range a.Spends {
		k.quarantine[s] = max(k.quarantine[s], height)
	}
}

func (k *contract) hold(ref StateRef, height uint64) {
	k.states[ref.ID] = &held{ref: ref, height: height}
	k.sorted = nil
	if k.endorsed != nil {
		k.endorsed.forgetOutput(ref.ID) // its own copy judges from now on
	}
}

func (k *contract) unhold(id string) {
	if _, ok := k.states[id]; ok {
		delete(k.states, id)
		k.sorted = nil
	}
}

// offer picks t's share of the domain context: candidates in order until
// the domain says they cover the intent. Offers are disjoint, so
// assemblies in flight at once never spend one state twice. It reports
// false when the candidates left do not cover the intent.
func (c *Core) offer(k *contract, t *ctx) ([]StateRef, bool) {
	var out []StateRef
	covered := c.cfg.Domain.Covers(t.intent, nil)
	if !covered {
		c.candidates(k, func(s StateRef) bool {
			if !c.cfg.Domain.Usable(t.intent, s) {
				return true // another owner's: never offered to this intent
			}
			out = append(out, s)
			covered = c.cfg.Domain.Covers(t.intent, out)
			return !covered
		})
	}
	return out, covered
}

// pump starts assemblies while there are slots (MaxAssembling), in queue
// order ("Wait for assemble slot"), and moves the graph on. The head waits
// when what is left does not cover it and other assemblies may give
// states back; with none in flight it is offered all there is (and its
// sender parks it).
func (c *Core) pump(k *contract) {
	co := k.coord
	if co == nil || !k.loaded {
		return
	}
	for len(co.assembling) < c.cfg.MaxAssembling && len(co.queue) > 0 {
		id := co.queue[0]
		t := co.txs[id]
		if t == nil || t.state != CQueued {
			co.queue = co.queue[1:]
			continue
		}
		if c.now.Before(t.notBefore) {
			break // the queue's head waits (FIFO); a tick pumps again
		}
		offer, ok := c.offer(k, t)
		if !ok && len(co.assembling) > 0 {
			break
		}
		co.queue = co.queue[1:]
		t.offer = t.offer[:0]
		for _, s := range offer {
			co.offered[s.ID] = t.id
			t.offer = append(t.offer, s)
		}
		co.assembling[id] = true
		c.cbecome(t, CAssembling)
		c.requestAssembly(k, t)
	}
	c.advance(k)
}

// endAssembly frees t's slot and gives its offer back.
func (c *Core) endAssembly(co *coordinator, t *ctx) {
	delete(co.assembling, t.id)
	for _, s := range t.offer {
		if co.offered[s.ID] == t.id {
			delete(co.offered, s.ID)
		}
	}
	t.offer = nil
}

// requestAssembly sends t's AssembleRequest (a Request: resent until
// answered or AssembleTimeout) with its offer as the state locks.
func (c *Core) requestAssembly(k *contract, t *ctx) {
	locks, _ := json.Marshal(t.offer)
	t.assembleID, t.assembleAt = c.nextID("a"), c.now
	env := c.envelope(k.addr, "")
	env.Body = &distseqpb.Envelope_AssembleRequest{AssembleRequest: &distseqpb.AssembleRequest{
		TransactionId: t.id, AssembleRequestId: t.assembleID, ContractAddress: k.addr, TransactionInputs: t.intent,
		StateLocks: locks, BlockHeight: int64(c.height), DelegationId: t.delegationID}}
	c.sendAssured("asm:"+t.assembleID, t.sender, env, c.now.Add(c.cfg.AssembleTimeout))
}

func (c *Core) onAssembleResponse(from NodeID, addr string, m *distseqpb.AssembleResponse) {
	k, t := c.coordTx(addr, m.GetTransactionId())
	if t == nil || t.state != CAssembling || t.assembleID != m.GetAssembleRequestId() || from != t.sender {
		return
	}
	c.answered("asm:" + t.assembleID)
	co := k.coord
	offer := t.offer
	c.endAssembly(co, t)
	var post postAssembly
	if err := json.Unmarshal(m.GetPostAssembly(), &post); err != nil || !c.spendable(k, post.Assembly, offer) {
		if slices.ContainsFunc(post.Assembly.Creates, func(s StateRef) bool { return k.states[s.ID] != nil }) {
			// its outputs are held already: another copy of the intent
			// was confirmed (its states distributed before this node's
			// indexer saw the event); stop coordinating it
			c.drop(k, t)
			c.pump(k)
			return
		}
		// assembled against a context that moved on: assemble again,
		// after a retry interval (not in this step: a local sender
		// would answer the same at once)
		c.requeue(k, t)
		t.notBefore = c.now.Add(c.cfg.RetryInterval)
		return
	}
	a := post.Assembly
	t.asm, t.senderSig, t.deps, t.ends = &a, post.Signature, nil, map[NodeID][]byte{}
	t.endN, t.retryEndAt = map[NodeID]int{}, map[NodeID]time.Time{}
	for _, s := range a.Spends {
		co.locked[s] = t.id
		if sp := co.spec[s]; sp != nil && !slices.Contains(t.deps, sp.by) {
			t.deps = append(t.deps, sp.by)
		}
	}
	for i, s := range a.Creates {
		co.spec[s.ID] = &specState{ref: s, by: t.id, seqn: i}
	}
	co.order = append(co.order, t.id)
	c.cbecome(t, CAttestation)
	c.requestEndorsements(k, t)
	c.pump(k)
}

// spendable: every spend is one of the states offered, still held or
// speculative, that no assembled transaction spends, and every created id
// is new.
func (c *Core) spendable(k *contract, a Assembly, offer []StateRef) bool {
	co := k.coord
	seen := map[string]bool{}
	for _, s := range a.Spends {
		if seen[s] || co.locked[s] != "" || (k.states[s] == nil && co.spec[s] == nil) ||
			!slices.ContainsFunc(offer, func(o StateRef) bool { return o.ID == s }) {
			return false
		}
		seen[s] = true
	}
	for _, s := range a.Creates {
		if k.states[s.ID] != nil || co.spec[s.ID] != nil {
			return false
		}
	}
	return len(a.Spends) > 0 || len(a.Creates) > 0
}

func (c *Core) onAssembleError(from NodeID, addr string, m *distseqpb.AssembleError) {
	k, t := c.coordTx(addr, m.GetTransactionId())
	if t == nil || t.state != CAssembling || t.assembleID != m.GetAssembleRequestId() || from != t.sender {
		return
	}
	c.answered("asm:" + t.assembleID)
	c.endAssembly(k.coord, t)
	c.drop(k, t) // the sender decides: park, revert or retry
	c.pump(k)
}
