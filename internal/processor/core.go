package processor

import (
	"container/heap"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

// Core is the processor engine's sans-I/O state machine: every processor of
// the node, its two queues, its executions and its callbacks. It does no
// I/O, reads no clock and draws no random number; see Ready for the
// contract of its driver.
type Core struct {
	cfg    CoreConfig
	now    time.Time
	head   uint64
	cursor uint64

	procs map[string]*proc
	names []string // sorted: the order every walk over processors takes

	byExec map[string]*pbatch // executing and pending batches by execution id
	byUID  map[string]*pbatch // executing batches by sequencer record

	// nextSweep is the earliest nextCheck of an executing batch; zero
	// when none executes.
	nextSweep time.Time
	ready     Ready
	dirtyP    []*proc
	dirtyB    []*pbatch
	dirtyC    []*callback
	endedNow  map[string]bool // "<processor>/<id>" of batches ended since Advance
	handedOut bool
}

// proc is one processor in memory.
type proc struct {
	rec      store.Processor
	queues   [2]queueMap // High, Medium
	live     map[string]*pbatch
	nextAuto time.Time
	cbs      map[int64]*callback // pending callbacks by Seq
	due      cbHeap              // pending callbacks not being delivered
	inflight int
	dirty    bool
}

// pbatch is a batch not yet ended.
type pbatch struct {
	p          *proc
	rec        store.ProcBatch // Body is written from st at Ready
	st         batchState
	dirty      bool
	submitting bool      // an EffectSubmit has not answered
	nextCheck  time.Time // when to submit the execution again
}

// batchState is a batch's Body: its spec and its progress.
type batchState struct {
	Spec BatchSpec `json:"spec"`
	// Next is the next action of a non-atomic batch (0 for atomic).
	Next int `json:"next"`
	// Tries counts the failed attempts of the current unit (the atomic
	// batch, or action Next).
	Tries int `json:"tries"`
	// Started counts every execution started.
	Started    int       `json:"started"`
	CoolHeight uint64    `json:"coolHeight,omitempty"`
	CoolUntil  time.Time `json:"coolUntil,omitzero"`
	Exec       string    `json:"exec,omitempty"`
	// LastExec is the last execution started (kept after it ends).
	LastExec  string `json:"lastExec,omitempty"`
	UID       string `json:"uid,omitempty"`
	LastError string `json:"lastError,omitempty"`
	// Early is a callback confirmation of Exec that arrived while it was
	// still executing: applied when its transaction succeeds, dropped if
	// it fails.
	Early   *bool    `json:"early,omitempty"`
	Outcome *Outcome `json:"outcome,omitempty"`
}

// callback is a pending callback.
type callback struct {
	rec      store.Callback
	inflight bool
	dirty    bool
	idx      int // in proc.due; -1 when not there
}

// cbHeap orders pending callbacks by NextAt, then Seq.
type cbHeap []*callback

func (h cbHeap) Len() int { return len(h) }
func (h cbHeap) Less(i, j int) bool {
	if !h[i].rec.NextAt.Equal(h[j].rec.NextAt) {
		return h[i].rec.NextAt.Before(h[j].rec.NextAt)
	}
	return h[i].rec.Seq < h[j].rec.Seq
}
func (h cbHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i]; h[i].idx = i; h[j].idx = j }
func (h *cbHeap) Push(x any)   { c := x.(*callback); c.idx = len(*h); *h = append(*h, c) }
func (h *cbHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	c.idx = -1
	return c
}
func (h cbHeap) top() *callback { return h[0] }

// EffectKind names an effect.
type EffectKind uint8

// The effects a Ready asks for.
const (
	// EffectSubmit: submit execution Exec of batch BatchID to the
	// sequencer: type SubmitType, queue Queue, data Data, idempotency key
	// Exec. Answer with Submitted or SubmitFailed.
	EffectSubmit EffectKind = iota + 1
	// EffectDeliver: POST Body to URL with the Idempotency-Key Key; answer
	// with Delivered for Processor and Seq.
	EffectDeliver
)

// String returns the effect kind's name.
func (k EffectKind) String() string {
	switch k {
	case EffectSubmit:
		return "submit"
	case EffectDeliver:
		return "deliver"
	}
	return fmt.Sprintf("EffectKind(%d)", k)
}

// Effect is I/O the core asks its driver to perform after the Ready's
// batch is committed.
type Effect struct {
	Kind      EffectKind      `json:"kind"`
	Processor string          `json:"processor"`
	BatchID   string          `json:"batchId,omitempty"`
	Exec      string          `json:"exec,omitempty"`
	Queue     string          `json:"queue,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
	// Again marks a submission of an execution already submitted (a check
	// after a restart or a silence, or a retry after a refusal).
	Again bool            `json:"again,omitempty"`
	Seq   int64           `json:"seq,omitempty"`
	URL   string          `json:"url,omitempty"`
	Key   string          `json:"key,omitempty"`
	Body  json.RawMessage `json:"body,omitempty"`
}

// Reply answers the input whose Req it names: Body on success, or a Code
// (one of the Code constants) and a Message.
type Reply struct {
	Req     uint64 `json:"req"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
	Field   string `json:"field,omitempty"`
	Body    any    `json:"body,omitempty"`
}

// Reply codes.
const (
	CodeNotFound  = "not_found"  // no such processor, batch position or pending execution
	CodeForbidden = "forbidden"  // the caller is not the processor's owner
	CodeConflict  = "conflict"   // the processor or batch id exists
	CodeInvalid   = "invalid"    // a field is refused (Field names it)
	CodeQueueFull = "queue_full" // the processor holds MaxQueued batches
)

// Ready is what the core hands its driver, whose duties are, in order:
//
//  1. step inputs in the order they happened, each stamped with its clock
//     (At); the core's clock never moves back;
//  2. take Ready (no Step between Ready and Advance);
//  3. commit Batch in one store transaction; a failed commit retires the
//     core (its memory is ahead of the store): rebuild one from the store;
//  4. call Advance;
//  5. send Replies to their callers — only now, so an answer is never ahead
//     of the store — and perform Effects, in any order, concurrently, and
//     step each one's answer.
//
// The same inputs give the same Readys, byte for byte (no map order leaks
// into them).
type Ready struct {
	Batch   store.ProcChanges
	Effects []Effect
	Replies []Reply
}

// Empty reports whether the Ready carries nothing.
func (r *Ready) Empty() bool { return r.Batch.Empty() && len(r.Effects) == 0 && len(r.Replies) == 0 }

// NewCore rebuilds a core from a store snapshot at time now and chain
// height head. Its first Ready asks again about every execution in flight
// and delivers every pending callback.
func NewCore(cfg CoreConfig, now time.Time, head uint64, snap store.ProcSnapshot) (*Core, error) {
	c := &Core{cfg: cfg.withDefaults(), now: now, head: head, procs: map[string]*proc{},
		byExec: map[string]*pbatch{}, byUID: map[string]*pbatch{}, endedNow: map[string]bool{}}
	for _, r := range snap.Processors {
		c.addProc(r)
	}
	for _, br := range snap.Batches {
		if err := c.loadBatch(br); err != nil {
			return nil, err
		}
	}
	for _, cr := range snap.Callbacks {
		p := c.procs[cr.Processor]
		if p == nil {
			return nil, fmt.Errorf("processor: callback %d of unknown processor %q", cr.Seq, cr.Processor)
		}
		cb := &callback{rec: cr, idx: -1}
		p.cbs[cr.Seq] = cb
		heap.Push(&p.due, cb)
	}
	for _, cu := range snap.Cursors {
		if cu.Name == CursorName {
			c.cursor = cu.Value
		}
	}
	c.afterStep()
	return c, nil
}

func (c *Core) addProc(r store.Processor) *proc {
	p := &proc{rec: r, live: map[string]*pbatch{}, cbs: map[int64]*callback{}}
	c.procs[r.Name] = p
	i := sort.SearchStrings(c.names, r.Name)
	c.names = append(c.names, "")
	copy(c.names[i+1:], c.names[i:])
	c.names[i] = r.Name
	return p
}

func (c *Core) loadBatch(br store.ProcBatch) error {
	p := c.procs[br.Processor]
	if p == nil {
		return fmt.Errorf("processor: batch %s of unknown processor %q", br.ID, br.Processor)
	}
	b := &pbatch{p: p, rec: br}
	if err := json.Unmarshal(br.Body, &b.st); err != nil {
		return fmt.Errorf("processor: batch %s/%s: %w", br.Processor, br.ID, err)
	}
	p.live[br.ID] = b
	switch br.State {
	case store.BatchQueued:
		q := &p.queues[Priority(br.Priority).index()]
		q.root = merge(q.root, &qnode{b: b, prio: prioOf(br.ID), size: 1}) // snapshot is in Key order
	case store.BatchExecuting:
		c.byExec[b.st.Exec] = b
		if b.st.UID != "" {
			c.byUID[b.st.UID] = b
		}
		c.checkAt(b, c.now) // ask the sequencer at once
	case store.BatchPending:
		c.byExec[b.st.Exec] = b
	default:
		return fmt.Errorf("processor: batch %s/%s in state %q in a snapshot", br.Processor, br.ID, br.State)
	}
	return nil
}

// Head returns the chain height the core knows.
func (c *Core) Head() uint64 { return c.head }

// Cursor returns the event cursor the core has handled.
func (c *Core) Cursor() uint64 { return c.cursor }

// Knows reports whether uid is the sequencer record of an execution in
// flight (the driver asks before reading a finished record's error).
func (c *Core) Knows(uid string) bool { return c.byUID[uid] != nil }

// HasReady reports whether a Ready would carry anything.
func (c *Core) HasReady() bool {
	return len(c.dirtyP) > 0 || len(c.dirtyB) > 0 || len(c.dirtyC) > 0 || !c.ready.Empty()
}

// Ready hands over what the steps since the last Advance produced.
func (c *Core) Ready() Ready {
	if c.handedOut {
		panic("processor: Ready called twice without Advance")
	}
	r := c.ready
	for _, p := range c.dirtyP {
		p.dirty = false
		p.rec.UpdatedAt = c.now
		r.Batch.Processors = append(r.Batch.Processors, p.rec)
	}
	for _, b := range c.dirtyB {
		b.dirty = false
		body, err := json.Marshal(&b.st)
		if err != nil {
			panic(fmt.Sprintf("processor: encode batch %s: %v", b.rec.ID, err))
		}
		b.rec.Body = body
		b.rec.UpdatedAt = c.now
		r.Batch.Batches = append(r.Batch.Batches, b.rec)
	}
	for _, cb := range c.dirtyC {
		cb.dirty = false
		r.Batch.Callbacks = append(r.Batch.Callbacks, cb.rec)
	}
	c.dirtyP, c.dirtyB, c.dirtyC = nil, nil, nil
	c.ready = Ready{}
	c.handedOut = true
	return r
}

// Advance tells the core its last Ready was committed.
func (c *Core) Advance() {
	c.handedOut = false
	clear(c.endedNow)
}

func (c *Core) touchP(p *proc) {
	if !p.dirty {
		p.dirty = true
		c.dirtyP = append(c.dirtyP, p)
	}
}

func (c *Core) touchB(b *pbatch) {
	if !b.dirty {
		b.dirty = true
		c.dirtyB = append(c.dirtyB, b)
	}
}

func (c *Core) touchBs(bs []*pbatch) {
	for _, b := range bs {
		c.touchB(b)
	}
}

func (c *Core) touchC(cb *callback) {
	if !cb.dirty {
		cb.dirty = true
		c.dirtyC = append(c.dirtyC, cb)
	}
}

func (c *Core) reply(r Reply) {
	if r.Req != 0 {
		c.ready.Replies = append(c.ready.Replies, r)
	}
}

func (c *Core) effect(e Effect) { c.ready.Effects = append(c.ready.Effects, e) }
