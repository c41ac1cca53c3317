package distseq

import (
	"encoding/hex"
	"maps"
	"slices"
	"time"

	"github.com/ordolabs/ordo/internal/distseq/distseqpb"
)

// coordinator is this node coordinating one contract (seed 003,
// "Coordinate transaction"): a single-threaded assembly queue, the graph
// of assembled transactions (each may spend the outputs of those before
// it: speculative chaining), the endorsements gathered, and the leave to
// dispatch. Nothing of it is durable until the dispatch (1C-2C).
type coordinator struct {
	txs        map[string]*ctx
	queue      []string          // Queued, in arrival order
	assembling map[string]bool   // the transactions in Assembling (at most MaxAssembling)
	offered    map[string]string // state -> the assembly in flight it was offered to
	order      []string          // assembled, in assembly order: the dispatch order
	locked     map[string]string
	spec       map[string]*specState
	lastHB     time.Time
	idleSince  time.Time
}

type specState struct {
	ref  StateRef
	by   string
	seqn int
}

// ctx is one delegation as its coordinator sees it ("Coordinators
// transaction state": Queued, Assembling, Attestation, Confirmation,
// Dispatched).
type ctx struct {
	id           string
	sender       NodeID
	delegationID string
	intent       []byte
	prepare      bool   // the sender's caller submits it (prepare_only)
	prepared     []byte // the call handed to its sender, then dispatched
	state        State
	assembleID   string
	assembleAt   time.Time
	notBefore    time.Time  // no assembly before (after an unusable one)
	offer        []StateRef // the states offered to the assembly in flight
	asm          *Assembly
	senderSig    []byte
	deps         []string
	ends         map[NodeID][]byte
	endN         map[NodeID]int // endorsement requests made per member
	retryEndAt   map[NodeID]time.Time
	confirmID    string
	confirmUntil time.Time
	granted      bool
}

func (c *Core) cbecome(t *ctx, s State) {
	if t.state == s {
		return
	}
	c.transition(RoleCoordinator, t.id, t.state, s)
	t.state = s
}

// ensureCoordinator starts coordinating k (heartbeats follow at once).
func (c *Core) ensureCoordinator(k *contract) *coordinator {
	if k.coord == nil {
		k.coord = &coordinator{txs: map[string]*ctx{}, locked: map[string]string{}, spec: map[string]*specState{},
			assembling: map[string]bool{}, offered: map[string]string{}, idleSince: c.now}
	}
	return k.coord
}

// onDelegation is OnDelegationCommand: check the block range, then that
// this node is the coordinator it would select; accept idempotently.
func (c *Core) onDelegation(from NodeID, env *distseqpb.Envelope, m *distseqpb.DelegationCommand) {
	k := c.activate(env.GetContractAddress(), true)
	if k == nil {
		return
	}
	if from != c.cfg.Self {
		c.heardFrom(k, from, "")
	}
	reject := func(r *distseqpb.DelegationRequestRejected) {
		r.TransactionId, r.DelegateNodeId, r.DelegationId, r.ContractAddress = m.GetTransactionId(), string(c.cfg.Self), m.GetDelegationId(), k.addr
		c.reply(from, env, func(e *distseqpb.Envelope) {
			e.Body = &distseqpb.Envelope_DelegationRejected{DelegationRejected: r}
		})
	}
	if c.rangeIndex(uint64(max(0, m.GetBlockHeight()))) != c.rangeIndex(c.height) {
		reject(&distseqpb.DelegationRequestRejected{RejectReason: distseqpb.DelegationRequestRejectedReason_MismatchedBlockHeight,
			MismatchedBlockHeightDetail: &distseqpb.MismatchedBlockHeightDetail{ProvidedBlockHeight: m.GetBlockHeight(), ObservedBlockHeight: int64(c.height)}})
		return
	}
	if !c.acceptable(k, c.height, c.cfg.Self) {
		pref := c.preference(k, c.height)
		d := &distseqpb.NotPreferredCoordinatorDetail{}
		if len(pref) > 0 {
			d.PreferredCoordinator = string(pref[0])
			d.LatestHeartbeatId = k.heardID[pref[0]]
		}
		reject(&distseqpb.DelegationRequestRejected{RejectReason: distseqpb.DelegationRequestRejectedReason_NotPreferredCoordinator, NotPreferredCoordinatorDetail: d})
		return
	}
	co := c.ensureCoordinator(k)
	t := co.txs[m.GetTransactionId()]
	switch {
	case t == nil && k.subs[m.GetTransactionId()] != nil && !k.subs[m.GetTransactionId()].failed:
		// dispatched by this node before it forgot the coordination (a
		// restart): accept; its submitter heartbeats tell the sender
		c.reply(from, env, func(e *distseqpb.Envelope) {
			e.Body = &distseqpb.Envelope_DelegationAccepted{DelegationAccepted: &distseqpb.DelegationRequestAccepted{
				TransactionId: m.GetTransactionId(), DelegateNodeId: string(c.cfg.Self), DelegationId: m.GetDelegationId(), ContractAddress: k.addr}}
		})
		c.sendSubmitterHeartbeat(k)
		return
	case t == nil:
		var intent []byte
		if len(m.GetPrivateTransactions()) > 0 {
			intent = m.GetPrivateTransactions()[0]
		}
		t = &ctx{id: m.GetTransactionId(), sender: from, delegationID: m.GetDelegationId(), intent: intent, prepare: m.GetPrepareOnly()}
		co.txs[t.id] = t
		co.queue = append(co.queue, t.id)
		c.cbecome(t, CQueued)
	case t.delegationID != m.GetDelegationId():
		// a re-delegation of a transaction this coordinator holds
		// (the sender restarted or timed out): keep its progress.
		t.sender, t.delegationID = from, m.GetDelegationId()
		switch {
		case t.state == CAssembling:
			// the sender refuses requests of its old delegation: ask
			// again under the new one, as the same assembly
			c.answered("asm:" + t.assembleID)
			c.requestAssembly(k, t)
		case t.state == CConfirmation && !t.granted:
			c.requestConfirmation(k, t)
		}
	}
	c.reply(from, env, func(e *distseqpb.Envelope) {
		e.Body = &distseqpb.Envelope_DelegationAccepted{DelegationAccepted: &distseqpb.DelegationRequestAccepted{
			TransactionId: t.id, DelegateNodeId: string(c.cfg.Self), DelegationId: t.delegationID, ContractAddress: k.addr}}
	})
	if co.lastHB.IsZero() {
		c.sendCoordinatorHeartbeat(k)
	}
	c.pump(k)
}

func (c *Core) coordTx(addr, id string) (*contract, *ctx) {
	k := c.active[addr]
	if k == nil || k.coord == nil {
		return nil, nil
	}
	return k, k.coord.txs[id]
}

// advance asks for leave to dispatch every endorsed transaction whose
// dependencies are endorsed, and dispatches, in assembly order, every
// granted one whose dependencies are dispatched.
func (c *Core) advance(k *contract) {
	co := k.coord
	for _, id := range co.order {
		t := co.txs[id]
		if t.state == CAttestation && len(t.ends) >= k.g.threshold && c.depsAtLeast(co, t, CConfirmation) {
			c.cbecome(t, CConfirmation)
			c.requestConfirmation(k, t)
		}
	}
	for _, id := range slices.Clone(co.order) {
		t := co.txs[id]
		if t != nil && t.state == CConfirmation && t.granted && c.depsAtLeast(co, t, CDispatched) {
			c.dispatch(k, t)
		}
	}
}

func rank(s State) int {
	switch s {
	case CAttestation:
		return 1
	case CConfirmation:
		return 2
	case CDispatched:
		return 3
	default: // the states before an attestation rank lowest
	}
	return 0
}

// depsAtLeast: every dependency still in the graph has reached s (one
// gone from it was confirmed on chain).
func (c *Core) depsAtLeast(co *coordinator, t *ctx, s State) bool {
	for _, d := range t.deps {
		if dt := co.txs[d]; dt != nil && rank(dt.state) < rank(s) {
			return false
		}
	}
	return true
}

func (c *Core) requestConfirmation(k *contract, t *ctx) {
	if t.confirmID != "" {
		c.answered("dc:" + t.confirmID)
	}
	t.confirmID = c.nextID("dc")
	t.confirmUntil = c.now.Add(2 * c.hbTimeout())
	req := &distseqpb.RequestDispatchConfirmation{TransactionId: t.id, DelegationId: t.delegationID, ContractAddress: k.addr, RequestId: t.confirmID,
		Spends: t.asm.Spends}
	if t.prepare {
		call, err := c.confirmCall(k, t)
		if err != nil {
			c.drop(k, t)
			return
		}
		t.prepared, req.PreparedCall, req.PreparedSpends = call, call, t.asm.Spends
		for _, s := range t.asm.Creates {
			req.PreparedCreates = append(req.PreparedCreates, &distseqpb.DistributedState{Id: s.ID, Owner: s.Owner, Data: s.Data, CreatedBy: t.id})
		}
	}
	env := c.envelope(k.addr, "")
	env.Body = &distseqpb.Envelope_RequestDispatchConfirmation{RequestDispatchConfirmation: req}
	c.sendAssured("dc:"+t.confirmID, t.sender, env, t.confirmUntil)
}

func (c *Core) onDispatchConfirmation(from NodeID, addr string, m *distseqpb.DispatchConfirmationResponse) {
	k, t := c.coordTx(addr, m.GetTransactionId())
	if t == nil || t.state != CConfirmation || t.confirmID != m.GetRequestId() || from != t.sender {
		return
	}
	c.answered("dc:" + t.confirmID)
	t.granted = true
	c.advance(k)
}

// onDispatchConfirmationError: the sender re-delegated; this copy is
// abandoned and what was assembled on its outputs is assembled again.
func (c *Core) onDispatchConfirmationError(from NodeID, addr string, m *distseqpb.DispatchConfirmationError) {
	k, t := c.coordTx(addr, m.GetTransactionId())
	if t == nil || t.state != CConfirmation || t.confirmID != m.GetRequestId() || from != t.sender {
		return
	}
	c.answered("dc:" + t.confirmID)
	c.drop(k, t)
	c.pump(k)
}

// dispatch commits the dispatch (1C-2C) and hands it to the submitter
// role after the commit.
func (c *Core) dispatch(k *contract, t *ctx) {
	call, err := t.prepared, error(nil)
	if call == nil { // the sender holds the prepared one: dispatch exactly that
		call, err = c.confirmCall(k, t)
	}
	if err != nil {
		c.drop(k, t)
		return
	}
	c.cbecome(t, CDispatched)
	c.submit(k, t, call)
	env := c.envelope(k.addr, "")
	env.Body = &distseqpb.Envelope_TransactionDispatched{TransactionDispatched: &distseqpb.TransactionDispatched{
		TransactionId: t.id, DelegationId: t.delegationID, ContractAddress: k.addr, Submitter: string(c.cfg.Self)}}
	c.send(t.sender, env, false)
}

// confirmCall is the prepared transaction: the domain's call of t's
// assembly with its endorsements, in the committee's order.
func (c *Core) confirmCall(k *contract, t *ctx) ([]byte, error) {
	ends := make([]Endorsement, 0, len(t.ends))
	for _, m := range k.g.members {
		if sig, ok := t.ends[m]; ok {
			ends = append(ends, Endorsement{Member: m, Signature: sig})
		}
	}
	return c.cfg.Domain.Confirm(k.addr, t.id, *t.asm, ends)
}

// graphOf returns t and every transaction that spends its outputs,
// transitively, in assembly order.
func (c *Core) graphOf(co *coordinator, t *ctx) []*ctx {
	in := map[string]bool{t.id: true}
	out := []*ctx{t}
	for _, id := range co.order {
		o := co.txs[id]
		if o == nil || in[id] {
			continue
		}
		for _, d := range o.deps {
			if in[d] {
				in[id] = true
				out = append(out, o)
				break
			}
		}
	}
	return out
}

// unassemble takes t out of the graph: its locks and outputs go.
func (c *Core) unassemble(co *coordinator, t *ctx) {
	if t.asm != nil {
		for _, s := range t.asm.Spends {
			if co.locked[s] == t.id {
				delete(co.locked, s)
			}
		}
		for _, s := range t.asm.Creates {
			delete(co.spec, s.ID)
		}
	}
	co.order = slices.DeleteFunc(co.order, func(id string) bool { return id == t.id })
	if t.confirmID != "" {
		c.answered("dc:" + t.confirmID)
	}
	if t.assembleID != "" {
		c.answered("asm:" + t.assembleID)
		c.forget("end:" + t.assembleID + ":")
	}
	for m := range t.ends {
		delete(t.ends, m)
	}
	t.asm, t.deps, t.granted, t.confirmID = nil, nil, false, ""
	t.endN, t.retryEndAt = map[NodeID]int{}, map[NodeID]time.Time{}
}

// requeue sends t and its dependants back to assembly (an endorsement
// error, a context that moved on).
func (c *Core) requeue(k *contract, t *ctx) {
	co := k.coord
	for _, o := range c.graphOf(co, t) {
		if o.state == CDispatched {
			continue
		}
		c.unassemble(co, o)
		c.endAssembly(co, o)
		c.cbecome(o, CQueued)
		if !slices.Contains(co.queue, o.id) { // a dependant of two dropped transactions is queued once
			co.queue = append(co.queue, o.id)
		}
	}
}

// drop stops coordinating t; its dependants are assembled again.
func (c *Core) drop(k *contract, t *ctx) {
	co := k.coord
	deps := c.graphOf(co, t)[1:]
	c.unassemble(co, t)
	c.endAssembly(co, t)
	co.queue = slices.DeleteFunc(co.queue, func(id string) bool { return id == t.id })
	c.cbecome(t, CAbandoned)
	delete(co.txs, t.id)
	for _, o := range deps {
		if co.txs[o.id] != nil && o.state != CDispatched {
			c.requeue(k, o)
		}
	}
}

// stepDown: this node is no longer the coordinator it would select (a new
// range, a more preferred member alive): it abandons everything not
// dispatched, stops its heartbeats and rejects new delegations (by the
// checks of onDelegation). Dispatched transactions stay with the
// submitter role.
func (c *Core) stepDown(k *contract) {
	co := k.coord
	for _, id := range slices.Clone(co.order) {
		if t := co.txs[id]; t != nil && t.state != CDispatched {
			c.drop(k, t)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(co.txs)) {
		if t := co.txs[id]; t != nil && t.state != CDispatched {
			c.drop(k, t)
		}
	}
	k.coord = nil
}

// coordNewRange: at a range boundary the coordinator keeps going only if
// it is still the one it would select.
func (c *Core) coordNewRange(k *contract) {
	if k.coord != nil && !c.acceptable(k, c.height, c.cfg.Self) {
		c.stepDown(k)
	}
}

// coordConfirmed: an IntentConfirmed event. A transaction in the graph
// with its id is done: its outputs become held states when the confirmed
// assembly is its own; when another copy of the intent was confirmed (its
// sender re-delegated to another coordinator), its own assembly never
// lands: its locks and outputs go and what was assembled on them is
// assembled again. Any other transaction in the graph that spends a state
// the event spent is assembled again.
func (c *Core) coordConfirmed(k *contract, e ChainEvent) {
	co := k.coord
	if co == nil {
		return
	}
	if t := co.txs[e.TxID]; t != nil {
		var again []*ctx
		if t.asm != nil {
			if d := c.cfg.Domain.Digest(k.addr, t.id, *t.asm); hex.EncodeToString(d[:]) == e.Digest {
				for _, s := range t.asm.Creates {
					if k.loaded {
						k.hold(s, e.Height)
					}
				}
			} else {
				again = c.graphOf(co, t)[1:]
			}
			for _, s := range t.asm.Spends {
				if co.locked[s] == t.id {
					delete(co.locked, s)
				}
			}
			for _, s := range t.asm.Creates {
				delete(co.spec, s.ID)
			}
		}
		co.order = slices.DeleteFunc(co.order, func(id string) bool { return id == t.id })
		co.queue = slices.DeleteFunc(co.queue, func(id string) bool { return id == t.id })
		c.endAssembly(co, t)
		if t.state != CDispatched {
			c.answered("asm:" + t.assembleID)
			c.answered("dc:" + t.confirmID)
		}
		delete(co.txs, t.id)
		for _, o := range again {
			if co.txs[o.id] != nil && o.state != CDispatched {
				c.requeue(k, o)
			}
		}
	}
	for _, s := range e.Spends {
		if by := co.locked[s]; by != "" {
			if t := co.txs[by]; t != nil && t.state != CDispatched {
				c.requeue(k, t)
			}
		}
	}
	c.pump(k)
}

// coordTimers: heartbeats, the assembly timeout, endorsement retries,
// the dispatch-confirmation deadline, and going idle.
func (c *Core) coordTimers(k *contract) {
	co := k.coord
	if co == nil {
		return
	}
	for _, id := range slices.Sorted(maps.Keys(co.assembling)) {
		if t := co.txs[id]; t != nil && c.now.Sub(t.assembleAt) >= c.cfg.AssembleTimeout {
			c.endAssembly(co, t)
			c.drop(k, t)
		}
	}
	for _, id := range slices.Clone(co.order) {
		t := co.txs[id]
		if t == nil {
			continue
		}
		if t.state == CConfirmation && !t.granted && !c.now.Before(t.confirmUntil) {
			c.drop(k, t) // the sender does not answer: it will re-delegate
			continue
		}
		if t.state == CAttestation {
			c.retryEndorsements(k, t)
		}
	}
	c.pump(k)
	if len(co.txs) > 0 {
		co.idleSince = c.now
	}
	if c.now.Sub(co.idleSince) >= c.cfg.IdleAfter {
		k.coord = nil // nothing in flight: heartbeats stop
		return
	}
	if c.now.Sub(co.lastHB) >= c.cfg.HeartbeatInterval {
		c.sendCoordinatorHeartbeat(k)
	}
}
