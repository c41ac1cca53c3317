package processor

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"sort"
	"strconv"
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

// Tick outcomes (TickResult.Outcome): the seed's NoMessagesToProcess and
// ProcessorPaused, and what a tick did with the batch it took.
const (
	TickNoMessages = "NoMessagesToProcess"
	TickPaused     = "ProcessorPaused"
	TickRotated    = "Rotated" // the batch's retry cooldown had not passed: it went to the back
	TickExpired    = "Expired" // the batch had expired: it ended Expired
	TickStarted    = "Started" // the batch (or its next action) started executing
)

// TickResult is what a tick did.
type TickResult struct {
	Outcome  string   `json:"outcome"`
	BatchID  string   `json:"batchId,omitempty"`
	Priority Priority `json:"priority,omitempty"`
	// Action is the non-atomic action started.
	Action *int `json:"action,omitempty"`
	// Exec is the execution started (its sequencer idempotency key), and
	// Attempt its attempt number for its unit (1 is the first).
	Exec    string `json:"executionId,omitempty"`
	Attempt int    `json:"attempt,omitempty"`
}

func (c *Core) tickCall(in Input) {
	p := c.procs[in.Processor]
	if p == nil {
		c.reply(Reply{Req: in.Req, Code: CodeNotFound, Message: fmt.Sprintf("no processor %q", in.Processor)})
		return
	}
	c.reply(Reply{Req: in.Req, Body: c.tick(p)})
}

// tick is the seed's tick: take the first batch of High, else of Medium;
// end it if it expired, rotate it if its retry cooldown has not passed,
// else start it.
func (c *Core) tick(p *proc) TickResult {
	if p.rec.Paused {
		return TickResult{Outcome: TickPaused}
	}
	qi := 0
	if p.queues[0].Len() == 0 {
		qi = 1
	}
	q := &p.queues[qi]
	b := q.RemoveAt(0)
	if b == nil {
		return TickResult{Outcome: TickNoMessages}
	}
	r := TickResult{BatchID: b.rec.ID, Priority: b.st.Spec.Priority}
	switch {
	case c.expired(b):
		c.end(b, Outcome{Status: Expired, Executed: b.st.Next})
		r.Outcome = TickExpired
	case c.cooling(b):
		c.touchBs(q.PushBack(b))
		r.Outcome = TickRotated
	default:
		c.start(b)
		r.Outcome, r.Exec, r.Attempt = TickStarted, b.st.Exec, b.st.Tries+1
		if b.st.Spec.ActionsConfig.NonAtomic != nil {
			a := b.st.Next
			r.Action = &a
		}
	}
	return r
}

func (c *Core) expired(b *pbatch) bool {
	e := b.st.Spec.Expiration
	return e != nil && (e.Height > 0 && c.head >= e.Height || !e.Time.IsZero() && !c.now.Before(e.Time))
}

func (c *Core) cooling(b *pbatch) bool {
	return c.head < b.st.CoolHeight || c.now.Before(b.st.CoolUntil)
}

// start begins an execution of b's current unit.
func (c *Core) start(b *pbatch) {
	b.st.Started++
	b.st.Exec = fmt.Sprintf("%s/%s/%d/%d", b.p.rec.Name, b.rec.ID, b.st.Next, b.st.Tries+1)
	b.st.LastExec = b.st.Exec
	b.st.UID = ""
	b.rec.State = store.BatchExecuting
	c.byExec[b.st.Exec] = b
	c.touchB(b)
	c.submit(b, false)
}

// submit asks the driver to hand b's execution to the sequencer (again: the
// idempotency key makes a second submission return the first record).
func (c *Core) submit(b *pbatch, again bool) {
	b.submitting = true
	c.checkAt(b, c.now.Add(c.cfg.CheckEvery))
	c.effect(Effect{Kind: EffectSubmit, Processor: b.p.rec.Name, BatchID: b.rec.ID, Exec: b.st.Exec, Queue: c.lane(b), Data: callData(b), Again: again})
}

// lane is the sequencer queue of b's executions.
func (c *Core) lane(b *pbatch) string {
	q := QueuePrefix + b.p.rec.Name
	if b.p.rec.Lanes <= 1 {
		return q
	}
	h := fnv.New32a()
	h.Write([]byte(b.rec.ID))
	return q + "/" + strconv.Itoa(int(h.Sum32()%uint32(b.p.rec.Lanes)))
}

// call is the sequencer's contract-call data: one call, or calls applied
// all or none.
type call struct {
	Contract string          `json:"contract,omitempty"`
	Method   string          `json:"method,omitempty"`
	Args     json.RawMessage `json:"args,omitempty"`
	Calls    []Msg           `json:"calls,omitempty"`
}

// callData is the execution's intent data: an atomic batch's messages as
// one multi-call (one call alone as itself), or a non-atomic batch's
// current message.
func callData(b *pbatch) json.RawMessage {
	msgs := b.st.Spec.Msgs
	var v call
	switch {
	case b.st.Spec.ActionsConfig.NonAtomic != nil:
		m := msgs[b.st.Next]
		v = call{Contract: m.Contract, Method: m.Method, Args: m.Args}
	case len(msgs) == 1:
		v = call{Contract: msgs[0].Contract, Method: msgs[0].Method, Args: msgs[0].Args}
	default:
		v = call{Calls: msgs}
	}
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("processor: encode call: %v", err))
	}
	return data
}

func (c *Core) submitted(in Input) {
	b := c.byExec[in.Exec]
	if b == nil || b.rec.State != store.BatchExecuting {
		return // stale: the execution has ended
	}
	b.submitting = false
	if in.UID == "" {
		if in.Permanent {
			delete(c.byExec, in.Exec)
			c.failed(b, "the sequencer refused the execution: "+in.Err)
			return
		}
		c.checkAt(b, c.now.Add(c.cfg.ResubmitAfter))
		return
	}
	if b.st.UID != in.UID {
		b.st.UID = in.UID
		c.byUID[in.UID] = b
		c.touchB(b)
	}
	switch store.TxState(in.State) {
	case store.Done:
		c.landed(b, true, "")
	case store.Failed:
		c.landed(b, false, in.Err)
	default: // not ended: the batch's transaction is still under way
	}
}

func (c *Core) finished(in Input) {
	if b := c.byUID[in.UID]; b != nil && b.rec.State == store.BatchExecuting && b.st.UID == in.UID {
		c.landed(b, in.Success, in.Err)
	}
}

// landed takes an execution's end in the sequencer: DONE or FAILED.
func (c *Core) landed(b *pbatch, success bool, err string) {
	delete(c.byUID, b.st.UID)
	early := b.st.Early
	b.st.Early = nil
	if !success {
		delete(c.byExec, b.st.Exec)
		if err == "" {
			err = "the execution's transaction failed"
		}
		c.failed(b, err)
		return
	}
	if b.confirmation() != nil {
		b.rec.State = store.BatchPending // byExec keeps it: the pending map
		c.touchB(b)
		if early != nil {
			c.confirm(b, *early)
		}
		return
	}
	delete(c.byExec, b.st.Exec)
	c.advance(b)
}

// advance moves past a unit that succeeded.
func (c *Core) advance(b *pbatch) {
	if b.st.Spec.ActionsConfig.Atomic != nil {
		c.end(b, Outcome{Status: Executed, Executed: len(b.st.Spec.Msgs)})
		return
	}
	b.st.Next++
	b.st.Tries, b.st.CoolHeight, b.st.CoolUntil, b.st.LastError = 0, 0, time.Time{}, ""
	if b.st.Next == len(b.st.Spec.Msgs) {
		c.end(b, Outcome{Status: Executed, Executed: b.st.Next})
		return
	}
	c.requeue(b)
}

// failed counts a failed attempt of b's unit and retries it per its
// RetryLogic, or ends the batch.
func (c *Core) failed(b *pbatch, err string) {
	b.st.Tries++
	b.st.LastError = err
	rl := b.retryLogic()
	if max := rl.attempts(); max == 0 || b.st.Tries < max {
		if rl != nil {
			if rl.Interval.Blocks > 0 {
				b.st.CoolHeight = c.head + rl.Interval.Blocks
			}
			if rl.Interval.Duration > 0 {
				b.st.CoolUntil = c.now.Add(rl.Interval.Duration)
			}
		}
		c.requeue(b)
		return
	}
	o := Outcome{Status: Rejected, Executed: b.st.Next, Error: err}
	if b.st.Next > 0 {
		o.Status = PartiallyExecuted
	}
	c.end(b, o)
}

func (b *pbatch) retryLogic() *RetryLogic {
	if a := b.st.Spec.ActionsConfig.Atomic; a != nil {
		return a.RetryLogic
	}
	return b.st.Spec.ActionsConfig.NonAtomic.Actions[b.st.Next].RetryLogic
}

// requeue puts b at the back of its queue.
func (c *Core) requeue(b *pbatch) {
	b.rec.State = store.BatchQueued
	b.st.Exec, b.st.UID, b.st.Early = "", "", nil
	b.submitting = false
	c.touchB(b)
	c.touchBs(b.p.queues[b.st.Spec.Priority.index()].PushBack(b))
}

// end gives b its outcome and its callback. b is out of every queue and
// map but live.
func (c *Core) end(b *pbatch, o Outcome) {
	p := b.p
	b.rec.State = store.BatchDone
	b.st.Outcome = &o
	b.st.Exec, b.st.UID = "", ""
	c.touchB(b)
	delete(p.live, b.rec.ID)
	c.endedNow[p.rec.Name+"/"+b.rec.ID] = true
	c.newCallback(p, b, o)
}

// checkAt sets when b's execution is asked about again, and the sweep's
// deadline with it.
func (c *Core) checkAt(b *pbatch, t time.Time) {
	b.nextCheck = t
	if c.nextSweep.IsZero() || t.Before(c.nextSweep) {
		c.nextSweep = t
	}
}

// sweep submits again the executions due for a check (and the
// submissions a store error refused), in execution-id order.
func (c *Core) sweep() {
	c.nextSweep = time.Time{}
	var due []*pbatch
	for _, b := range c.byExec {
		switch {
		case b.rec.State != store.BatchExecuting:
		case !b.submitting && !c.now.Before(b.nextCheck):
			due = append(due, b)
		default:
			c.checkAt(b, b.nextCheck)
		}
	}
	sort.Slice(due, func(i, j int) bool { return due[i].st.Exec < due[j].st.Exec })
	for _, b := range due {
		c.submit(b, true)
	}
}
