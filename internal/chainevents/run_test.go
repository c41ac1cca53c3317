package chainevents_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/chainevents"
	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/testkit"
)

// calls records a handler's calls for a test on another goroutine; the
// handler fails while failing > 0.
type calls struct {
	mu      sync.Mutex
	nexts   []uint64 // next of every call, failed ones included
	ok      []uint64 // next of the calls that returned nil
	failing int
}

func (c *calls) handle(ctx context.Context, evs []chain.Event, next uint64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nexts = append(c.nexts, next)
	if c.failing > 0 {
		c.failing--
		return errors.New("store unavailable")
	}
	c.ok = append(c.ok, next)
	return nil
}

func (c *calls) snapshot() (nexts, ok []uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]uint64(nil), c.nexts...), append([]uint64(nil), c.ok...)
}

// waitFor polls cond every millisecond of wall time, calling step (which may
// move a virtual clock) each time, until it holds or 10s pass.
func waitFor(t *testing.T, what string, step func(), cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		if step != nil {
			step()
		}
		time.Sleep(time.Millisecond)
	}
}

// TestRunWakesOnHeadsAndBacksOff: on a chain that pushes heads, Run hands a
// new block's events over without its poll timer firing; a failing handler
// gets the same page again after a backoff on the injected clock, logged.
func TestRunWakesOnHeadsAndBacksOff(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clk := clock.NewVirtual(clock.Epoch)
	dc, err := devchain.New(devchain.Config{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = dc.Close() }()
	devs, _ := dc.DevAccounts(ctx)
	nonce := uint64(0)
	deploy := func(zk string) {
		t.Helper()
		args, _ := json.Marshal(map[string]string{"zkapp": zk})
		if _, err := dc.SendTx(ctx, chain.Tx{From: devs[0].Address, Nonce: nonce, Fee: 2000, Contract: "zkapp", Method: "deploy", Args: args}); err != nil {
			t.Fatal(err)
		}
		nonce++
		if _, _, err := dc.Mine(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var logs testkit.LogBuffer
	c := &calls{}
	l := &chainevents.Listener{Chain: dc, Clock: clk, Handler: c.handle, PollInterval: time.Hour, Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()

	waitFor(t, "Run to wait", nil, func() bool { return clk.Pending() == 1 })
	deploy("a") // event cursor 1: a head wakes Run; the clock does not move
	waitFor(t, "the first page", nil, func() bool { _, ok := c.snapshot(); return len(ok) == 1 })

	c.mu.Lock()
	c.failing = 2
	c.mu.Unlock()
	deploy("b") // event cursor 2: two failures, then the same page again
	waitFor(t, "the page after two failures", func() { clk.Advance(500 * time.Millisecond) }, func() bool { _, ok := c.snapshot(); return len(ok) == 2 })
	nexts, ok := c.snapshot()
	if len(nexts) != 4 || nexts[1] != nexts[2] || nexts[2] != nexts[3] || ok[0] != 1 || ok[1] != 2 {
		t.Fatalf("handler calls %v, ok %v: want the second page three times", nexts, ok)
	}
	if got := strings.Count(logs.String(), "retrying the page"); got != 2 {
		t.Fatalf("%d retries logged, want 2:\n%s", got, logs.String())
	}
	if l.Cursor() != 2 {
		t.Fatalf("cursor %d", l.Cursor())
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
}

// TestRunPolls: on a chain that does not push heads, Run reads on its poll
// timer (the injected clock), and reads again at once after a full page.
func TestRunPolls(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clk := clock.NewVirtual(clock.Epoch)
	fc := &fakeChain{head: chain.BlockHeader{Height: 5}}
	c := &calls{}
	l := &chainevents.Listener{Chain: fc, Clock: clk, Handler: c.handle, PageSize: 2, Logger: quiet}
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()
	waitFor(t, "the first read", nil, func() bool { fc.mu.Lock(); defer fc.mu.Unlock(); return fc.reads > 0 })
	fc.mu.Lock()
	fc.events = events(5)
	fc.mu.Unlock()
	waitFor(t, "three pages", func() { clk.Advance(chainevents.DefaultPollInterval) }, func() bool { _, ok := c.snapshot(); return len(ok) == 3 })
	if _, ok := c.snapshot(); ok[0] != 20 || ok[1] != 40 || ok[2] != 50 {
		t.Fatalf("pages ending %v", ok)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
}
