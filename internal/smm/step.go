package smm

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/ordolabs/ordo/internal/jobq"
)

// step is the driver's turn of the core (the synchronous variant of
// internal/engine's contract): under n.mu it stamps in with the clock,
// steps it, takes Ready and advances the core, tracing each; then, outside
// the lock, it performs the Ready's effects in order (the losses' waits
// ended first, the job inserts together: the job queue commits one turn's
// inserts at once) and returns the step's Reply. A loss's job that could
// not be inserted is stepped back (InputLossNotQueued).
func (n *Node) step(ctx context.Context, in Input) (Reply, error) {
	n.mu.Lock()
	in.At = n.clock.Now()
	n.tr.Input(in)
	n.core.Step(in)
	rd := n.core.Ready()
	n.tr.Ready(rd)
	n.core.Advance()
	n.tr.Advance()
	_ = n.tr.Flush() // its first error sticks: Run reports it
	var cancels []context.CancelFunc
	for _, e := range rd.Effects {
		switch e.Kind {
		case EffectLost:
			for _, cancel := range n.waiting[e.Node] {
				cancels = append(cancels, cancel)
			}
		case EffectAcked:
			close(n.ackWake) // intake waiting for acknowledgements looks again
			n.ackWake = make(chan struct{})
		default: // inserts and gates are performed outside the lock, below
		}
	}
	n.mu.Unlock()
	for _, cancel := range cancels {
		cancel() // a forward waiting on a lost node answers at once
	}
	for _, e := range rd.Effects {
		if e.Kind == EffectGate {
			n.gate(e.Queue, e.Closed)
		}
	}
	return rd.Reply, n.performInserts(ctx, rd.Effects)
}

// gate closes or opens a queue's dispatch in this node's sequencer.
func (n *Node) gate(queue string, closed bool) {
	if closed {
		// Deposed: its sequencer's copies of the queue's WAITING intents
		// belong to the new primary now (what is in flight settles; the
		// chain's nullifier keeps an intent the new primary dispatches
		// too from applying twice).
		n.m.Deposed.Inc()
		n.log.Warn("smm: this node is no longer the queue's primary: its dispatch is closed", "queue", queue)
	}
	n.cfg.Sequencer.Gate(queue, closed)
}

// performInserts inserts the effects' jobs at once; a full queue is not an
// error (its job waits for the next round).
func (n *Node) performInserts(ctx context.Context, effects []Effect) error {
	var ins []JobInsert
	for _, e := range effects {
		if e.Kind == EffectInsert {
			ins = append(ins, e.Job)
		}
	}
	errs := make([]error, len(ins))
	var wg sync.WaitGroup
	for i, j := range ins {
		goOrCall(&wg, n.cfg.Sequential, func() {
			_, _, err := n.jobs.Insert(ctx, jobq.InsertParams{Queue: laneQueue(j.Lane), Kind: j.Kind, Args: j.Args, UniqueKey: j.Unique, RunAt: j.At})
			if err == nil || errors.Is(err, jobq.ErrQueueFull) {
				return
			}
			errs[i] = fmt.Errorf("smm: insert %s: %w", j.Kind, err)
			if j.Loss != nil {
				_, _ = n.step(context.WithoutCancel(ctx), LossNotQueued(j.Loss.Node, j.Loss.Since))
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// goOrCall runs f on a goroutine of wg, or, sequential (simulations),
// in the caller's.
func goOrCall(wg *sync.WaitGroup, sequential bool, f func()) {
	if sequential {
		f()
		return
	}
	wg.Go(f)
}

// laneQueue is the job queue of a lane.
func laneQueue(l Lane) string {
	switch l {
	case LaneMonitoring:
		return jobq.QueueMonitoring
	case LaneRecurringSync:
		return jobq.QueueRecurringSync
	case LaneManualSync:
		return jobq.QueueManualSync
	case LaneReplicaSetUpdate:
		return jobq.QueueReplicaSetUpdate
	}
	panic(fmt.Sprintf("smm: unknown lane %v", l))
}
