package leader

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

// Core is the leader engine's sans-I/O state machine: the indexed requests
// in flight (Queued and Active), the high-integrity channel's run queue,
// the channels and the result transactions. It does no I/O, reads no clock
// and draws no random number (the retrier's pick comes in InputTime).
type Core struct {
	cfg    CoreConfig
	now    time.Time
	cursor uint64

	events map[int64]*event // Queued and Active records
	byWalk map[string]int64
	byUID  map[string]int64 // result transactions in the sequencer

	runq    []int64 // Queued records sent to the execution engine, FIFO
	inRunq  map[int64]bool
	running int // executions in flight
	// stranded holds the IDs of Queued records saved outside the run
	// queue (it was full), smallest first, and inStranded which IDs it
	// holds: the run queue is refilled from them as room frees, in
	// O(log n) a record. An ID may outlive its record's Queued status (it
	// ran through the retrier, or ended): refill skips it.
	stranded   idHeap
	inStranded map[int64]bool
	waiting    []int64 // Active records whose result waits for a channel
	chans      []*channel
	rr         int // the next channel to try

	nextRetry time.Time
	nextSweep time.Time

	ready     Ready
	dirty     []*event
	dirtyCh   []*channel
	handedOut bool
}

type event struct {
	rec        store.LeaderEvent
	attempt    int      // execution attempts started by this core
	running    bool     // an EffectExecute has not answered
	submitting bool     // an EffectReport has not answered
	failedUIDs []string // result transactions of e that failed on chain (answers naming them are stale)
	nextCheck  time.Time
	dirty      bool
}

type channel struct {
	rec   store.LeaderChannel
	dirty bool
}

// EffectKind names an effect.
type EffectKind uint8

// The effects a Ready asks for.
const (
	// EffectExecute: run event ID's request (Walk, Tool) as Attempt: the
	// tool's definition from the registry, the input from the workflow,
	// both schemas checked, the tool invoked; answer with Executed.
	EffectExecute EffectKind = iota + 1
	// EffectReport: hand the result (OK, Output) of Walk to the sequencer
	// on Queue (its channel's), idempotency key Key; answer with Reported.
	EffectReport
	// EffectCheck: read Walk's recorded result; answer with Checked.
	EffectCheck
)

// Effect is I/O the core asks for, performed after its batch commits.
type Effect struct {
	Kind    EffectKind      `json:"kind"`
	ID      int64           `json:"id"`
	Attempt int             `json:"attempt,omitempty"`
	Walk    string          `json:"walk"`
	Tool    string          `json:"tool,omitempty"`
	Channel int             `json:"channel,omitempty"`
	Queue   string          `json:"queue,omitempty"`
	Key     string          `json:"key,omitempty"`
	OK      bool            `json:"ok,omitempty"`
	Output  json.RawMessage `json:"output,omitempty"`
	Again   bool            `json:"again,omitempty"`
}

// Reply answers the input whose Req it names.
type Reply struct {
	Req     uint64 `json:"req"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
	Body    any    `json:"body,omitempty"`
}

// Reply codes.
const (
	CodeConflict = "conflict" // the record is not Dead
)

// Ready is what the core hands its driver, whose duties are, in order: step
// inputs stamped with the clock; take Ready (no Step until Advance); commit
// Batch in one store transaction (a failed commit retires the core: rebuild
// it from the store); Advance; then send Replies and perform Effects, in any
// order, stepping each answer. The same inputs give the same Readys.
type Ready struct {
	Batch   store.LeaderChanges
	Effects []Effect
	Replies []Reply
}

// Empty reports whether the Ready carries nothing.
func (r *Ready) Empty() bool { return r.Batch.Empty() && len(r.Effects) == 0 && len(r.Replies) == 0 }

// NewCore rebuilds a core from a snapshot at now. Its first Ready asks
// again about every result transaction in the sequencer and resumes the
// rest: Queued records refill the run queue, results waiting for a channel
// wait again, executions cut short are left to the sweeper.
func NewCore(cfg CoreConfig, now time.Time, snap store.LeaderSnapshot) (*Core, error) {
	cfg = cfg.withDefaults()
	if len(cfg.Accounts) == 0 {
		return nil, errors.New("leader: no channel: the leader holds no leader cap")
	}
	c := &Core{cfg: cfg, now: now, events: map[int64]*event{}, byWalk: map[string]int64{}, byUID: map[string]int64{}, inRunq: map[int64]bool{},
		inStranded: map[int64]bool{}}
	for i, a := range cfg.Accounts {
		ch := &channel{rec: store.LeaderChannel{Index: i, Account: a}}
		for _, r := range snap.Channels {
			if r.Index == i && r.Account == a {
				ch.rec = r
			}
		}
		c.chans = append(c.chans, ch)
		if ch.rec.UpdatedAt.IsZero() {
			c.touchCh(ch)
		}
	}
	for _, cu := range snap.Cursors {
		if cu.Name == CursorName {
			c.cursor = cu.Value
		}
	}
	for _, r := range snap.Events {
		e := &event{rec: r}
		c.events[r.ID] = e
		c.byWalk[r.Walk] = r.ID
		switch {
		case r.Status == store.EventQueued:
			c.enqueue(e)
		case r.Phase == PhaseReport:
			c.waiting = append(c.waiting, r.ID)
		case r.Phase == PhaseInvoke: // cut short by the restart: the sweeper's
			c.nextCheck(e, r.ActiveAt.Add(cfg.SweepAfter))
		case r.Phase == PhaseSent:
			if r.ResultUID != "" {
				c.byUID[r.ResultUID] = r.ID
			}
			c.nextCheck(e, now) // ask the sequencer at once
		}
	}
	c.afterStep()
	return c, nil
}

// Cursor is the event cursor the core has handled.
func (c *Core) Cursor() uint64 { return c.cursor }

// Knows reports whether uid is the result transaction of a record in
// flight.
func (c *Core) Knows(uid string) bool { _, ok := c.byUID[uid]; return ok }

// HasReady reports whether a Ready would carry anything.
func (c *Core) HasReady() bool { return len(c.dirty) > 0 || len(c.dirtyCh) > 0 || !c.ready.Empty() }

// Ready hands over what the steps since the last Advance produced.
func (c *Core) Ready() Ready {
	if c.handedOut {
		panic("leader: Ready called twice without Advance")
	}
	r := c.ready
	for _, e := range c.dirty {
		e.dirty = false
		e.rec.UpdatedAt = c.now
		r.Batch.Events = append(r.Batch.Events, e.rec)
	}
	for _, ch := range c.dirtyCh {
		ch.dirty = false
		ch.rec.UpdatedAt = c.now
		r.Batch.Channels = append(r.Batch.Channels, ch.rec)
	}
	c.dirty, c.dirtyCh, c.ready, c.handedOut = nil, nil, Ready{}, true
	return r
}

// Advance tells the core its last Ready was committed.
func (c *Core) Advance() { c.handedOut = false }

func (c *Core) touch(e *event) {
	if !e.dirty {
		e.dirty = true
		c.dirty = append(c.dirty, e)
	}
}

func (c *Core) touchCh(ch *channel) {
	if !ch.dirty {
		ch.dirty = true
		c.dirtyCh = append(c.dirtyCh, ch)
	}
}

func (c *Core) effect(e Effect) { c.ready.Effects = append(c.ready.Effects, e) }

// NextDeadline is when an InputTime would next make the core act: the
// retrier, the sweeper, a check of a result transaction, a channel's
// unblocking; zero when nothing waits on time.
func (c *Core) NextDeadline() time.Time {
	var t time.Time
	earlier := func(u time.Time) {
		if !u.IsZero() && (t.IsZero() || u.Before(t)) {
			t = u
		}
	}
	if len(c.events) > 0 {
		earlier(c.nextRetry)
		earlier(c.nextSweep)
	}
	if len(c.waiting) > 0 {
		for _, ch := range c.chans {
			earlier(ch.rec.BlockedUntil)
		}
	}
	return t
}

// idHeap is a min-heap of record IDs (container/heap).
type idHeap []int64

func (h idHeap) Len() int           { return len(h) }
func (h idHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h idHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *idHeap) Push(x any)        { *h = append(*h, x.(int64)) }
func (h *idHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// ids returns the keys of m in ascending order (map order never leaks).
func ids(m map[int64]*event) []int64 {
	out := make([]int64, 0, len(m))
	for id := range m {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func fail(format string, args ...any) { panic(fmt.Sprintf("leader: "+format, args...)) }
