package node

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/ordolabs/ordo/internal/store"
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
	m := newMemLeases(0)
	k := m.keeper("a")
	k.engines = []string{"leader"}
	cycle(t, k)
	ctx, cancel := context.WithCancel(t.Context())
	ran := make(chan struct{})
	run := k.leased("leader", func(context.Context) error {
		close(ran)
		return fmt.Errorf("leader: commit: %w", store.ErrFenced)
	})
	out := make(chan error, 1)
	go func() { out <- run(ctx) }()
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

	// Any other error of the engine is the node's.
	boom := errors.New("boom")
	run = k.leased("leader", func(context.Context) error { return boom })
	if err := run(t.Context()); !errors.Is(err, boom) {
		t.Fatalf("leased: %v, want boom", err)
	}
}
