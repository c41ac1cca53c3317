package distseq

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ordolabs/ordo/internal/distseq/distseqpb"
	"github.com/ordolabs/ordo/internal/store"
	"google.golang.org/protobuf/proto"
)

// contract is a privacy group's in-memory state on this node, held only
// while something is in flight for it (seed 003, "When to send heartbeat
// messages": most contracts are idle; an idle one keeps its group record
// alone).
type contract struct {
	addr string
	g    *group
	ring *Ring

	// The availability view: members a delegation timed out on, and the
	// latest evidence that a member is alive (a heartbeat, a startup, an
	// answer).
	unavailable map[NodeID]bool
	heard       map[NodeID]time.Time
	heardID     map[NodeID]string

	loaded bool
	states map[string]*held // unspent states this node holds
	// quarantine: held states a dispatch spent that reverted at a height
	// this node's indexer has not reached: another transaction may have
	// spent them in a block not final here yet, so they are offered to
	// no assembly until it is (else each re-assembly reverts again).
	quarantine map[string]uint64
	sorted     []string // their ids, oldest first; nil when stale

	coord    *coordinator
	subs     map[string]*submission // submitter: dispatched, undecided
	endorsed *endorsedRecord        // endorser: the outputs it signed, not yet held

	// flushUntil: submitter heartbeats for an older range arrived; no new
	// delegation to another coordinator before then (seed 003, submitter
	// heartbeat notification).
	flushUntil time.Time
	flushRange uint64
	flushFrom  NodeID
	subHB      time.Time // the submitter's last heartbeat; zero when it has none to send

	inflight   int // this node's sender transactions in flight
	lastActive time.Time
}

type held struct {
	ref    StateRef
	height uint64
}

// Step applies one input and returns what the driver must do. The driver
// commits Ready.Batch before it sends, performs or replies anything, and
// answers an EffectLoad before the next input; a failed commit means the
// driver must restart the core from the store (as after a crash).
func (c *Core) Step(in Input) (Ready, error) {
	if st, ok := in.(InputStart); ok {
		if err := c.start(st); err != nil {
			return Ready{}, err
		}
	} else if !c.started {
		return Ready{}, ErrNotStarted
	}
	var err error
	switch v := in.(type) {
	case InputTick:
		if v.Now.After(c.now) {
			c.now = v.Now
		}
		c.tick()
	case InputHeight:
		c.onHeight(v.Height)
	case InputEvents:
		err = c.onEvents(v)
	case InputSubmit:
		c.onSubmit(v)
	case InputMessage:
		c.onWire(v)
	case InputLoaded:
		c.onLoaded(v)
	case InputSpendsRead:
		c.onSpendsRead(v)
	case InputDispatched:
		c.onDispatched(v)
	}
	c.drainLocal()
	r := c.ready
	c.ready = Ready{}
	return r, err
}

func (c *Core) start(st InputStart) error {
	*c = Core{cfg: c.cfg, groups: map[string]*group{}, rings: map[string]*Ring{}, active: map[string]*contract{},
		txs: map[string]*senderTx{}, keys: map[string]string{}, assured: map[string]*pending{}}
	c.started, c.now, c.height, c.incarnation = true, st.Now, st.Height, st.Incarnation
	for _, g := range st.Groups {
		if err := c.addGroup(g); err != nil {
			return err
		}
	}
	for _, d := range st.Dispatches {
		c.resumeDispatch(d)
	}
	for _, o := range st.Outbox {
		c.resumeDistribution(o)
	}
	for _, in := range st.Intents {
		c.resumeIntent(in)
	}
	return nil
}

// activate returns contract's in-memory state, creating it (and asking for
// its states) if it was idle; nil when this node is no member. A contract
// woken by activity from outside announces the node with a startup
// notification (seed 003, "Startup").
func (c *Core) activate(addr string, announce bool) *contract {
	if k := c.active[addr]; k != nil {
		k.lastActive = c.now
		return k
	}
	g := c.groupOf(addr)
	if g == nil || !c.member(g) {
		return nil
	}
	k := &contract{addr: addr, g: g, ring: c.rings[g.ringKey], unavailable: map[NodeID]bool{},
		heard: map[NodeID]time.Time{}, heardID: map[NodeID]string{}, states: map[string]*held{},
		subs: map[string]*submission{}, lastActive: c.now}
	c.active[addr] = k
	c.ready.Effects = append(c.ready.Effects, Effect{Kind: EffectLoad, Contract: addr})
	if announce {
		c.sendStartup(k)
	}
	return k
}

// preference is the ring's list for the current range, with this node's
// unavailable members left out.
func (c *Core) preference(k *contract, height uint64) []NodeID {
	return k.ring.PreferenceAt(k.addr, c.rangeIndex(height), k.unavailable)
}

// alive reports recent evidence that m runs: heard from within the
// heartbeat timeout.
func (c *Core) alive(k *contract, m NodeID) bool {
	t, ok := k.heard[m]
	return ok && c.now.Sub(t) <= c.hbTimeout()
}

func (c *Core) hbTimeout() time.Duration {
	return time.Duration(c.cfg.HeartbeatMisses) * c.cfg.HeartbeatInterval
}

// acceptable reports whether this node agrees that coord coordinates k at
// height: every member the ring ranks ahead of coord is one this node
// holds unavailable or has no recent evidence of (docs/distseq.md, decisions: a
// node that never tried the preferred member does not veto a sender whose
// delegation to it timed out). This node itself, ranked ahead, vetoes.
func (c *Core) acceptable(k *contract, height uint64, coord NodeID) bool {
	for _, m := range k.ring.PreferenceAt(k.addr, c.rangeIndex(height), nil) {
		if m == coord {
			return true
		}
		if m == c.cfg.Self || (!k.unavailable[m] && c.alive(k, m)) {
			return false
		}
	}
	return false
}

// heardFrom records evidence that m is alive.
func (c *Core) heardFrom(k *contract, m NodeID, id string) {
	k.heard[m] = c.now
	if id != "" {
		k.heardID[m] = id
	}
	delete(k.unavailable, m)
}

func (c *Core) tick() {
	c.resendDue()
	for _, id := range slices.Sorted(maps.Keys(c.txs)) {
		if t := c.txs[id]; t != nil {
			c.senderTimers(t)
		}
	}
	for _, addr := range slices.Sorted(maps.Keys(c.active)) {
		k := c.active[addr]
		if k == nil {
			continue
		}
		c.coordTimers(k)
		c.submitterTimers(k)
		c.maybeRelease(k)
	}
}

// maybeRelease drops an idle contract's in-memory state.
func (c *Core) maybeRelease(k *contract) {
	if k.inflight > 0 || len(k.subs) > 0 || (k.coord != nil && len(k.coord.txs) > 0) || c.now.Sub(k.lastActive) < c.cfg.IdleAfter {
		return
	}
	for _, p := range c.assured {
		if p.contract == k.addr {
			return
		}
	}
	delete(c.active, k.addr)
}

func (c *Core) onHeight(h uint64) {
	if h <= c.height {
		return
	}
	old := c.height
	c.height = h
	if c.rangeIndex(old) == c.rangeIndex(h) {
		return
	}
	for _, addr := range slices.Sorted(maps.Keys(c.active)) {
		if k := c.active[addr]; k != nil {
			c.coordNewRange(k)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(c.txs)) {
		if t := c.txs[id]; t != nil {
			c.senderNewRange(t)
		}
	}
}

func (c *Core) onEvents(in InputEvents) error {
	for _, e := range in.Events {
		switch e.Kind {
		case EventGroupDeployed:
			if err := c.addGroup(e.Group); err != nil {
				return fmt.Errorf("distseq: event: %w", err)
			}
			c.ready.Batch.Groups = append(c.ready.Batch.Groups, e.Group)
		case EventStatesMinted:
			c.onMinted(e)
		case EventIntentConfirmed:
			c.onConfirmed(e)
		}
	}
	cur := in.Cursor
	c.ready.Batch.Cursor = &cur
	c.onHeight(in.Height)
	return nil
}

func (c *Core) onMinted(e ChainEvent) {
	g := c.groupOf(e.Contract)
	if g == nil || !c.member(g) {
		return
	}
	for _, s := range e.States {
		c.ready.Batch.States = append(c.ready.Batch.States, store.DistseqState{Contract: e.Contract, ID: s.ID, Data: stateData(s), Height: e.Height})
		if k := c.active[e.Contract]; k != nil && k.loaded {
			k.hold(s, e.Height)
		}
	}
}

// onConfirmed: an IntentConfirmed event, final on this node's indexer.
func (c *Core) onConfirmed(e ChainEvent) {
	g := c.groupOf(e.Contract)
	if g == nil || !c.member(g) {
		return
	}
	for _, id := range e.Spends {
		c.ready.Batch.States = append(c.ready.Batch.States, store.DistseqState{Contract: e.Contract, ID: id, Spent: true, SpentBy: e.TxID, Height: e.Height})
	}
	k := c.active[e.Contract]
	if k == nil && (c.txs[e.TxID] != nil) {
		k = c.activate(e.Contract, false)
	}
	if k != nil {
		for _, id := range e.Spends {
			k.unhold(id)
		}
		c.endorsedConfirmed(k, e)
		c.coordConfirmed(k, e)
		c.submitterConfirmed(k, e)
	}
	if t := c.txs[e.TxID]; t != nil {
		if t.prepare && k != nil {
			c.senderDistributes(k, t, e)
		}
		c.finish(t, Confirmed, "")
	}
}

// senderDistributes: the sender of a prepared transaction distributes what
// it created when the chain confirmed the assembly it handed out (a
// coordinator that granted it may have lost it before committing it).
func (c *Core) senderDistributes(k *contract, t *senderTx, e ChainEvent) {
	var p PreparedTx
	if json.Unmarshal(t.prepared, &p) != nil {
		return
	}
	for _, a := range append(p.Earlier, p.Assembly) {
		if d := c.cfg.Domain.Digest(k.addr, t.id, a); hex.EncodeToString(d[:]) == e.Digest {
			c.distributeCreated(k, t.id, a, e.Height)
			return
		}
	}
}

// onLoaded holds the unspent states the store has for a contract: all of
// them at the contract's first load; at a refresh (a received
// distribution), those not held yet and not the coordinator's speculative
// outputs (the store's spent flags win over the message's copy).
func (c *Core) onLoaded(in InputLoaded) {
	k := c.active[in.Contract]
	if k == nil {
		return
	}
	refresh := k.loaded
	k.loaded = true
	for _, s := range in.States {
		if s.Spent || len(s.Data) == 0 {
			continue
		}
		if refresh && (k.states[s.ID] != nil || (k.coord != nil && k.coord.spec[s.ID] != nil)) {
			continue
		}
		k.hold(refOf(s), s.Height)
	}
	if k.coord != nil {
		c.pump(k)
	}
}

// onWire decodes a peer's message; one that does not decode, or speaks
// another major version, is dropped (the sender resends what matters).
func (c *Core) onWire(in InputMessage) {
	env := &distseqpb.Envelope{}
	if err := proto.Unmarshal(in.Body, env); err != nil || !compatible(env.GetProtocolVersion()) {
		return
	}
	c.local = append(c.local, inbound{from: in.From, env: env})
}

func compatible(v string) bool {
	major, _, _ := strings.Cut(v, ".")
	want, _, _ := strings.Cut(ProtocolVersion, ".")
	return major == want
}

// drainLocal handles the queued messages, including those this node sends
// itself as sender, coordinator, endorser and submitter at once.
func (c *Core) drainLocal() {
	for len(c.local) > 0 {
		m := c.local[0]
		c.local = c.local[1:]
		c.route(m.from, m.env)
	}
}

func (c *Core) route(from NodeID, env *distseqpb.Envelope) {
	addr := env.GetContractAddress()
	switch b := env.Body.(type) {
	case *distseqpb.Envelope_DelegationCommand:
		c.onDelegation(from, env, b.DelegationCommand)
	case *distseqpb.Envelope_DelegationAccepted:
		c.onDelegationAccepted(from, b.DelegationAccepted)
	case *distseqpb.Envelope_DelegationRejected:
		c.onDelegationRejected(from, b.DelegationRejected)
	case *distseqpb.Envelope_AssembleRequest:
		c.onAssembleRequest(from, env, b.AssembleRequest)
	case *distseqpb.Envelope_AssembleResponse:
		c.onAssembleResponse(from, addr, b.AssembleResponse)
	case *distseqpb.Envelope_AssembleError:
		c.onAssembleError(from, addr, b.AssembleError)
	case *distseqpb.Envelope_EndorsementRequest:
		c.onEndorsementRequest(from, env, b.EndorsementRequest)
	case *distseqpb.Envelope_EndorsementResponse:
		c.onEndorsementResponse(from, addr, b.EndorsementResponse)
	case *distseqpb.Envelope_EndorsementError:
		c.onEndorsementError(from, addr, b.EndorsementError)
	case *distseqpb.Envelope_CoordinatorHeartbeat:
		c.onCoordinatorHeartbeat(from, addr, b.CoordinatorHeartbeat)
	case *distseqpb.Envelope_SubmitterHeartbeat:
		c.onSubmitterHeartbeat(from, addr, b.SubmitterHeartbeat)
	case *distseqpb.Envelope_Startup:
		c.onStartup(from, env, b.Startup)
	case *distseqpb.Envelope_StartupAck:
		c.answered("startup:" + b.StartupAck.GetStartupId() + "@" + string(from))
	case *distseqpb.Envelope_RequestDispatchConfirmation:
		c.onRequestDispatchConfirmation(from, env, b.RequestDispatchConfirmation)
	case *distseqpb.Envelope_DispatchConfirmation:
		c.onDispatchConfirmation(from, addr, b.DispatchConfirmation)
	case *distseqpb.Envelope_DispatchConfirmationError:
		c.onDispatchConfirmationError(from, addr, b.DispatchConfirmationError)
	case *distseqpb.Envelope_TransactionDispatched:
		c.onTransactionDispatched(from, b.TransactionDispatched)
	case *distseqpb.Envelope_TransactionReverted:
		c.onTransactionReverted(from, env, b.TransactionReverted)
	case *distseqpb.Envelope_TransactionRevertedAck:
		c.answered("reverted:" + b.TransactionRevertedAck.GetNotificationId())
	case *distseqpb.Envelope_DistributeData:
		c.onDistributeData(from, env, b.DistributeData)
	case *distseqpb.Envelope_DistributeDataAck:
		c.onDistributeAck(b.DistributeDataAck.GetDistributionId())
	}
}

// kindOf names a message by its body, for the transport and metrics.
func kindOf(env *distseqpb.Envelope) string {
	if env.Body == nil {
		return "Empty"
	}
	name := fmt.Sprintf("%T", env.Body)
	name = strings.TrimPrefix(name, "*distseqpb.Envelope_")
	return name
}

func stateData(s StateRef) []byte {
	b, _ := json.Marshal(s)
	return b
}

// StateOf reads a stored state back: its owner and data as the domain
// created them, and the transaction that created it (the store's column
// when the stored data does not name it, as for a minted state).
func StateOf(s store.DistseqState) StateRef {
	r := refOf(s)
	if r.CreatedBy == "" {
		r.CreatedBy = s.CreatedBy
	}
	return r
}

func refOf(s store.DistseqState) StateRef {
	var r StateRef
	if err := json.Unmarshal(s.Data, &r); err != nil || r.ID == "" {
		r = StateRef{ID: s.ID, Data: s.Data}
	}
	r.ID = s.ID
	return r
}
