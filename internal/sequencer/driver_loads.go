package sequencer

import (
	"context"
	"sync"
)

// loadQueue holds the EffectLoads a run loop's core asked for until a load
// worker takes them, in the order asked. It is unbounded (the core has at
// most one load outstanding per queue), so the loop never waits behind
// loads, and its loads have workers of their own, so they never queue ahead
// of dispatches, submits and checks: a start over a backlog in many queues
// (one load per queue) dispatches as soon as the first windows are loaded,
// not after the last (the Ready contract lets effects run in any order).
//
// It keeps of each load what the load reads (queueLoad), not the whole
// Effect: a start over 100,000 queues puts 100,000 loads at once, and an
// Effect is some 460 bytes.
type loadQueue struct {
	mu    sync.Mutex
	items []queueLoad
	head  int
	wake  chan struct{} // one token: items may be waiting
}

// queueLoad is an EffectLoad's fields.
type queueLoad struct {
	queue string
	after int64
	limit int
}

func newLoadQueue() *loadQueue { return &loadQueue{wake: make(chan struct{}, 1)} }

// put queues loads.
func (q *loadQueue) put(es ...Effect) {
	if len(es) == 0 {
		return
	}
	q.mu.Lock()
	for _, e := range es {
		q.items = append(q.items, queueLoad{queue: e.Queue, after: e.After, limit: e.Limit})
	}
	q.mu.Unlock()
	q.signal()
}

func (q *loadQueue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// take returns the oldest load, if any; it passes the token on while more
// wait, so that every idle worker wakes.
func (q *loadQueue) take() (Effect, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.head == len(q.items) {
		return Effect{}, false
	}
	l := q.items[q.head]
	e := Effect{Kind: EffectLoad, Queue: l.queue, After: l.after, Limit: l.limit}
	q.items[q.head] = queueLoad{}
	q.head++
	switch {
	case q.head == len(q.items) && cap(q.items) > 1024:
		q.items, q.head = nil, 0 // a start's burst of loads is not kept
	case q.head == len(q.items):
		q.items, q.head = q.items[:0], 0
	case q.head > 1024 && q.head*2 > len(q.items):
		q.items = append(q.items[:0], q.items[q.head:]...)
		q.head = 0
	}
	if q.head < len(q.items) {
		q.signal()
	}
	return e, true
}

// loadWorkers is how many workers perform loads beside the Workers that
// perform the other effects: a quarter as many, at least one.
func loadWorkers(workers int) int { return max(1, workers/4) }

// workLoads performs loads from q until ctx ends, queueing their results on
// l.
func (n *Node) workLoads(ctx context.Context, l *Loop, q *loadQueue) {
	for {
		e, ok := q.take()
		if !ok {
			select {
			case <-ctx.Done():
				return
			case <-q.wake:
			}
			continue
		}
		in := n.perform(ctx, e)
		if ctx.Err() != nil {
			return
		}
		l.Put(in)
	}
}
