package node

import (
	"context"
	"fmt"
	"time"
)

// DefaultShutdownGrace is Config.ShutdownGrace's default.
const DefaultShutdownGrace = 10 * time.Second

// shutdownGrace is ShutdownGrace with its default.
func (c Config) shutdownGrace() time.Duration {
	if c.ShutdownGrace <= 0 {
		return DefaultShutdownGrace
	}
	return time.Duration(c.ShutdownGrace)
}

// drained is what a stop drained, for its log line.
type drained struct {
	// requests were under way (requests that may change state) when the
	// stop began, and finished; refused were answered shutting_down.
	requests, refused int
	// inFlight were the sequencer's transactions in flight (REVISION or
	// RETRY, in queues this node processes) when the queues closed; left
	// is how many still were when the drain ended.
	inFlight, left int
	took           time.Duration
	expired        bool // the grace ran out first
}

// drain is a stop's first part, while the API and the engines still run
// (until running ends):
// requests that may change state are answered 503 shutting_down, those
// under way finish; every queue with WAITING transactions is closed
// (sequencer.Node.Gate: nothing new starts, a transaction in flight
// settles as usual: its commit, its send, its inclusion); then it waits
// until none is in flight (on a shared store the lease keeper meanwhile
// takes no new queue). Each wait ends with the grace, counted from the
// stop's start on the node's clock; the engines are stopped after it
// returns, and what is left is resumed from the store at the next start,
// as after a crash.
func (n *Node) drain(running context.Context) drained {
	grace := n.Config.shutdownGrace()
	t0 := n.clock.Now()
	deadline := n.clock.NewTimer(grace)
	defer deadline.Stop()
	ctx, cancel := context.WithCancel(running) // ends early if the node stops meanwhile (an engine failed)
	defer cancel()
	expired := make(chan struct{})
	go func() {
		select {
		case <-deadline.C():
			close(expired)
			cancel()
		case <-ctx.Done():
		}
	}()
	var d drained
	n.log.Info("stopping: the API refuses requests that may change state (503 shutting_down); draining what is under way", "grace", grace)
	var idle <-chan struct{}
	d.requests, idle = n.stopGate.Stop()
	select {
	case <-idle:
	case <-ctx.Done():
	}
	if n.leases != nil {
		n.leases.draining.Store(true)
	}
	first := true
	for i := 0; ctx.Err() == nil; i++ {
		if i%20 == 0 {
			// Again every second: a core the sequencer builds anew (a
			// lease lost on a shared store) has forgotten the gates.
			n.closeQueues(ctx)
		}
		left, err := n.inFlight(ctx)
		if err != nil {
			if ctx.Err() == nil {
				n.log.Warn("stopping: reading the transactions in flight failed", "err", err)
			}
			break
		}
		if first {
			d.inFlight, first = left, false
		}
		d.left = left
		if left == 0 {
			break
		}
		t := n.clock.NewTimer(50 * time.Millisecond)
		select {
		case <-t.C():
		case <-ctx.Done():
			t.Stop()
		}
	}
	d.refused = n.stopGate.Refused()
	d.took = n.clock.Now().Sub(t0)
	cancel()
	select {
	case <-expired:
		d.expired = true
	default:
	}
	return d
}

// closeQueues closes every queue with WAITING transactions in the
// sequencer (Gate): nothing new is sent, what is in flight settles.
func (n *Node) closeQueues(ctx context.Context) {
	queues, err := n.store.WaitingQueues(ctx)
	if err != nil {
		if ctx.Err() == nil {
			n.log.Warn("stopping: listing the queues to close failed", "err", err)
		}
		return
	}
	for _, q := range queues {
		n.Sequencer.Gate(q, true)
	}
}

// inFlight counts the sequencer's transactions in REVISION or RETRY in
// the queues this node processes (on a shared store, those it holds).
func (n *Node) inFlight(ctx context.Context) (int, error) {
	txs, err := n.store.Active(ctx)
	if err != nil {
		return 0, fmt.Errorf("active transactions: %w", err)
	}
	if n.leases == nil {
		return len(txs), nil
	}
	held := n.leases.Held().Queues
	c := 0
	for _, tx := range txs {
		if held[tx.Queue] {
			c++
		}
	}
	return c, nil
}

// logStop logs how the node stopped: cleanly (what it drained), or with
// the error that stopped it.
func (n *Node) logStop(d *drained, err error) {
	switch {
	case err != nil:
		n.log.Error("stopped with an error", "err", err)
	case d == nil:
		n.log.Info("stopped")
	case d.expired:
		// What was left resumes from the store at the next start.
		n.log.Warn("stopped after the shutdown grace ran out",
			"grace", n.Config.shutdownGrace(), "requestsFinished", d.requests, "requestsRefused", d.refused,
			"inFlightAtClose", d.inFlight, "inFlightLeft", d.left, "took", d.took.String())
	default:
		n.log.Info("stopped cleanly", "requestsFinished", d.requests, "requestsRefused", d.refused,
			"inFlightSettled", d.inFlight, "took", d.took.String())
	}
}
