package distseq

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ordolabs/ordo/internal/distseq/distseqpb"
	"github.com/ordolabs/ordo/internal/store"
)

// senderTx is one of this node's intents in flight, as its sender sees it
// (seed 003, "Senders transaction state"; the diagram's arrows are the
// become calls below). Only the intent is durable; the rest is memory,
// rebuilt by re-delegating after a restart ("Sender failover").
type senderTx struct {
	id, contract, key string
	intent            []byte
	created           time.Time
	// prepare: the caller submits the transaction itself; prepared is
	// the latest prepared transaction a coordinator handed back.
	prepare  bool
	prepared []byte

	state State
	since time.Time // entered state

	coord        NodeID // the active delegation's coordinator
	delegationID string
	delegRange   uint64
	lastHB       time.Time // last coordinator heartbeat listing it

	waitRange bool // the delegate was ahead: wait for this range
	rangeWant uint64
	retryAt   time.Time // Pending or Parked: handle again then
	parkedAt  time.Time
	// parkReason is the domain's reason at the latest park (the revert's
	// reason once ParkTimeout passed).
	parkReason string

	submitter NodeID
	lastSubHB time.Time
	// dispRange: this node's range when the dispatch was granted (or
	// learned of from a submitter heartbeat); DispatchRanges later the
	// sender delegates again.
	dispRange uint64
	// lateSub is the submitter of a dispatch the sender found late
	// (DispatchRanges) and delegated again: its heartbeats listing the
	// transaction no longer make it Dispatched, unless that node is the
	// new delegation's coordinator (which accepts it on the strength of
	// the dispatch it holds).
	lateSub NodeID
	// granted: the assemblies this sender granted a dispatch of that may
	// still land (durable: the intent's Granted); a park reverts only once
	// none is left (core_park.go). creators: the creator of each state an
	// assembly of this incarnation spends, as the coordinator offered it.
	granted  []store.DistseqGrant
	creators map[string]string
	// readAt: a Parked intent past ParkTimeout with granted dispatches
	// reads their spends again then; reading: a read is outstanding.
	readAt     time.Time
	reading    bool
	reverts    int
	redelegate int // delegations made, for metrics and tests
}

func (c *Core) become(t *senderTx, s State) {
	if t.state == s {
		return
	}
	c.transition(RoleSender, t.id, t.state, s)
	t.state, t.since = s, c.now
}

// onSubmit is the user's ptx_sendTransaction: the intent is committed
// (1S-2S) before the reply, then HandleTransaction runs.
func (c *Core) onSubmit(in InputSubmit) {
	fail := func(err error) { c.ready.Replies = append(c.ready.Replies, Reply{Ref: in.Ref, Err: err}) }
	if in.Key != "" {
		if id, ok := c.keys[in.Key]; ok {
			// the same intent again is answered its id; another one is
			// refused
			if t := c.txs[id]; t != nil {
				if err := CheckKey(store.DistseqIntent{TxID: id, Contract: t.contract, Payload: t.intent, Prepare: t.prepare}, in); err != nil {
					fail(err)
					return
				}
			}
			c.ready.Replies = append(c.ready.Replies, Reply{Ref: in.Ref, TxID: id})
			return
		}
	}
	g := c.groupOf(in.Contract)
	if g == nil || !c.member(g) {
		fail(fmt.Errorf("%w: %q (this node is no member of it)", ErrNoSuchGroup, in.Contract))
		return
	}
	if err := c.cfg.Domain.CheckIntent(in.Intent); err != nil {
		fail(fmt.Errorf("%w: %w", ErrBadIntent, err))
		return
	}
	if in.TxID == "" || c.txs[in.TxID] != nil {
		fail(fmt.Errorf("%w: %q", ErrDuplicate, in.TxID))
		return
	}
	t := c.newTx(in.TxID, in.Contract, in.Key, in.Intent, c.now)
	t.prepare = in.Prepare
	c.ready.Batch.Intents = append(c.ready.Batch.Intents, store.DistseqIntent{TxID: t.id, Contract: t.contract,
		IdempotencyKey: t.key, Payload: t.intent, Status: "pending", Prepare: t.prepare, CreatedAt: c.now, UpdatedAt: c.now})
	c.ready.Replies = append(c.ready.Replies, Reply{Ref: in.Ref, TxID: t.id})
	c.handle(t)
}

// CheckKey reports whether in may be answered with rec, the intent its
// idempotency key names: nil for the same intent (contract, intent and
// prepare alike), an error wrapping ErrKeyConflict for another one (a send
// answered with a prepared intent's id would wait for ever for a caller
// who never sends it).
func CheckKey(rec store.DistseqIntent, in InputSubmit) error {
	if rec.Contract != in.Contract || rec.Prepare != in.Prepare || !bytes.Equal(rec.Payload, in.Intent) {
		return fmt.Errorf("%w: key %q names %s", ErrKeyConflict, in.Key, rec.TxID)
	}
	return nil
}

func (c *Core) newTx(id, addr, key string, intent []byte, created time.Time) *senderTx {
	t := &senderTx{id: id, contract: addr, key: key, intent: intent, created: created, state: Pending, since: c.now}
	c.txs[id] = t
	if key != "" {
		c.keys[key] = id
	}
	if k := c.activate(addr, false); k != nil {
		k.inflight++
	}
	c.transition(RoleSender, id, "", Pending)
	return t
}

// resumeIntent: after a restart, a committed intent is delegated again
// (between 2S and 6S); the node woke with work, so it announces itself.
func (c *Core) resumeIntent(in store.DistseqIntent) {
	if c.groupOf(in.Contract) == nil || c.txs[in.TxID] != nil {
		return
	}
	if k := c.activate(in.Contract, true); k == nil {
		return
	}
	t := c.newTx(in.TxID, in.Contract, in.IdempotencyKey, in.Payload, in.CreatedAt)
	t.reverts, t.prepare, t.prepared, t.granted = in.Attempts, in.Prepare, in.Prepared, in.Granted
	t.retryAt = c.now
}

// handle is HandleTransaction and "Select available coordinator": pick
// the most preferred available member for this node's block range and
// delegate to it (a Command, resent until answered; a timeout marks the
// member unavailable and selects again). Other transactions of the
// contract delegated elsewhere follow to the same coordinator.
func (c *Core) handle(t *senderTx) {
	if t.state.Final() {
		return
	}
	k := c.activate(t.contract, false)
	if k == nil {
		c.finish(t, Reverted, "this node is no longer a member of the privacy group")
		return
	}
	t.waitRange, t.retryAt = false, time.Time{}
	if c.holding(k) {
		c.become(t, Pending)
		t.retryAt = k.flushUntil
		return
	}
	pref := c.preference(k, c.height)
	if len(pref) == 0 {
		clear(k.unavailable) // everyone timed out: start over
		pref = c.preference(k, c.height)
	}
	coord := pref[0]
	c.delegate(k, t, coord)
	for _, id := range slices.Sorted(maps.Keys(c.txs)) {
		o := c.txs[id]
		if o != t && o.contract == t.contract && (o.state == Delegating || o.state == Delegated) && o.coord != coord {
			c.delegate(k, o, coord)
		}
	}
}

// holding: submitter heartbeats for the previous range are still
// arriving; nothing is delegated to the new range's coordinator until that
// range's dispatched transactions are confirmed (seed 003, switchover).
// Dispatches of older ranges hold nothing: a submitter stuck on them would
// hold every sender of the contract for as long as it heartbeats.
func (c *Core) holding(k *contract) bool {
	return c.now.Before(k.flushUntil) && k.flushRange+1 == c.rangeIndex(c.height)
}

func (c *Core) delegate(k *contract, t *senderTx, coord NodeID) {
	c.answered("deleg:" + t.id)
	t.coord, t.delegationID, t.delegRange = coord, c.nextID("d"), c.rangeIndex(c.height)
	t.redelegate++
	c.become(t, Delegating)
	env := c.envelope(k.addr, "")
	env.Body = &distseqpb.Envelope_DelegationCommand{DelegationCommand: &distseqpb.DelegationCommand{
		TransactionId: t.id, DelegateNodeId: string(coord), DelegationId: t.delegationID,
		PrivateTransactions: [][]byte{t.intent}, BlockHeight: int64(c.height), PrepareOnly: t.prepare}}
	c.sendAssured("deleg:"+t.id, coord, env, c.now.Add(c.cfg.DelegationTimeout))
}

// active returns the transaction whose active delegation is (from, id).
func (c *Core) activeDelegation(txID string, from NodeID, delegationID string) *senderTx {
	t := c.txs[txID]
	if t == nil || t.coord != from || (delegationID != "" && t.delegationID != delegationID) {
		return nil
	}
	return t
}

func (c *Core) onDelegationAccepted(from NodeID, m *distseqpb.DelegationRequestAccepted) {
	t := c.activeDelegation(m.GetTransactionId(), from, m.GetDelegationId())
	if t == nil {
		return
	}
	c.answered("deleg:" + t.id)
	if k := c.active[t.contract]; k != nil {
		c.heardFrom(k, from, "")
	}
	if t.state == Delegating {
		t.lastHB = c.now
		c.become(t, Delegated)
	}
}

func (c *Core) onDelegationRejected(from NodeID, m *distseqpb.DelegationRequestRejected) {
	t := c.activeDelegation(m.GetTransactionId(), from, m.GetDelegationId())
	if t == nil || t.state != Delegating {
		return
	}
	c.answered("deleg:" + t.id)
	k := c.active[t.contract]
	c.become(t, Pending)
	switch m.GetRejectReason() {
	case distseqpb.DelegationRequestRejectedReason_MismatchedBlockHeight:
		theirs := c.rangeIndex(uint64(max(0, m.GetMismatchedBlockHeightDetail().GetObservedBlockHeight())))
		if theirs > c.rangeIndex(c.height) {
			t.waitRange, t.rangeWant = true, theirs // the delegate is ahead: wait for our indexer
			return
		}
		t.retryAt = c.now.Add(c.cfg.RetryInterval) // the delegate is behind: keep trying
	case distseqpb.DelegationRequestRejectedReason_NotPreferredCoordinator:
		if k != nil {
			delete(k.unavailable, NodeID(m.GetNotPreferredCoordinatorDetail().GetPreferredCoordinator()))
		}
		c.handle(t)
	}
}

// onAssembleRequest: assemble against the coordinator's domain context,
// only for the active delegation.
func (c *Core) onAssembleRequest(from NodeID, env *distseqpb.Envelope, m *distseqpb.AssembleRequest) {
	fail := func(msg string) {
		c.reply(from, env, func(r *distseqpb.Envelope) {
			r.Body = &distseqpb.Envelope_AssembleError{AssembleError: &distseqpb.AssembleError{
				TransactionId: m.GetTransactionId(), AssembleRequestId: m.GetAssembleRequestId(),
				ContractAddress: env.GetContractAddress(), ErrorMessage: msg}}
		})
	}
	t := c.txs[m.GetTransactionId()]
	if t == nil {
		fail("the transaction is not in flight at its sender")
		return
	}
	if c.activeDelegation(t.id, from, m.GetDelegationId()) == nil || (t.state != Delegated && t.state != Delegating) {
		fail("not the active delegation of the transaction")
		return
	}
	if t.state == Delegating { // the acceptance was lost; the request proves it
		c.answered("deleg:" + t.id)
		t.lastHB = c.now
	}
	c.become(t, Assembling)
	var avail []StateRef
	if err := json.Unmarshal(m.GetStateLocks(), &avail); err != nil {
		fail("state locks: " + err.Error())
		c.become(t, Delegated)
		return
	}
	a, err := c.cfg.Domain.Assemble(t.contract, t.id, c.cfg.Self, t.intent, avail)
	switch {
	case errors.Is(err, ErrNotReady):
		fail(err.Error())
		c.park(t)
		t.parkReason = err.Error()
		return
	case err != nil:
		fail(err.Error())
		c.finish(t, Reverted, err.Error())
		return
	}
	if t.creators == nil {
		t.creators = map[string]string{}
	}
	for id, by := range creatorsOf(a.Spends, avail) { // every assembly's: a grant may name an earlier one
		t.creators[id] = by
	}
	d := c.cfg.Domain.Digest(t.contract, t.id, a)
	post, _ := json.Marshal(postAssembly{Assembly: a, Signature: ed25519.Sign(c.cfg.Key, d[:])})
	c.reply(from, env, func(r *distseqpb.Envelope) {
		r.Body = &distseqpb.Envelope_AssembleResponse{AssembleResponse: &distseqpb.AssembleResponse{
			TransactionId: t.id, AssembleRequestId: m.GetAssembleRequestId(), ContractAddress: t.contract, PostAssembly: post}}
	})
	c.become(t, Delegated)
}

type postAssembly struct {
	Assembly  Assembly `json:"assembly"`
	Signature []byte   `json:"signature"`
}

// parkedReason is the domain's own reason in a park's error (after
// ErrNotReady's text), or "".
func parkedReason(msg string) string {
	_, reason, ok := strings.Cut(msg, ErrNotReady.Error()+": ")
	if !ok {
		return ""
	}
	return reason
}

// park: not ready to assemble (no funds); try again later, revert after
// ParkTimeout.
func (c *Core) park(t *senderTx) {
	if t.parkedAt.IsZero() {
		t.parkedAt = c.now
	}
	c.answered("deleg:" + t.id)
	c.become(t, Parked)
	t.retryAt = c.now.Add(c.cfg.ParkRetry)
}

// onRequestDispatchConfirmation grants the dispatch to the active
// delegation only; anything else is refused.
func (c *Core) onRequestDispatchConfirmation(from NodeID, env *distseqpb.Envelope, m *distseqpb.RequestDispatchConfirmation) {
	t := c.activeDelegation(m.GetTransactionId(), from, m.GetDelegationId())
	ok := t != nil && (t.state == Delegated || t.state == Delegating || t.state == Prepared) &&
		(!t.prepare || len(m.GetPreparedCall()) > 0)
	dirty := false
	if ok && t.prepare {
		p := PreparedTx{Call: m.GetPreparedCall(), Assembly: Assembly{Spends: m.GetPreparedSpends()}}
		for _, s := range m.GetPreparedCreates() {
			p.Assembly.Creates = append(p.Assembly.Creates, StateRef{ID: s.GetId(), Owner: s.GetOwner(), Data: s.GetData()})
		}
		var prev PreparedTx
		if json.Unmarshal(t.prepared, &prev) == nil && !bytes.Equal(prev.Call, p.Call) {
			p.Earlier = append(prev.Earlier, prev.Assembly)
			p.Earlier = p.Earlier[max(0, len(p.Earlier)-MaxEarlierPrepared):]
		} else {
			p.Earlier = prev.Earlier
		}
		if b, _ := json.Marshal(p); !bytes.Equal(t.prepared, b) {
			// committed before the grant goes out: the caller reads it
			t.prepared, dirty = b, true
		}
	}
	spends := m.GetSpends()
	if len(spends) == 0 { // a coordinator before the spends field
		spends = m.GetPreparedSpends()
	}
	if ok && c.noteGrant(t, spends) {
		dirty = true
	}
	if dirty { // committed before the grant goes out
		c.ready.Batch.Intents = append(c.ready.Batch.Intents, c.intentRecord(t, "pending", ""))
	}
	c.reply(from, env, func(r *distseqpb.Envelope) {
		if ok {
			r.Body = &distseqpb.Envelope_DispatchConfirmation{DispatchConfirmation: &distseqpb.DispatchConfirmationResponse{
				TransactionId: m.GetTransactionId(), DelegationId: m.GetDelegationId(), ContractAddress: env.GetContractAddress(), RequestId: m.GetRequestId()}}
			return
		}
		r.Body = &distseqpb.Envelope_DispatchConfirmationError{DispatchConfirmationError: &distseqpb.DispatchConfirmationError{
			TransactionId: m.GetTransactionId(), DelegationId: m.GetDelegationId(), ContractAddress: env.GetContractAddress(),
			RequestId: m.GetRequestId(), Reason: "not the active delegation of the transaction"}}
	})
	if ok && t.state != Prepared {
		c.answered("deleg:" + t.id)
		t.lastSubHB, t.dispRange = c.now, c.rangeIndex(c.height)
		c.become(t, Prepared)
	}
}

func (c *Core) onTransactionDispatched(from NodeID, m *distseqpb.TransactionDispatched) {
	t := c.activeDelegation(m.GetTransactionId(), from, m.GetDelegationId())
	if t == nil || t.state != Prepared {
		return
	}
	t.submitter, t.lastSubHB = NodeID(m.GetSubmitter()), c.now
	c.become(t, Dispatched)
}

// onTransactionReverted: the base ledger reverted the dispatch; try
// again from HandleTransaction, or finalize after MaxReverts. A revert
// because the intent is confirmed already waits for that event.
func (c *Core) onTransactionReverted(from NodeID, env *distseqpb.Envelope, m *distseqpb.TransactionReverted) {
	c.reply(from, env, func(r *distseqpb.Envelope) {
		r.Body = &distseqpb.Envelope_TransactionRevertedAck{TransactionRevertedAck: &distseqpb.TransactionRevertedAcknowledgement{NotificationId: m.GetNotificationId()}}
	})
	t := c.txs[m.GetTransactionId()]
	if t == nil || t.delegationID != m.GetDelegationId() || (t.state != Prepared && t.state != Dispatched) {
		return
	}
	if m.GetRevertReason() == ReasonIntentConfirmed {
		t.lastSubHB = c.now.Add(time.Duration(c.cfg.SubmitterMisses) * c.cfg.HeartbeatInterval) // the event is on its way
		return
	}
	t.reverts++
	c.ready.Batch.Intents = append(c.ready.Batch.Intents, c.intentRecord(t, "pending", m.GetRevertReason()))
	if t.reverts >= c.cfg.MaxReverts {
		c.finish(t, Reverted, "reverted on the base ledger: "+m.GetRevertReason())
		return
	}
	c.become(t, Pending)
	c.handle(t)
}

// ReasonIntentConfirmed is the privacygroup contract's revert reason for
// an intent confirmed already.
const ReasonIntentConfirmed = "intent_confirmed"

func (c *Core) intentRecord(t *senderTx, status, reason string) store.DistseqIntent {
	return store.DistseqIntent{TxID: t.id, Contract: t.contract, IdempotencyKey: t.key, Payload: t.intent,
		Status: status, Reason: reason, Attempts: t.reverts, Prepare: t.prepare, Prepared: t.prepared, Granted: t.granted,
		CreatedAt: t.created, UpdatedAt: c.now}
}

// finish makes t final (Confirmed or Reverted) and forgets it.
func (c *Core) finish(t *senderTx, s State, reason string) {
	c.answered("deleg:" + t.id)
	c.become(t, s)
	status := "confirmed"
	if s == Reverted {
		status = "reverted"
	}
	c.ready.Batch.Intents = append(c.ready.Batch.Intents, c.intentRecord(t, status, reason))
	delete(c.txs, t.id)
	if t.key != "" {
		delete(c.keys, t.key)
	}
	if k := c.active[t.contract]; k != nil {
		k.inflight--
		k.lastActive = c.now
	}
}

// senderTimers: the sender's clock-driven decisions.
func (c *Core) senderTimers(t *senderTx) {
	subTimeout := time.Duration(c.cfg.SubmitterMisses) * c.cfg.HeartbeatInterval
	switch t.state {
	case Delegating:
		if c.now.Sub(t.since) >= c.cfg.DelegationTimeout {
			if k := c.active[t.contract]; k != nil && t.coord != c.cfg.Self {
				k.unavailable[t.coord] = true
			}
			c.handle(t)
		}
	case Delegated:
		if c.now.Sub(t.lastHB) >= c.hbTimeout() {
			c.handle(t)
		}
	case Prepared, Dispatched:
		late := t.state == Dispatched && !t.prepare && c.rangeIndex(c.height) >= t.dispRange+uint64(c.cfg.DispatchRanges)
		if c.now.Sub(t.lastSubHB) >= subTimeout || late {
			if late {
				t.lateSub = t.submitter
			}
			c.become(t, Pending)
			c.handle(t)
		}
	case Parked:
		if c.parkExpired(t) {
			return
		}
		fallthrough
	case Pending:
		if !t.retryAt.IsZero() && !c.now.Before(t.retryAt) {
			c.handle(t)
		}
	default: // no timer runs in the other states
	}
}

// senderNewRange: this node's indexer entered a new range.
func (c *Core) senderNewRange(t *senderTx) {
	k := c.active[t.contract]
	if k == nil {
		return
	}
	switch {
	case t.state == Pending && t.waitRange && c.rangeIndex(c.height) >= t.rangeWant:
		c.handle(t)
	case t.state == Delegating || t.state == Delegated:
		if pref := c.preference(k, c.height); len(pref) > 0 && pref[0] != t.coord {
			c.handle(t)
		}
	}
}
