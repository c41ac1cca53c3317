package sequencer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

// CoreConfig configures the run cycle.
type CoreConfig struct {
	// Policies by transaction type; the keys are the allowed types.
	Policies map[string]Policy
	// Fees sets the fee of each attempt.
	Fees FeePolicy
	// InclusionTimeout is how many blocks an attempt may stay unincluded
	// before it counts as failed and is retried. Defaults to 5.
	InclusionTimeout uint64
	// Pipelines is the in-flight-per-queue policy: a queue whose name starts
	// with a rule's Prefix (the longest matching prefix wins) may have up to
	// its InFlight transactions in flight, sent in FIFO order on one sender
	// with consecutive nonces (nonce-ordered pipelining; see the package
	// doc). Every other queue has 1 in flight, the seed's "one transaction
	// per block, per zkApp". A rule with InFlight below 1 or above
	// MaxInFlight, or two rules with one prefix, is an error
	// (ErrPipeline). Defaults to none: every queue has 1 in flight.
	Pipelines []Pipeline `json:"Pipelines,omitempty"`
	// Confirmations is how many blocks must hold an attempt (its own block
	// counts) before its transaction is DONE or its failure is acted on;
	// until then the queue keeps its sender, and a reorged attempt goes back
	// to waiting for inclusion. Defaults to 0: follow the chain, whose heads
	// declare the deepest reorg d it may make (chain.BlockHeader.ReorgDepth),
	// waiting d+1 — on a chain that never reorgs, 1: DONE on inclusion, the
	// seed's behaviour. A value of d or less lets a declared reorg undo DONE.
	Confirmations uint64
	// PollStatus asks the chain for the status of every attempt waiting for
	// inclusion on each new head, for chains whose blocks cannot be read
	// (no chain.BlockReader, so no receipts come with new heads). Defaults
	// to false.
	PollStatus bool
	// WaitingWindow is how many WAITING transactions per queue the core keeps
	// in memory; the rest stay in the store until needed. Defaults to 64.
	WaitingWindow int
	// Pins pins queues to senders: queue name → sender id. A pinned queue
	// is bound only to its sender, and a sender that any pin names is
	// reserved: it serves only the queues pinned to it, never an unpinned
	// queue. Several queues may pin one sender: they take turns, in the
	// order they asked for it. Unpinned queues share the unreserved senders
	// as usual. A pin naming a sender the core does not have is an error
	// (ErrPinUnknownSender). Defaults to none: any free sender takes any
	// queue.
	//
	// A restart whose stored binding breaks the pins (they changed between
	// runs) keeps that binding until its transaction ends, DONE or FAILED:
	// an attempt never moves to another sender (a sender's nonces are its
	// own), so the pins apply from the queue's next transaction.
	Pins map[string]string `json:"Pins,omitempty"`
	// Gated are the queues that start closed (see InputGate): they take no
	// new transaction until an InputGate opens them. Defaults to none.
	Gated []string `json:"Gated,omitempty"`
	// Shared says other nodes commit intake to the same store: a
	// notification of new transactions only tells the core to read its
	// queue from the store (in Seq order: another node may have committed
	// earlier ones it was not told of); it never appends them directly.
	// Defaults to false.
	Shared bool `json:"Shared,omitempty"`
}

// ErrPinUnknownSender is returned by NewCore (and NewNode) when a pin in
// CoreConfig.Pins names a sender that is not configured.
var ErrPinUnknownSender = errors.New("a pin names a sender that is not configured")

// checkPins checks that every pin names a queue and one of the senders
// known (by id).
func checkPins(pins map[string]string, known func(id string) bool) error {
	for _, q := range slices.Sorted(maps.Keys(pins)) {
		if q == "" {
			return fmt.Errorf("a pin to sender %q names no queue", pins[q])
		}
		if !known(pins[q]) {
			return fmt.Errorf("queue %s pinned to sender %q: %w", q, pins[q], ErrPinUnknownSender)
		}
	}
	return nil
}

func (c *CoreConfig) setDefaults() error {
	c.Fees.SetDefaults()
	if c.InclusionTimeout == 0 {
		c.InclusionTimeout = DefaultInclusionTimeout
	}
	if err := CheckPipelines(c.Pipelines); err != nil {
		return err
	}
	if c.WaitingWindow <= 0 {
		c.WaitingWindow = DefaultWaitingWindow
	}
	for k, p := range c.Policies {
		if p.Delay <= 0 {
			p.Delay = DefaultRetryDelay
		}
		c.Policies[k] = p
	}
	return nil
}

type txn struct {
	rec store.Transaction
	// saved is rec's own fields as the store holds them, taken when the
	// transaction flies (fly) and at each write of them (saveTx), nil
	// before: an attempt saved while they are unchanged is written alone
	// (store.TxUpdate.AttemptOnly). Waiting transactions have none, so
	// that a large backlog costs no copy.
	saved *ownFields
}

// ownFields are a transaction's fields a TxUpdate writes, besides its
// attempt and time.
type ownFields struct {
	state   store.TxState
	retries int
	result  []byte
	err     string
}

// unchanged reports whether t's own fields are those last saved.
func (t *txn) unchanged() bool {
	s := t.saved
	return s != nil && s.state == t.rec.State && s.retries == t.rec.Retries && s.err == t.rec.Error && bytes.Equal(s.result, t.rec.Result)
}

// markSaved records t's own fields as written.
func (t *txn) markSaved() {
	if t.saved == nil {
		t.saved = &ownFields{}
	}
	*t.saved = ownFields{state: t.rec.State, retries: t.rec.Retries, result: t.rec.Result, err: t.rec.Error}
}

func (t *txn) last() *store.Attempt {
	if len(t.rec.Attempts) == 0 {
		return nil
	}
	return &t.rec.Attempts[len(t.rec.Attempts)-1]
}

func (t *txn) attempt(n int) *store.Attempt {
	if n < 1 || n > len(t.rec.Attempts) {
		return nil
	}
	return &t.rec.Attempts[n-1]
}

// queue is a queue in memory: its binding record, the WAITING transactions
// buffered from the store, and its transactions in flight.
type queue struct {
	rec   store.Queue
	dirty bool // changed since the last Ready
	// step is the step (Core.steps) that last marked it: assertCheap
	// checks what one step touched, once.
	step uint64
	// id numbers the queue in the order the core made it (Core.order's
	// order): the order in which a new head or a tick visits queues.
	id uint64
	// flights are the queue's transactions in flight, oldest first: at most
	// depth (1 by default). The lead is the one the binding record names; the
	// others are its followers (see core_pipeline.go).
	flights []*flight
	waiting []*txn  // WAITING transactions buffered from the store, in Seq order
	stored  stored  // what the store holds beyond the buffer
	load    load    // the state of the queue's EffectLoad
	lastSeq int64   // highest Seq buffered or loaded
	after   int64   // the outstanding load's cursor
	snd     *sender // the bound sender (seat == seatBound)
	seat    seat
	// pin is the sender the queue is pinned to (CoreConfig.Pins), or "".
	pin string
	// offPin marks a binding restored from the store that breaks the pins
	// (they changed between runs): it is kept until its transaction ends.
	offPin bool
	// depth is how many transactions the queue may have in flight
	// (CoreConfig.Pipelines).
	depth int
	// closed: the queue takes no new transaction (InputGate).
	closed bool
}

// lead returns the queue's oldest transaction in flight, or nil.
func (q *queue) lead() *flight {
	if len(q.flights) == 0 {
		return nil
	}
	return q.flights[0]
}

// fly puts t in flight.
func (q *queue) fly(t *txn) *flight {
	f := &flight{txn: t}
	q.flights = append(q.flights, f)
	return f
}

// fly puts t in flight on q and indexes it (Lookup).
func (c *Core) fly(q *queue, t *txn) *flight {
	if t.saved == nil {
		// Its record is the store's: it came from a load or an intake,
		// and nothing changes a transaction before it flies.
		t.markSaved()
	}
	c.flying[t.rec.UID] = t
	return q.fly(t)
}

// land takes q's lead transaction out of flight and out of the index.
func (c *Core) land(q *queue) {
	delete(c.flying, q.lead().rec.UID)
	q.land()
}

// Lookup returns the record of a transaction the core holds: in flight, or
// finished with its hook outstanding (so every record a Ready's batch
// touched, until its hook reports; a pure hook reports before the batch is
// committed, and the loop keeps that record itself, Loop.ended). The driver
// reads it on its loop goroutine, read-only, instead of asking the store.
func (c *Core) Lookup(uid string) (store.Transaction, bool) {
	if t := c.flying[uid]; t != nil {
		return t.rec, true
	}
	if t := c.hooks[uid]; t != nil {
		return t.rec, true
	}
	return store.Transaction{}, false
}

// land takes the lead transaction out of flight, with all its state.
func (q *queue) land() {
	q.flights[0] = nil
	q.flights = q.flights[1:]
}

type sender struct {
	rec   store.Sender
	dirty bool // changed since the last Ready
	// step is the step (Core.steps) that last marked it: assertCheap
	// checks what one step touched, once.
	step  uint64
	queue *queue
	nonce nonceSource
	// reserved: a pin names the sender, which serves only the queues
	// pinned to it and is never in the free list.
	reserved bool
	// idle: a reserved sender bound to no queue (what the free list is for
	// the unreserved ones).
	idle bool
}

// Core is the sequencer's run cycle as a deterministic state machine. It is
// not safe for concurrent use: one driver goroutine owns it.
type Core struct {
	cfg     CoreConfig
	now     time.Time
	head    uint64
	minFee  uint64
	queues  map[string]*queue
	order   []*queue // queues in the order the core first saw them
	senders map[string]*sender
	free    []*sender // free unreserved senders, in the order they were freed
	idle    int       // how many reserved senders are idle
	line    []*queue  // queues wanting a sender, in the order they asked
	watch   map[string]*queue
	hooks   map[string]*txn // finished transactions whose hook is running
	flying  map[string]*txn // transactions in flight, by uid (Lookup)
	ready   Ready
	dirtyQ  []*queue  // queues changed since the last Ready, in the order first changed
	dirtyS  []*sender // senders changed since the last Ready, in the order first changed
	// handedOut is set from Ready to Advance (see Ready).
	handedOut bool
	// reorgDepth is the deepest reorg the chain declares (the last head's).
	reorgDepth uint64
	// finals are the transactions the core ended DONE, by the height of
	// their inclusion, for the last maxReorgTrack heights: a reorg deeper
	// than declared that replaces one of those blocks flags them.
	finals map[uint64][]string
	// delaying are the queues set to DELAY (some may have left it since:
	// NextDeadline drops those), so that NextDeadline need not walk every
	// queue on every turn.
	delaying map[*queue]struct{}
	// headed are the queues a new head may move on: bound WaitingInclusion,
	// or whose lead waits for a head to check again (some may have left it
	// since: newHead drops those), so that a head visits those alone, not
	// every queue.
	headed map[*queue]struct{}
	// queueIDs counts the queues made (queue.id).
	queueIDs uint64
	// steps counts Steps (from 1); stepQ and stepS are what the current
	// step marked, for assertCheap (dirtyQ and dirtyS accumulate over a
	// turn: checking them on every step cost k²/2 checks for k steps).
	steps uint64
	stepQ []*queue
	stepS []*sender
	// closed are the queues InputGate (or CoreConfig.Gated) closed, also
	// those not in memory yet.
	closed map[string]bool
	// seqSeen is the highest Seq the core has been shown (intake, loads,
	// the snapshot): a notification at or below it is late.
	seqSeen int64
	// foreign says, for each sender of the store this node does not use,
	// whether it is a remote worker's (Snapshot.Foreign).
	foreign map[string]bool
}

// NewCore builds a core from the store's state: bindings, senders, the
// transactions in REVISION or RETRY, and the queues with WAITING transactions.
// Active queues start by asking the chain about their attempts. The first
// Ready carries what recovery wrote and asked for.
// A stored binding that the pins (CoreConfig.Pins) forbid is kept until its
// transaction ends; a pin naming a sender missing from the snapshot is an
// error (ErrPinUnknownSender).
func NewCore(cfg CoreConfig, now time.Time, st Snapshot) (*Core, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	if err := checkPins(cfg.Pins, func(id string) bool {
		return slices.ContainsFunc(st.Senders, func(s store.Sender) bool { return s.ID == id })
	}); err != nil {
		return nil, fmt.Errorf("sequencer: %w", err)
	}
	cfg.Pins = maps.Clone(cfg.Pins)
	cfg.Pipelines = slices.Clone(cfg.Pipelines)
	cfg.Gated = slices.Clone(cfg.Gated)
	c := &Core{cfg: cfg, now: now, queues: map[string]*queue{}, senders: map[string]*sender{},
		watch: map[string]*queue{}, hooks: map[string]*txn{}, flying: map[string]*txn{},
		head: st.Head, minFee: st.MinFee, reorgDepth: st.ReorgDepth, finals: map[uint64][]string{}, closed: map[string]bool{}, delaying: map[*queue]struct{}{},
		headed: map[*queue]struct{}{}}
	for _, name := range cfg.Gated {
		c.closed[name] = true
	}
	for _, s := range st.Senders {
		c.senders[s.ID] = &sender{rec: s}
	}
	for _, s := range st.Foreign {
		if c.senders[s.ID] == nil {
			if c.foreign == nil {
				c.foreign = map[string]bool{}
			}
			c.foreign[s.ID] = s.Worker != ""
		}
	}
	for _, id := range cfg.Pins {
		c.senders[id].reserved = true
	}
	for _, qr := range st.Queues {
		q := c.queue(qr.Name)
		q.rec = qr
		c.indexBinding(q)
		if s := c.senders[qr.Sender]; s != nil && qr.State != store.Free && s.queue == nil {
			s.queue, s.rec.Queue, q.snd, q.seat = q, q.rec.Name, s, seatBound
			// A binding against the pins (changed since it was made) keeps
			// its sender until its transaction ends (see CoreConfig.Pins).
			q.offPin = !c.may(q, s)
		} else if qr.State != store.Free {
			// The bound sender left the configuration (or is bound twice):
			// keep the transaction, which recovery settles and a new sender
			// takes over once nothing of the old one can land.
			q.rec.Sender = ""
			c.markQ(q)
		}
	}
	for _, s := range st.Senders {
		sn := c.senders[s.ID]
		if sn.queue == nil {
			if sn.rec.Queue != "" {
				sn.rec.Queue = ""
				c.markS(sn)
			}
			c.putFree(sn)
		}
	}
	var extra []store.Transaction
	for _, tr := range slices.Concat(st.Active, st.Bound) {
		c.seqSeen = max(c.seqSeen, tr.Seq)
		q := c.queue(tr.Queue)
		// (A pipelined queue found FREE with transactions in flight stopped
		// after its lead ended and before its next one was taken:
		// restoreFollowers hands them all to its buffer.)
		if q.lead() == nil && (tr.State != store.Waiting || q.rec.TxUID == tr.UID) && (q.depth < 2 || q.rec.State != store.Free) {
			c.fly(q, &txn{rec: tr})
			q.lastSeq = max(q.lastSeq, tr.Seq)
			c.watchTxn(q)
		} else if tr.State != store.Waiting || q.rec.TxUID == tr.UID {
			extra = append(extra, tr) // a pipelined queue's (restoreFollowers)
		}
	}
	for _, name := range st.WaitingQueues {
		c.queue(name).stored = storeMore
	}
	for _, tr := range st.Sent {
		c.seqSeen = max(c.seqSeen, tr.Seq)
		extra = append(extra, tr)
	}
	c.restoreFollowers(extra)
	for i := range st.Hooks {
		c.hook(&txn{rec: st.Hooks[i]})
	}
	for _, q := range c.order {
		if q.lead() != nil || q.rec.TxUID != "" {
			c.recover(q)
		}
		c.pump(q)
	}
	return c, nil
}

// Snapshot is the store state a core starts from.
type Snapshot struct {
	// Queues are the queues' bindings (store.Store.Bindings): a queue
	// never bound is met through WaitingQueues, Active or its intake.
	Queues  []store.Queue
	Senders []store.Sender
	// Foreign are the store's senders; those not in Senders are ones this
	// node does not use (another node's on a shared store, or gone from
	// the configuration): whether one is a remote worker's says whether an
	// attempt of its without a hash may have been sent (maybeSent).
	Foreign       []store.Sender `json:",omitempty"`
	Active        []store.Transaction
	WaitingQueues []string
	// Bound holds the WAITING transactions that bindings name (a dispatch
	// was in flight when the node stopped).
	Bound []store.Transaction
	// Sent holds the WAITING transactions of pipelined queues that have
	// attempts (a dispatch was under way at the stop) and that no binding
	// names.
	Sent []store.Transaction `json:",omitempty"`
	// Hooks are finished transactions whose hook had not reported when the
	// node stopped: their hooks run again (hooks are at least once).
	Hooks []store.Transaction
	// Head and MinFee are the chain's at start.
	Head   uint64
	MinFee uint64
	// ReorgDepth is the deepest reorg the chain declares at start.
	ReorgDepth uint64
}

func (c *Core) queue(name string) *queue {
	q := c.queues[name]
	if q == nil {
		q = &queue{id: c.queueIDs, rec: store.Queue{Name: name, State: store.Free}, pin: c.cfg.Pins[name], depth: InFlightFor(c.cfg.Pipelines, name), closed: c.closed[name]}
		c.queueIDs++
		c.queues[name] = q
		c.order = append(c.order, q)
	}
	return q
}

// recover settles a queue that was active when the node stopped: every attempt
// that may have reached the chain is checked before anything else happens.
func (c *Core) recover(q *queue) {
	if q.lead() == nil {
		q.rec.State, q.rec.TxUID = store.Free, ""
		c.markQ(q)
		c.release(q)
		return
	}
	q.rec.TxUID = q.lead().rec.UID
	c.markQ(q)
	c.startCheck(q, checkRecover)
}

// Head returns the newest block height the core has seen.
func (c *Core) Head() uint64 { return c.head }

// NextDeadline returns the earliest time a DELAY ends, or zero. A DELAY that
// has ended and whose retry is under way (checks, a dispatch or a load
// outstanding, a check waiting for the next head, a sender awaited) is no
// deadline: the core
// needs no Tick for it, and a driver would otherwise spin on a past deadline.
func (c *Core) NextDeadline() time.Time {
	var t time.Time
	for q := range c.delaying {
		if q.rec.State != store.Delay || c.queues[q.rec.Name] != q {
			delete(c.delaying, q) // left DELAY (or forgotten) since
			continue
		}
		if !c.stalled(q) && q.load == loadIdle && (t.IsZero() || q.rec.DelayUntil.Before(t)) {
			t = q.rec.DelayUntil
		}
	}
	return t
}

// Watching reports whether a chain transaction hash belongs to an attempt the
// core waits on.
func (c *Core) Watching(h string) bool { _, ok := c.watch[h]; return ok }

func marshalResult(r TxnResult, hookErr string) (json.RawMessage, error) {
	out := struct {
		TxnResult
		HookError string `json:"hookError,omitempty"`
	}{TxnResult: r, HookError: hookErr}
	return json.Marshal(out)
}

func rawData(t *txn) RawTxnData {
	return RawTxnData{UID: t.rec.UID, Type: t.rec.Type, Data: append(json.RawMessage(nil), t.rec.Data...)}
}

// BusySenders returns how many senders are bound to a queue.
func (c *Core) BusySenders() int { return len(c.senders) - len(c.free) - c.idle }
