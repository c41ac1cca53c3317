package store

import "fmt"

// The checks every store makes of what it is asked to write, before it
// writes anything (JobBatch and DistseqBatch have theirs beside them).

// Validate checks the batch's records before a store writes any: ids and
// names set, states known. The stores wrap its error.
func (b *Batch) Validate() error {
	for i, u := range b.Txs {
		if u.UID == "" {
			return fmt.Errorf("tx update %d: empty uid", i)
		}
		if !u.State.Valid() {
			return fmt.Errorf("tx %s: invalid state %q", u.UID, u.State)
		}
		if u.Attempt != nil && u.Attempt.N < 1 {
			return fmt.Errorf("tx %s: attempt number %d, want >= 1", u.UID, u.Attempt.N)
		}
		if u.AttemptOnly && u.Attempt == nil {
			return fmt.Errorf("tx %s: attempt-only update without an attempt", u.UID)
		}
	}
	for i, q := range b.Queues {
		if q.Name == "" {
			return fmt.Errorf("queue %d: empty name", i)
		}
		if !q.State.Valid() {
			return fmt.Errorf("queue %s: invalid state %q", q.Name, q.State)
		}
	}
	for i, sd := range b.Senders {
		if sd.ID == "" {
			return fmt.Errorf("sender %d: empty id", i)
		}
	}
	for i, h := range b.History {
		if h.UID == "" {
			return fmt.Errorf("history %d: empty uid", i)
		}
		if h.From != "" && !h.From.Valid() {
			return fmt.Errorf("history of %s: invalid from state %q", h.UID, h.From)
		}
		if !h.To.Valid() {
			return fmt.Errorf("history of %s: invalid to state %q", h.UID, h.To)
		}
		if h.Binding != "" && !h.Binding.Valid() {
			return fmt.Errorf("history of %s: invalid binding %q", h.UID, h.Binding)
		}
	}
	return nil
}

// ValidateNew checks transactions before a store enqueues any: each has a
// uid and a queue. The stores wrap its error.
func ValidateNew(txs []NewTransaction) error {
	for i := range txs {
		if txs[i].UID == "" {
			return fmt.Errorf("transaction %d: empty uid", i)
		}
		if txs[i].Queue == "" {
			return fmt.Errorf("transaction %s: empty queue", txs[i].UID)
		}
	}
	return nil
}

// Validate checks the changes before a store writes any: names and ids set,
// states known. The stores wrap its error.
func (c *ProcChanges) Validate() error {
	for i, p := range c.Processors {
		if p.Name == "" {
			return fmt.Errorf("processor %d: empty name", i)
		}
	}
	for i, b := range c.Batches {
		if b.Processor == "" || b.ID == "" {
			return fmt.Errorf("batch %d (%q/%q): empty processor or id", i, b.Processor, b.ID)
		}
		switch b.State {
		case BatchQueued, BatchExecuting, BatchPending, BatchDone:
		default:
			return fmt.Errorf("batch %s/%s: invalid state %q", b.Processor, b.ID, b.State)
		}
	}
	for i, cb := range c.Callbacks {
		if cb.Processor == "" {
			return fmt.Errorf("callback %d: empty processor", i)
		}
		if cb.Seq < 1 {
			return fmt.Errorf("callback %s/%d: seq below 1", cb.Processor, cb.Seq)
		}
		switch cb.State {
		case CallbackPending, CallbackDelivered, CallbackStored:
		default:
			return fmt.Errorf("callback %s/%d: invalid state %q", cb.Processor, cb.Seq, cb.State)
		}
	}
	for i, cu := range c.Cursors {
		if cu.Name == "" {
			return fmt.Errorf("cursor %d: empty name", i)
		}
	}
	return nil
}

// Validate checks the changes before a store writes any: ids and names set,
// statuses known. The stores wrap its error.
func (c *LeaderChanges) Validate() error {
	for i, e := range c.Events {
		if e.ID < 1 {
			return fmt.Errorf("event %d: id %d below 1", i, e.ID)
		}
		if e.Walk == "" {
			return fmt.Errorf("event %d: empty walk", e.ID)
		}
		switch e.Status {
		case EventQueued, EventActive, EventSuccessful, EventDead:
		default:
			return fmt.Errorf("event %d: invalid status %q", e.ID, e.Status)
		}
	}
	for i, ch := range c.Channels {
		if ch.Index < 0 {
			return fmt.Errorf("channel %d: negative index %d", i, ch.Index)
		}
	}
	for i, cu := range c.Cursors {
		if cu.Name == "" {
			return fmt.Errorf("cursor %d: empty name", i)
		}
	}
	return nil
}
