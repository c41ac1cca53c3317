package node

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit"
)

// An engine's writes carry the token its lease had when the engine started
// here; before it starts and once it stopped, a token no lease has.
func TestEngineFenceFollowsTheEngine(t *testing.T) {
	m := newMemLeases(0)
	k := m.keeper("a")
	k.engines = []string{"processor"}
	cycle(t, k)
	tok := k.Held().Fence.Leases // queues and senders only
	if len(tok) != 0 {
		t.Fatalf("sequencer fence %v, want none", tok)
	}
	name := leaseEngine + "processor"
	if f := k.engineFence("processor"); f.Holder != "a" || f.Leases[name] != 0 {
		t.Fatalf("fence before the engine starts: %+v, want a's with token 0", f)
	}
	k.startEngine("processor")
	held := k.held[name]
	if f := k.engineFence("processor"); held == 0 || f.Leases[name] != held {
		t.Fatalf("fence of the running engine: %+v, want token %d", f, held)
	}
	k.stopEngine("processor")
	if f := k.engineFence("processor"); f.Leases[name] != 0 {
		t.Fatalf("fence after the engine stopped: %+v, want token 0", f)
	}
}

// An engine whose write the store fenced stops, and the node goes on (as
// when the keeper sees the lease lost): leased does not return the error.
func TestLeasedEngineStopsOnFencedWrite(t *testing.T) {
	k := engineKeeper(t, newMemLeases(0), "a", "leader")
	ctx, cancel := context.WithCancel(t.Context())
	ran := make(chan struct{})
	out := goLeased(ctx, k, "leader", nil, func(context.Context) error {
		close(ran)
		return fmt.Errorf("leader: commit: %w", store.ErrFenced)
	})
	<-ran
	select {
	case err := <-out:
		t.Fatalf("leased returned %v before the node stopped", err)
	default:
	}
	cancel()
	if err := <-out; err != nil {
		t.Fatalf("leased after a fenced write: %v, want nil", err)
	}

	// Any other error of the engine is the node's: always for an engine
	// that cannot run again, before it started for one that can.
	boom := errors.New("boom")
	for _, again := range []func() bool{nil, func() bool { return false }} {
		run := k.leased("leader", again, func(context.Context) error { return boom })
		if err := run(t.Context()); !errors.Is(err, boom) {
			t.Fatalf("leased: %v, want boom", err)
		}
	}
}

// An engine's lease that expired while the database was away and was taken
// again with a new token (another node may have run the engine in
// between) stops the engine here, as a loss does; for an engine that
// cannot run again, the keeper then gives the lease back and reaches for it
// no more, so that a standby runs the engine.
func TestEngineStopsOnNewTokenAndIsGivenBack(t *testing.T) {
	m := newMemLeases(0)
	a := engineKeeper(t, m, "a", "distseq")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	started, stopped := make(chan struct{}), make(chan struct{})
	out := goLeased(ctx, a, "distseq", nil, func(ctx context.Context) error {
		close(started)
		<-ctx.Done()
		close(stopped)
		return nil
	})
	<-started
	old := a.held[leaseEngine+"distseq"]

	m.clk.Advance(11 * time.Second) // no cycle ran: the lease expired
	cycle(t, a)                     // taken again, with a new token
	if a.holdsEngineToken("distseq", old) {
		t.Fatalf("lease kept token %d after expiring", old)
	}
	testkit.WaitFor(t, 10*time.Second, 5*time.Millisecond, "the engine stopped", func() bool {
		m.clk.Advance(time.Second) // the watch polls on the keeper's clock
		select {
		case <-stopped:
			return true
		default:
			return false
		}
	})
	testkit.WaitFor(t, 10*time.Second, 5*time.Millisecond, "the engine retired", func() bool { return a.isRetired("distseq") })
	cycle(t, a)
	if a.holdsEngine("distseq") {
		t.Fatal("a still holds the engine's lease after it stopped")
	}
	b := engineKeeper(t, m, "b", "distseq")
	if !b.holdsEngine("distseq") {
		t.Fatal("the standby did not take the engine's lease")
	}
	cycle(t, a)
	if a.holdsEngine("distseq") {
		t.Fatal("a reached for the engine's lease again")
	}
	cancel()
	if err := <-out; err != nil {
		t.Fatalf("leased: %v", err)
	}
}

// An engine that can run again, stopped by a new token of its lease (the
// database was away longer than the lease), runs again here, its writes
// fenced by the new token, with no restart of the node; one whose write
// the store fenced runs again once the keeper holds its lease; and so does
// one that failed after it had started.
func TestEngineRunsAgainAfterLosingItsLease(t *testing.T) {
	m := newMemLeases(0)
	a := engineKeeper(t, m, "a", "processor")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	runs := make(chan int64, 4) // the token of each run's fence
	var n atomic.Int32
	out := goLeased(ctx, a, "processor", func() bool { return true }, func(ctx context.Context) error {
		runs <- a.engineFence("processor").Leases[leaseEngine+"processor"]
		switch n.Add(1) {
		case 2: // the second run: its write is fenced
			return fmt.Errorf("processor: commit: %w", store.ErrFenced)
		case 3: // the third: its core could not be built again
			return errors.New("processor: load: the database is away")
		}
		<-ctx.Done()
		return nil
	})
	first := <-runs
	m.clk.Advance(11 * time.Second) // no cycle ran: the lease expired
	cycle(t, a)                     // taken again, with a new token
	var second int64
	testkit.WaitFor(t, 10*time.Second, 5*time.Millisecond, "the engine ran again", func() bool {
		m.clk.Advance(time.Second) // the watch and the stand-by wait on the keeper's clock
		select {
		case second = <-runs:
			return true
		default:
			return false
		}
	})
	if second == first || second != a.held[leaseEngine+"processor"] {
		t.Fatalf("second run fenced by token %d (first %d, held %d): want the new token", second, first, a.held[leaseEngine+"processor"])
	}
	testkit.WaitFor(t, 10*time.Second, 5*time.Millisecond, "the engine ran a fourth time (after a failed run)", func() bool {
		m.clk.Advance(time.Second)
		return n.Load() >= 4
	})
	if a.isRetired("processor") {
		t.Fatal("the engine's lease was given back; want it kept, the engine standing by")
	}
	cancel()
	if err := <-out; err != nil {
		t.Fatalf("leased: %v", err)
	}
}

// engineKeeper is holder's keeper on m, running engine, after one cycle.
func engineKeeper(t *testing.T, m *memLeases, holder, engine string) *leaseKeeper {
	k := m.keeper(holder)
	k.engines = []string{engine}
	cycle(t, k)
	return k
}

// goLeased runs engine under k's lease until ctx ends; its result comes on
// the channel.
func goLeased(ctx context.Context, k *leaseKeeper, engine string, again func() bool, run func(context.Context) error) <-chan error {
	out := make(chan error, 1)
	go func() { out <- k.leased(engine, again, run)(ctx) }()
	return out
}
