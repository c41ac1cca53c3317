package distseq

import (
	"encoding/hex"
	"encoding/json"
	"maps"
	"slices"
	"time"

	"github.com/ordolabs/ordo/internal/distseq/distseqpb"
	"github.com/ordolabs/ordo/internal/store"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// The submitter (seed 003, "Syncpoint on submission": the dispatch is
// durable on the submitter alone) and the assured data distribution of
// the states a confirmed transaction creates.

// submission is a dispatched transaction the submitter owns until the
// base ledger decides it.
type submission struct {
	txID, contract string
	sender         NodeID
	delegationID   string
	rangeIdx       uint64
	// copies are every assembly of the transaction this submitter
	// dispatched, the latest last: any of them may be the one the base
	// ledger confirms (a copy sent before a restart lands after it).
	copies  []dispatchRecord
	created time.Time
	// failed: the latest copy reverted at failedAt; the record stays until
	// this node's indexer passes that height, in case an earlier copy (at
	// a lower nonce) is the one confirmed.
	failed   bool
	failedAt uint64
}

// dispatchRecord is one dispatched copy: the call and what it creates
// (for the distribution after confirmation). DistseqDispatch.Payload is
// the list of copies.
type dispatchRecord struct {
	Call     []byte   `json:"call"`
	Assembly Assembly `json:"assembly"`
	// External: the sender's caller submits this copy (prepare_only); the
	// submitter holds it like any other but never sends it.
	External bool `json:"external,omitempty"`
}

// last is the latest copy dispatched.
func (s *submission) last() dispatchRecord { return s.copies[len(s.copies)-1] }

func (s *submission) record(addr, status string, height uint64, now time.Time) store.DistseqDispatch {
	payload, _ := json.Marshal(s.copies)
	return store.DistseqDispatch{TxID: s.txID, Contract: addr, Sender: string(s.sender), DelegationID: s.delegationID,
		Payload: payload, Height: height, Status: status, CreatedAt: s.created, UpdatedAt: now}
}

// live counts the submissions not known to have failed.
func live(k *contract) int {
	n := 0
	for _, s := range k.subs {
		if !s.failed {
			n++
		}
	}
	return n
}

// submit commits the dispatch and asks the driver to submit it. A live
// dispatch of the same transaction keeps its place (the driver submits
// idempotently by transaction id: that copy is on its way); one that
// failed is followed by this new copy.
func (c *Core) submit(k *contract, t *ctx, call []byte) {
	s := k.subs[t.id]
	if s != nil && !s.failed {
		return
	}
	if s == nil {
		s = &submission{txID: t.id, contract: k.addr, created: c.now}
	}
	s.sender, s.delegationID, s.rangeIdx, s.failed = t.sender, t.delegationID, c.rangeIndex(c.height), false
	s.copies = append(s.copies, dispatchRecord{Call: call, Assembly: *t.asm, External: t.prepare})
	c.ready.Batch.Dispatches = append(c.ready.Batch.Dispatches, s.record(k.addr, "dispatched", c.height, c.now))
	c.own(k, s)
}

func (c *Core) own(k *contract, s *submission) {
	k.subs[s.txID] = s
	c.transition(RoleSubmitter, s.txID, "", CDispatched)
	if last := s.last(); !last.External {
		c.ready.Effects = append(c.ready.Effects, Effect{Kind: EffectDispatch, Contract: k.addr, TxID: s.txID, Payload: last.Call})
	}
	if k.subHB.IsZero() {
		c.sendSubmitterHeartbeat(k)
	}
}

// resumeDispatch: after a restart at or after 2C the submitter carries on
// (the driver's submission is idempotent by transaction id).
func (c *Core) resumeDispatch(d store.DistseqDispatch) {
	k := c.activate(d.Contract, true)
	if k == nil || d.Status != "dispatched" {
		return
	}
	var copies []dispatchRecord
	if err := json.Unmarshal(d.Payload, &copies); err != nil || len(copies) == 0 {
		return
	}
	c.own(k, &submission{txID: d.TxID, contract: d.Contract, sender: NodeID(d.Sender), delegationID: d.DelegationID,
		rangeIdx: c.rangeIndex(d.Height), copies: copies, created: d.CreatedAt})
}

func (c *Core) subOf(txID string) (*contract, *submission) {
	for _, addr := range slices.Sorted(maps.Keys(c.active)) {
		if s := c.active[addr].subs[txID]; s != nil {
			return c.active[addr], s
		}
	}
	return nil, nil
}

// sendSubmitterHeartbeat: fire and forget, to every member, listing the
// dispatched transactions and the range they were dispatched in; one
// last, empty, when the set empties, so senders holding for the flush
// go on at once.
func (c *Core) sendSubmitterHeartbeat(k *contract) {
	var ids []string
	for _, id := range slices.Sorted(maps.Keys(k.subs)) {
		if !k.subs[id].failed {
			ids = append(ids, id)
		}
	}
	// The range the oldest dispatch was made in: senders hold new
	// delegations until it lands. An external copy (prepare_only) is left
	// out: its caller may hold it for ever, and a conflict with it ends in
	// a revert either way (unavailableExternal, or the base ledger's).
	rng := c.rangeIndex(c.height)
	for _, id := range ids {
		if s := k.subs[id]; !s.last().External && s.rangeIdx < rng {
			rng = s.rangeIdx
		}
	}
	hbID := c.nextID("shb")
	for _, m := range k.g.members {
		env := c.envelope(k.addr, "")
		hb := &distseqpb.SubmitterHeartbeatNotification{HeartbeatId: hbID, Timestamp: timestamppb.New(c.now),
			ContractAddress: k.addr, TransactionIds: ids, RangeIndex: int64(rng)}
		for _, id := range ids {
			if k.subs[id].sender == m {
				hb.Dispatched = append(hb.Dispatched, &distseqpb.DispatchedTransaction{TransactionId: id})
			}
		}
		env.Body = &distseqpb.Envelope_SubmitterHeartbeat{SubmitterHeartbeat: hb}
		c.send(m, env, false)
	}
	k.subHB = c.now
	if len(ids) == 0 {
		k.subHB = time.Time{}
	}
}

func (c *Core) submitterTimers(k *contract) {
	c.unavailableExternal(k)
	for _, id := range slices.Sorted(maps.Keys(k.subs)) {
		if s := k.subs[id]; s.failed && c.height >= s.failedAt {
			// the indexer passed the revert: no earlier copy landed
			delete(k.subs, id)
			c.ready.Batch.Dispatches = append(c.ready.Batch.Dispatches, s.record(k.addr, "reverted", s.failedAt, c.now))
		}
	}
	if live(k) > 0 && c.now.Sub(k.subHB) >= c.cfg.HeartbeatInterval {
		c.sendSubmitterHeartbeat(k)
	}
}

// unavailableExternal: an external copy that spends a state this node
// holds neither confirmed nor as a speculative output can no longer land
// (spent by another confirmed transaction, or the output of one that
// reverted); nobody would see it revert, so its submitter gives it up as a
// revert at the next tick (the sender has it prepared again).
func (c *Core) unavailableExternal(k *contract) {
	if !k.loaded {
		return
	}
	for _, id := range slices.Sorted(maps.Keys(k.subs)) {
		s := k.subs[id]
		if s.failed || !s.last().External {
			continue
		}
		for _, st := range s.last().Assembly.Spends {
			if k.states[st] == nil && (k.coord == nil || k.coord.spec[st] == nil) {
				c.onDispatched(InputDispatched{TxID: id, Reason: ReasonUnavailable + st, Height: c.height})
				break
			}
		}
	}
}

// ReasonUnavailable starts the reason a prepared transaction is given up
// with when a state it spends is no longer available.
const ReasonUnavailable = "a state it spends is no longer available: "

// onSubmitterHeartbeat: the sender keeps its dispatched transactions
// (and holds new delegations while an older range flushes).
func (c *Core) onSubmitterHeartbeat(from NodeID, addr string, m *distseqpb.SubmitterHeartbeatNotification) {
	k := c.active[addr]
	if k == nil {
		return
	}
	if from != c.cfg.Self {
		c.heardFrom(k, from, "")
	}
	ids := m.GetTransactionIds()
	switch {
	case len(ids) == 0 && k.flushFrom == from:
		k.flushUntil = time.Time{}
		for _, id := range slices.Sorted(maps.Keys(c.txs)) {
			if t := c.txs[id]; t.contract == addr && t.state == Pending && !t.retryAt.IsZero() {
				t.retryAt = c.now
			}
		}
	case len(ids) > 0 && uint64(max(0, m.GetRangeIndex()))+1 == c.rangeIndex(c.height):
		k.flushUntil = c.now.Add(time.Duration(c.cfg.SubmitterMisses) * c.cfg.HeartbeatInterval)
		k.flushRange, k.flushFrom = uint64(m.GetRangeIndex()), from
	}
	for _, id := range ids {
		t := c.txs[id]
		if t == nil || t.state.Final() {
			continue
		}
		if t.state != Dispatched && from == t.lateSub && t.coord != from {
			// the late dispatch this sender delegated away from: the
			// new delegation goes on (sim distseq seed 1046 at 3,000
			// steps: each of its heartbeats pulled D-tx68 back to a
			// submitter whose queue never landed it)
			continue
		}
		if t.state != Dispatched { // e.g. after this sender restarted: the submitter has it
			c.answered("deleg:" + t.id)
			c.become(t, Dispatched)
			t.dispRange = c.rangeIndex(c.height)
		}
		t.submitter, t.lastSubHB = from, c.now
	}
}

// onDispatched: the driver's answer to EffectDispatch. Success waits for
// the event (final on this node's indexer); a revert tells the sender,
// and whatever the coordinator assembled on its outputs is assembled
// again.
func (c *Core) onDispatched(in InputDispatched) {
	k, s := c.subOf(in.TxID)
	if s == nil || s.failed || in.OK || in.Reason == ReasonIntentConfirmed {
		// confirmed, by this copy or another: the event (final on this
		// node's indexer) says which, and whether to distribute
		return
	}
	s.failed, s.failedAt = true, in.Height
	k.quarantineSpends(s.last().Assembly, in.Height)
	c.transition(RoleSubmitter, s.txID, CDispatched, CAbandoned)
	if co := k.coord; co != nil {
		if t := co.txs[s.txID]; t != nil {
			c.drop(k, t)
			c.pump(k)
		}
	}
	nid := c.nextID("rv")
	env := c.envelope(k.addr, "")
	env.Body = &distseqpb.Envelope_TransactionReverted{TransactionReverted: &distseqpb.TransactionReverted{
		TransactionId: s.txID, DelegationId: s.delegationID, ContractAddress: k.addr, RevertReason: in.Reason, NotificationId: nid}}
	c.sendAssured("reverted:"+nid, s.sender, env, c.now.Add(2*c.hbTimeout()))
	if live(k) == 0 {
		c.sendSubmitterHeartbeat(k)
	}
}

// submitterConfirmed: the dispatched transaction is confirmed; its
// created states go to every other member (assured distribution,
// persisted here before the first send) and into this node's store.
func (c *Core) submitterConfirmed(k *contract, e ChainEvent) {
	s := k.subs[e.TxID]
	if s == nil {
		return
	}
	delete(k.subs, s.txID)
	var conf *dispatchRecord
	for i := range s.copies {
		if d := c.cfg.Domain.Digest(k.addr, s.txID, s.copies[i].Assembly); hex.EncodeToString(d[:]) == e.Digest {
			conf = &s.copies[i]
		}
	}
	if conf == nil {
		// another submitter's copy of the intent was confirmed: it
		// distributes; this one's states never existed
		c.ready.Batch.Dispatches = append(c.ready.Batch.Dispatches, s.record(k.addr, "reverted", e.Height, c.now))
		if !s.failed {
			c.transition(RoleSubmitter, s.txID, CDispatched, CAbandoned)
		}
		if live(k) == 0 {
			c.sendSubmitterHeartbeat(k)
		}
		return
	}
	c.ready.Batch.Dispatches = append(c.ready.Batch.Dispatches, s.record(k.addr, "confirmed", e.Height, c.now))
	c.transition(RoleSubmitter, s.txID, CDispatched, Confirmed)
	c.distributeCreated(k, s.txID, conf.Assembly, e.Height)
	if live(k) == 0 {
		c.sendSubmitterHeartbeat(k)
	}
}

func (c *Core) distribute(addr string, to NodeID, d *distseqpb.DistributeData, body []byte) {
	env := c.envelope(addr, "")
	env.Body = &distseqpb.Envelope_DistributeData{DistributeData: d}
	c.sendAssured("dist:"+d.GetDistributionId(), to, env, time.Time{})
	p := c.assured["dist:"+d.GetDistributionId()]
	p.backoff, p.raw = true, body
}

// resumeDistribution: after a restart, resend what was not acknowledged.
func (c *Core) resumeDistribution(o store.DistseqDistribution) {
	d := &distseqpb.DistributeData{}
	if o.Acked || proto.Unmarshal(o.Payload, d) != nil {
		return
	}
	c.distribute(o.Contract, NodeID(o.To), d, o.Payload)
}

// distributeCreated keeps what a confirmed transaction created and sends
// it to every other member (assured, persisted before the first send). A
// distribution's id is the transaction's and the receiver's, so a second
// distributor of the same transaction (the sender of a prepared one) is
// the same record and the receivers' duplicate.
func (c *Core) distributeCreated(k *contract, txID string, a Assembly, height uint64) {
	msg := &distseqpb.DistributeData{ContractAddress: k.addr, TransactionId: txID}
	for _, st := range a.Creates {
		msg.States = append(msg.States, &distseqpb.DistributedState{Id: st.ID, Owner: st.Owner, Data: st.Data, CreatedBy: txID})
	}
	c.keepStates(k, msg, height, true)
	for _, m := range k.g.members {
		if m == c.cfg.Self {
			continue
		}
		d := proto.Clone(msg).(*distseqpb.DistributeData)
		d.DistributionId = "dist/" + txID + "/" + string(m)
		body, _ := proto.Marshal(d)
		c.ready.Batch.Outbox = append(c.ready.Batch.Outbox, store.DistseqDistribution{ID: d.DistributionId, Contract: k.addr,
			To: string(m), Payload: body, CreatedAt: c.now, UpdatedAt: c.now})
		c.distribute(k.addr, m, d, body)
	}
}

// keepStates writes distributed states into this node's store and, when
// hold is set and the contract is loaded, into its in-memory copy. hold is
// for the states of a confirmation this node's indexer is reading now (its
// own submission's or its own prepared intent's): a later event of the same
// batch that spends them unholds them.
func (c *Core) keepStates(k *contract, d *distseqpb.DistributeData, height uint64, hold bool) {
	for _, s := range d.GetStates() {
		ref := StateRef{ID: s.GetId(), Owner: s.GetOwner(), Data: s.GetData(), CreatedBy: s.GetCreatedBy()}
		c.ready.Batch.States = append(c.ready.Batch.States, store.DistseqState{Contract: d.GetContractAddress(), ID: ref.ID,
			Data: stateData(ref), CreatedBy: ref.CreatedBy, Height: height})
		if hold && k != nil && k.loaded && (k.coord == nil || k.coord.spec[ref.ID] == nil) {
			k.hold(ref, height)
		}
	}
}

// refresh asks the driver to read k's unspent states again once this
// step's batch is committed (onLoaded holds those it lacks). A received
// distribution is held this way, not from the message: this node's indexer
// may have read the event that spent a state before the state's
// distribution arrived (the creator and its spender confirmed in one block,
// a distribution resent after its ack was lost); the store keeps such a
// state spent, where holding it from the message would offer a spent state
// to every assembly (each one reverting) and keep a prepared transaction
// that spends it dispatched for ever.
func (c *Core) refresh(k *contract) {
	if k == nil || !k.loaded {
		return
	}
	for _, e := range c.ready.Effects {
		if e.Kind == EffectLoad && e.Contract == k.addr {
			return
		}
	}
	c.ready.Effects = append(c.ready.Effects, Effect{Kind: EffectLoad, Contract: k.addr})
}

// onDistributeData: the receiver commits the states, then acknowledges
// (the ack is sent after the commit); a repeat is acknowledged again and
// changes nothing.
func (c *Core) onDistributeData(from NodeID, env *distseqpb.Envelope, m *distseqpb.DistributeData) {
	g := c.groupOf(m.GetContractAddress())
	if g == nil || !c.member(g) || !slices.Contains(g.members, from) {
		return
	}
	// no memory of what was received: a repeat is written again (the
	// store's merge makes that a no-op) and acknowledged again
	c.ready.Batch.Received = append(c.ready.Batch.Received, m.GetDistributionId())
	k := c.active[m.GetContractAddress()]
	c.keepStates(k, m, c.height, false)
	c.refresh(k)
	c.reply(from, env, func(r *distseqpb.Envelope) {
		r.Body = &distseqpb.Envelope_DistributeDataAck{DistributeDataAck: &distseqpb.DistributeDataAcknowledgement{DistributionId: m.GetDistributionId()}}
	})
}

func (c *Core) onDistributeAck(id string) {
	p := c.assured["dist:"+id]
	if p == nil {
		return
	}
	c.answered("dist:" + id)
	c.ready.Batch.Outbox = append(c.ready.Batch.Outbox, store.DistseqDistribution{ID: id, Contract: p.contract, To: string(p.to),
		Payload: p.raw, Acked: true, UpdatedAt: c.now})
}
