package distseq

import (
	"maps"
	"slices"

	"github.com/ordolabs/ordo/internal/distseq/distseqpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// Heartbeats and startup notifications (seed 003, "Node availability
// detection", "Heartbeat", "Startup", and the decision "When to send
// heartbeat messages").

// sendCoordinatorHeartbeat: fire and forget, to every member (this node's
// own sender role included), listing every transaction the coordinator is
// coordinating and has not dispatched.
func (c *Core) sendCoordinatorHeartbeat(k *contract) {
	co := k.coord
	ids := make([]string, 0, len(co.txs))
	for _, id := range slices.Sorted(maps.Keys(co.txs)) {
		if s := co.txs[id].state; s != CDispatched {
			ids = append(ids, id)
		}
	}
	hbID := c.nextID("hb")
	for _, m := range k.g.members {
		env := c.envelope(k.addr, "")
		env.Body = &distseqpb.Envelope_CoordinatorHeartbeat{CoordinatorHeartbeat: &distseqpb.CoordinatorHeartbeatNotification{
			HeartbeatId: hbID, Timestamp: timestamppb.New(c.now), ContractAddress: k.addr, TransactionIds: ids, BlockHeight: int64(c.height)}}
		c.send(m, env, false)
	}
	co.lastHB = c.now
}

// onCoordinatorHeartbeat: as a sender, refresh or re-delegate; as a
// possible coordinator, start coordinating if this node is more preferred
// than the sender of the heartbeat, or stop if it is less.
func (c *Core) onCoordinatorHeartbeat(from NodeID, addr string, m *distseqpb.CoordinatorHeartbeatNotification) {
	k := c.active[addr]
	if from != c.cfg.Self && k == nil {
		if g := c.groupOf(addr); g == nil || !c.member(g) || !c.ahead(addr, c.cfg.Self, from) {
			return // idle here, and not more preferred: nothing to do
		}
		k = c.activate(addr, false)
	}
	if k == nil {
		return
	}
	if from != c.cfg.Self {
		c.heardFrom(k, from, m.GetHeartbeatId())
	}
	listed := map[string]bool{}
	for _, id := range m.GetTransactionIds() {
		listed[id] = true
	}
	var redo []*senderTx
	for _, id := range slices.Sorted(maps.Keys(c.txs)) {
		t := c.txs[id]
		if t.contract != addr || (t.state != Delegating && t.state != Delegated) {
			continue
		}
		switch {
		case t.coord == from && listed[id]:
			if t.state == Delegating {
				c.answered("deleg:" + t.id)
				c.become(t, Delegated)
			}
			t.lastHB = c.now
		case t.coord == from && t.state == Delegated && c.now.Sub(t.since) > c.cfg.HeartbeatInterval:
			redo = append(redo, t) // the coordinator forgot it (restart, abandonment)
		case t.coord != from && c.ahead(addr, from, t.coord):
			redo = append(redo, t) // a more preferred coordinator is alive
		}
	}
	for _, t := range redo {
		if t.state == Delegating || t.state == Delegated {
			c.handle(t)
		}
	}
	if from == c.cfg.Self || c.rangeIndex(uint64(max(0, m.GetBlockHeight()))) != c.rangeIndex(c.height) {
		return
	}
	switch {
	case c.ahead(addr, c.cfg.Self, from) && c.acceptable(k, c.height, c.cfg.Self):
		c.ensureCoordinator(k)
	case k.coord != nil && c.ahead(addr, from, c.cfg.Self):
		c.stepDown(k)
	}
}

// ahead reports whether a ranks before b in contract's preference for
// this node's range (availability aside).
func (c *Core) ahead(addr string, a, b NodeID) bool {
	g := c.groupOf(addr)
	if g == nil {
		return false
	}
	pref := c.rings[g.ringKey].PreferenceAt(addr, c.rangeIndex(c.height), nil)
	ia, ib := slices.Index(pref, a), slices.Index(pref, b)
	return ia >= 0 && ib >= 0 && ia < ib
}

// sendStartup: a ReliableNotification to every other member, resent until
// acknowledged or for one delegation timeout (a member that is down sends
// its own when it returns).
func (c *Core) sendStartup(k *contract) {
	id := c.nextID("su")
	for _, m := range k.g.members {
		if m == c.cfg.Self {
			continue
		}
		env := c.envelope(k.addr, "")
		env.Body = &distseqpb.Envelope_Startup{Startup: &distseqpb.StartupNotification{StartupId: id, Timestamp: timestamppb.New(c.now), ContractAddress: k.addr}}
		c.sendAssured("startup:"+id+"@"+string(m), m, env, c.now.Add(2*c.cfg.DelegationTimeout))
	}
}

// onStartup acknowledges, and re-evaluates this node's delegations and
// coordination against the node that started.
func (c *Core) onStartup(from NodeID, env *distseqpb.Envelope, m *distseqpb.StartupNotification) {
	c.reply(from, env, func(r *distseqpb.Envelope) {
		r.Body = &distseqpb.Envelope_StartupAck{StartupAck: &distseqpb.StartupNotificationAcknowledgement{StartupId: m.GetStartupId()}}
	})
	k := c.active[env.GetContractAddress()]
	if k == nil {
		return
	}
	c.heardFrom(k, from, "")
	for _, id := range slices.Sorted(maps.Keys(c.txs)) {
		t := c.txs[id]
		if t.contract == k.addr && (t.state == Delegating || t.state == Delegated) && t.coord != from && c.ahead(k.addr, from, t.coord) {
			c.handle(t)
		}
	}
	if k.coord != nil && c.ahead(k.addr, from, c.cfg.Self) {
		c.stepDown(k)
	}
}
