package processor

import (
	"fmt"
	"strconv"

	"github.com/ordolabs/ordo/internal/store"
)

// Step takes one input. It panics on an unknown kind or when called between
// Ready and Advance (see Ready).
func (c *Core) Step(in Input) {
	if c.handedOut {
		panic("processor: Step between Ready and Advance")
	}
	if in.At.After(c.now) {
		c.now = in.At
	}
	from := len(c.dirtyB)
	defer c.assertBatches(from)
	switch in.Kind {
	case InputTime:
	case InputCreate:
		c.create(in)
	case InputAdd:
		c.add(in)
	case InputTick:
		c.tickCall(in)
	case InputPause, InputResume:
		c.pause(in)
	case InputRemove:
		c.remove(in)
	case InputConfirm:
		c.confirmCall(in)
	case InputEvents:
		c.events(in)
	case InputSubmitted:
		c.submitted(in)
	case InputFinished:
		c.finished(in)
	case InputHead:
		if in.Height > c.head {
			c.head = in.Height
		}
	case InputDelivered:
		c.delivered(in)
	default:
		panic(fmt.Sprintf("processor: unknown input kind %d", in.Kind))
	}
	c.afterStep()
}

// afterStep runs what time and the step made due: auto-ticks, checks of
// executions, deliveries.
func (c *Core) afterStep() {
	for _, name := range c.names {
		p := c.procs[name]
		if p.rec.AutoTick > 0 && !p.rec.Paused && p.queued() > 0 && !c.now.Before(p.nextAuto) {
			c.tick(p)
			p.nextAuto = c.now.Add(p.rec.AutoTick)
		}
	}
	if !c.nextSweep.IsZero() && !c.now.Before(c.nextSweep) {
		c.sweep()
	}
	for _, name := range c.names {
		c.deliver(c.procs[name])
	}
}

func (p *proc) queued() int { return p.queues[0].Len() + p.queues[1].Len() }

// owned finds the processor of an owner's call, replying when it cannot.
func (c *Core) owned(in Input) *proc {
	p := c.procs[in.Processor]
	switch {
	case p == nil:
		c.reply(Reply{Req: in.Req, Code: CodeNotFound, Message: fmt.Sprintf("no processor %q", in.Processor)})
		return nil
	case in.Caller != p.rec.Owner && !in.Admin:
		c.reply(Reply{Req: in.Req, Code: CodeForbidden, Message: fmt.Sprintf("processor %q is owned by %s; principal %s is neither its owner nor an admin", in.Processor, p.rec.Owner, in.Caller)})
		return nil
	}
	return p
}

func (c *Core) create(in Input) {
	s := in.Create
	d, ferr := s.Validate()
	if ferr != nil {
		c.reply(Reply{Req: in.Req, Code: CodeInvalid, Field: ferr.Field, Message: ferr.Error()})
		return
	}
	if c.procs[s.Name] != nil {
		c.reply(Reply{Req: in.Req, Code: CodeConflict, Message: fmt.Sprintf("processor %q exists", s.Name)})
		return
	}
	lanes := s.Lanes
	if lanes == 0 {
		lanes = 1
	}
	p := c.addProc(store.Processor{Name: s.Name, Owner: s.Owner, CallbackURL: s.CallbackURL, AutoTick: d, Lanes: lanes,
		NextID: 1, NextCallback: 1, CreatedAt: c.now})
	c.touchP(p)
	rec := p.rec
	rec.UpdatedAt = c.now
	c.reply(Reply{Req: in.Req, Body: rec})
}

// AddResult answers an added batch.
type AddResult struct {
	ID       string   `json:"id"`
	Priority Priority `json:"priority"`
	Position int      `json:"position"`
}

func (c *Core) add(in Input) {
	p := c.owned(in)
	if p == nil {
		return
	}
	s := *in.Batch
	if ferr := s.Validate(); ferr != nil {
		c.reply(Reply{Req: in.Req, Code: CodeInvalid, Field: ferr.Field, Message: ferr.Error()})
		return
	}
	if s.ID != "" && (in.Used || p.live[s.ID] != nil || c.endedNow[p.rec.Name+"/"+s.ID]) {
		c.reply(Reply{Req: in.Req, Code: CodeConflict, Message: fmt.Sprintf("batch id %q is already used by processor %q", s.ID, p.rec.Name)})
		return
	}
	if p.queued() >= c.cfg.MaxQueued {
		c.reply(Reply{Req: in.Req, Code: CodeQueueFull, Message: fmt.Sprintf("processor %q holds %d batches, its limit", p.rec.Name, c.cfg.MaxQueued)})
		return
	}
	q := &p.queues[s.Priority.index()]
	pos := q.Len()
	if s.Position != nil {
		if *s.Position > pos {
			c.reply(Reply{Req: in.Req, Code: CodeInvalid, Field: "position", Message: fmt.Sprintf("position: the %s queue holds %d batches; insert at 0 to %d", s.Priority, pos, pos)})
			return
		}
		pos = *s.Position
	}
	if s.ID == "" {
		s.ID = AutoIDPrefix + strconv.FormatInt(p.rec.NextID, 10)
		p.rec.NextID++
		c.touchP(p)
	}
	s.Position = nil
	b := &pbatch{p: p, rec: store.ProcBatch{Processor: p.rec.Name, ID: s.ID, Priority: string(s.Priority), State: store.BatchQueued, CreatedAt: c.now},
		st: batchState{Spec: s}}
	p.live[s.ID] = b
	c.touchB(b)
	c.touchBs(q.Insert(pos, b))
	c.reply(Reply{Req: in.Req, Body: AddResult{ID: s.ID, Priority: s.Priority, Position: pos}})
}

func (c *Core) pause(in Input) {
	p := c.owned(in)
	if p == nil {
		return
	}
	paused := in.Kind == InputPause
	if p.rec.Paused != paused {
		p.rec.Paused = paused
		c.touchP(p)
	}
	if !paused {
		p.nextAuto = c.now
	}
	c.reply(Reply{Req: in.Req, Body: map[string]bool{"paused": paused}})
}

// RemoveResult answers a removal.
type RemoveResult struct {
	ID       string   `json:"id"`
	Priority Priority `json:"priority"`
	Position int      `json:"position"`
}

func (c *Core) remove(in Input) {
	p := c.owned(in)
	if p == nil {
		return
	}
	if !in.Priority.Valid() {
		c.reply(Reply{Req: in.Req, Code: CodeInvalid, Field: "priority", Message: `priority: must be "high" or "medium"`})
		return
	}
	b := p.queues[in.Priority.index()].RemoveAt(in.Position)
	if b == nil {
		c.reply(Reply{Req: in.Req, Code: CodeNotFound, Message: fmt.Sprintf("the %s queue of %q has no position %d", in.Priority, p.rec.Name, in.Position)})
		return
	}
	c.end(b, Outcome{Status: RemovedByOwner, Executed: b.st.Next})
	c.reply(Reply{Req: in.Req, Body: RemoveResult{ID: b.rec.ID, Priority: in.Priority, Position: in.Position}})
}

// ConfirmResult answers a confirmation.
type ConfirmResult struct {
	Exec    string `json:"executionId"`
	BatchID string `json:"batchId"`
	Success bool   `json:"success"`
}

func (c *Core) confirmCall(in Input) {
	p := c.owned(in)
	if p == nil {
		return
	}
	b := c.byExec[in.Exec]
	if b == nil || b.p != p || b.confirmation() == nil {
		c.reply(Reply{Req: in.Req, Code: CodeNotFound, Message: fmt.Sprintf("no execution %q of processor %q awaits a confirmation", in.Exec, p.rec.Name)})
		return
	}
	c.confirmOrKeep(b, in.Success)
	c.reply(Reply{Req: in.Req, Body: ConfirmResult{Exec: in.Exec, BatchID: b.rec.ID, Success: in.Success}})
}

// events takes the confirmations a page of chain events carried, and the
// new cursor: both commit in this step's batch.
func (c *Core) events(in Input) {
	for _, cf := range in.Confirms {
		b := c.byExec[cf.Exec]
		if b == nil {
			continue
		}
		if cc := b.confirmation(); cc == nil || cc.Contract != cf.Contract {
			continue // only the contract the action names may confirm it
		}
		c.confirmOrKeep(b, cf.Success)
	}
	if in.Cursor > c.cursor {
		c.cursor = in.Cursor
		c.ready.Batch.Cursors = append(c.ready.Batch.Cursors, store.Cursor{Name: CursorName, Value: in.Cursor})
	}
}

// confirmation is the callback confirmation b's current action waits for,
// nil when it waits for none.
func (b *pbatch) confirmation() *CallbackConfirmation {
	na := b.st.Spec.ActionsConfig.NonAtomic
	if na == nil {
		return nil
	}
	return na.Actions[b.st.Next].CallbackConfirmation
}

// confirmOrKeep applies a confirmation to a pending batch, or keeps it in
// an executing batch until its transaction's end is known (the chain's
// event may be read before the sequencer calls the transaction DONE).
func (c *Core) confirmOrKeep(b *pbatch, success bool) {
	if b.rec.State == store.BatchPending {
		c.confirm(b, success)
		return
	}
	b.st.Early = &success
	c.touchB(b)
}

func (c *Core) confirm(b *pbatch, success bool) {
	delete(c.byExec, b.st.Exec)
	if success {
		c.advance(b)
		return
	}
	c.failed(b, "callback confirmation: failure")
}
