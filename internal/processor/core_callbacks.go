package processor

import (
	"container/heap"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

// CallbackKey is the Idempotency-Key of a batch's outcome: a batch ends
// once, so its processor and id name its one outcome.
func CallbackKey(processor, batchID string) string { return processor + "/" + batchID }

// newCallback records b's outcome as the processor's next callback, to be
// delivered when the processor has a callback URL.
func (c *Core) newCallback(p *proc, b *pbatch, o Outcome) {
	batchID := b.rec.ID
	key := CallbackKey(p.rec.Name, batchID)
	body, err := json.Marshal(CallbackBody{Processor: p.rec.Name, BatchID: batchID, Key: key, Outcome: o,
		Executions: b.st.Started, LastExecution: b.st.LastExec, At: c.now})
	if err != nil {
		panic(fmt.Sprintf("processor: encode callback: %v", err))
	}
	cb := &callback{idx: -1, rec: store.Callback{Processor: p.rec.Name, Seq: p.rec.NextCallback, BatchID: batchID, Key: key,
		Body: body, State: store.CallbackStored, CreatedAt: c.now}}
	p.rec.NextCallback++
	c.touchP(p)
	c.touchC(cb)
	if p.rec.CallbackURL == "" {
		return
	}
	cb.rec.State, cb.rec.NextAt = store.CallbackPending, c.now
	p.cbs[cb.rec.Seq] = cb
	heap.Push(&p.due, cb)
}

// deliver starts the deliveries of p that are due, up to MaxDeliveries at
// once, in NextAt then Seq order.
func (c *Core) deliver(p *proc) {
	for p.inflight < c.cfg.MaxDeliveries && p.due.Len() > 0 && !p.due.top().rec.NextAt.After(c.now) {
		cb := heap.Pop(&p.due).(*callback)
		cb.inflight = true
		p.inflight++
		c.effect(Effect{Kind: EffectDeliver, Processor: p.rec.Name, BatchID: cb.rec.BatchID, Seq: cb.rec.Seq,
			URL: p.rec.CallbackURL, Key: cb.rec.Key, Body: cb.rec.Body})
	}
}

func (c *Core) delivered(in Input) {
	p := c.procs[in.Processor]
	if p == nil {
		return
	}
	cb := p.cbs[in.Seq]
	if cb == nil || !cb.inflight {
		return // stale
	}
	cb.inflight = false
	p.inflight--
	cb.rec.Attempts++
	c.touchC(cb)
	if in.Success {
		cb.rec.State, cb.rec.DeliveredAt, cb.rec.NextAt, cb.rec.LastError = store.CallbackDelivered, c.now, time.Time{}, ""
		delete(p.cbs, in.Seq)
		return
	}
	cb.rec.LastError = in.Err
	cb.rec.NextAt = c.now.Add(c.backoff(cb.rec.Attempts))
	heap.Push(&p.due, cb)
}

// backoff is the wait after the n-th failed delivery: BackoffMin doubled
// n-1 times, at most BackoffMax.
func (c *Core) backoff(n int) time.Duration {
	d := c.cfg.BackoffMin
	for i := 1; i < n && d < c.cfg.BackoffMax; i++ {
		d *= 2
	}
	return min(d, c.cfg.BackoffMax)
}

// NextDeadline is the earliest time at which an InputTime would make the
// core do something (an auto-tick, a check, a delivery retry); zero when
// nothing waits on time.
func (c *Core) NextDeadline() time.Time {
	var t time.Time
	earlier := func(u time.Time) {
		if t.IsZero() || u.Before(t) {
			t = u
		}
	}
	if !c.nextSweep.IsZero() {
		earlier(c.nextSweep)
	}
	for _, name := range c.names {
		p := c.procs[name]
		if p.rec.AutoTick > 0 && !p.rec.Paused && p.queued() > 0 {
			earlier(p.nextAuto)
		}
		if p.inflight < c.cfg.MaxDeliveries && p.due.Len() > 0 {
			earlier(p.due.top().rec.NextAt)
		}
	}
	return t
}
