package simnet

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/transport"
)

// TestRandomFaults checks each per-message fault alone: what it does to 1000
// messages from a to b, and that no other fault happens.
func TestRandomFaults(t *testing.T) {
	seed := testSeed(t, 7)
	const n = 1000
	for _, c := range []struct {
		name   string
		faults Faults
		check  func(t *testing.T, got []string, st Stats)
	}{
		{"drop", Faults{Drop: 0.3}, func(t *testing.T, got []string, st Stats) {
			if st.Dropped < 200 || st.Dropped > 400 || len(got) != n-st.Dropped {
				t.Errorf("dropped %d, delivered %d", st.Dropped, len(got))
			}
			if !slices.IsSortedFunc(got, cmpNum) || len(slices.Compact(slices.Clone(got))) != len(got) {
				t.Error("drop reordered or duplicated")
			}
		}},
		{"duplicate", Faults{Duplicate: 0.2}, func(t *testing.T, got []string, st Stats) {
			if st.Duplicated < 100 || st.Duplicated > 300 || len(got) != n+st.Duplicated {
				t.Errorf("duplicated %d, delivered %d", st.Duplicated, len(got))
			}
			if !slices.IsSortedFunc(got, cmpNum) || !equal(slices.Compact(slices.Clone(got)), seq(n)) {
				t.Error("without reorder, a duplicate must follow its original, nothing lost")
			}
		}},
		{"delay keeps FIFO", Faults{Delay: 0.5, DelayBy: Dist{Min: time.Second, Max: 10 * time.Second}}, func(t *testing.T, got []string, _ Stats) {
			if !equal(got, seq(n)) {
				t.Error("delay without reorder changed the order")
			}
		}},
		{"reorder", Faults{Delay: 0.5, DelayBy: Dist{Min: time.Second, Max: 10 * time.Second}, Reorder: true}, func(t *testing.T, got []string, _ Stats) {
			if equal(got, seq(n)) {
				t.Error("reorder with delays delivered in order")
			}
			if !equal(slices.SortedFunc(slices.Values(got), cmpNum), seq(n)) {
				t.Error("reorder lost or duplicated messages")
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, Config{Seed: seed, QueueLimit: 2 * n, Faults: c.faults}, "a", "b")
			w.send(t, "a", "b", "x", true, n)
			w.drain(t)
			st := w.net.Stats()
			if st.Sent != n || st.Shed != 0 || st.Refused != 0 || st.Cut != 0 {
				t.Errorf("stats %+v", st)
			}
			c.check(t, w.bodies("b", "a"), st)
		})
	}
}

func cmpNum(a, b string) int {
	x, _ := strconv.Atoi(a)
	y, _ := strconv.Atoi(b)
	return x - y
}

func TestDelayMovesDeliveryTime(t *testing.T) {
	w := newWorld(t, Config{Latency: Dist{Min: time.Millisecond}, Faults: Faults{Delay: 1, DelayBy: Dist{Min: time.Minute}}}, "a", "b")
	t0 := w.net.Clock().Now()
	w.send(t, "a", "b", "x", true, 1)
	if due, _ := w.net.Next(); !due.Equal(t0.Add(time.Minute + time.Millisecond)) {
		t.Fatalf("due %v, want +1m1ms", due.Sub(t0))
	}
	w.drain(t)
	if !w.net.Clock().Now().Equal(t0.Add(time.Minute + time.Millisecond)) {
		t.Fatalf("delivered at %v", w.net.Clock().Now().Sub(t0))
	}
}

func TestPartitionAndHeal(t *testing.T) {
	w := newWorld(t, Config{Seed: 3}, "a", "b", "c", "d")
	ctx := context.Background()
	w.send(t, "a", "c", "before", true, 5) // queued, then cut when due
	w.net.Partition([]transport.NodeID{"a", "b"}, []transport.NodeID{"c", "d"})
	w.send(t, "a", "b", "in", true, 5)
	w.send(t, "c", "d", "in", true, 5)
	w.send(t, "a", "d", "across", true, 5)
	w.send(t, "d", "b", "across", true, 5)
	w.drain(t)
	if len(w.got["b"]) != 5 || len(w.got["d"]) != 5 || len(w.got["c"]) != 0 || len(w.got["a"]) != 0 {
		t.Fatalf("during the partition: a %d, b %d, c %d, d %d", len(w.got["a"]), len(w.got["b"]), len(w.got["c"]), len(w.got["d"]))
	}
	if st := w.net.Stats(); st.Cut != 15 {
		t.Errorf("cut %d, want 15", st.Cut)
	}
	// A node in no group is cut off from every named group but reaches the
	// other unnamed ones.
	w.net.Partition([]transport.NodeID{"a"})
	w.send(t, "b", "c", "unnamed", true, 1)
	w.send(t, "b", "a", "named", true, 1)
	w.drain(t)
	if len(w.bodies("c", "b")) != 1 || len(w.bodies("a", "b")) != 0 {
		t.Fatalf("unnamed group: c from b %d, a from b %d", len(w.bodies("c", "b")), len(w.bodies("a", "b")))
	}
	w.net.Heal()
	w.send(t, "a", "d", "healed", true, 5)
	if _, err := w.net.RunUntil(ctx, w.net.Clock().Now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if got := w.bodies("d", "a"); !equal(got, seq(5)) {
		t.Fatalf("after heal d got %v from a", got)
	}
}

func TestCrashAndRestart(t *testing.T) {
	w := newWorld(t, Config{Seed: 5}, "a", "b")
	ctx := context.Background()
	w.send(t, "a", "b", "lost-in", true, 4)
	w.send(t, "b", "a", "lost-out", true, 4)
	old := w.eps["b"]
	w.net.Crash("b")
	if w.net.Up("b") || w.net.Pending() != 0 {
		t.Fatalf("after crash: up %v, pending %d", w.net.Up("b"), w.net.Pending())
	}
	if err := old.Send(ctx, "a", transport.Message{}); !errors.Is(err, transport.ErrClosed) {
		t.Fatalf("send from a crashed node: %v", err)
	}
	w.send(t, "a", "b", "to-dead", true, 3) // accepted, lost: the sender cannot tell
	w.drain(t)
	if len(w.got["a"]) != 0 || len(w.got["b"]) != 0 {
		t.Fatalf("delivered around a crash: a %d, b %d", len(w.got["a"]), len(w.got["b"]))
	}
	if st := w.net.Stats(); st.Cut != 11 {
		t.Errorf("cut %d, want 11", st.Cut)
	}
	w.net.Crash("b") // down already: nothing
	w.eps["b"] = w.net.Restart("b", w.handler(t, "b"))
	if err := old.Send(ctx, "a", transport.Message{}); !errors.Is(err, transport.ErrClosed) {
		t.Fatalf("the old endpoint came back with the restart: %v", err)
	}
	w.send(t, "a", "b", "again", true, 3)
	w.send(t, "b", "a", "again", true, 3)
	w.drain(t)
	if !equal(w.bodies("b", "a"), seq(3)) || !equal(w.bodies("a", "b"), seq(3)) {
		t.Fatalf("after restart: b got %v, a got %v", w.bodies("b", "a"), w.bodies("a", "b"))
	}
}

func TestQueueBound(t *testing.T) {
	w := newWorld(t, Config{QueueLimit: 4}, "a", "b", "c")
	ctx := context.Background()
	send := func(assured bool, body string) error {
		return w.eps["a"].Send(ctx, "b", transport.Message{Kind: "x", Assured: assured, Body: []byte(body)})
	}
	for _, c := range []struct {
		assured bool
		body    string
		err     error
	}{
		{false, "h1", nil}, {true, "a1", nil}, {false, "h2", nil}, {true, "a2", nil}, // full
		{true, "a3", nil},  // sheds h1
		{false, "h3", nil}, // sheds h2, queues h3
		{true, "a4", nil},  // sheds h3
		{false, "h4", nil}, // nothing to shed but itself
		{true, "a5", transport.ErrQueueFull},
	} {
		if err := send(c.assured, c.body); !errors.Is(err, c.err) || (err == nil) != (c.err == nil) {
			t.Fatalf("send %s: %v, want %v", c.body, err, c.err)
		}
		if q := w.net.Queued("a", "b"); q > 4 {
			t.Fatalf("%d queued past the bound", q)
		}
	}
	// Another peer pair is not blocked by the full one.
	if err := w.eps["a"].Send(ctx, "c", transport.Message{Kind: "x", Assured: true}); err != nil {
		t.Fatalf("send to c: %v", err)
	}
	w.drain(t)
	if got := w.bodies("b", "a"); !equal(got, []string{"a1", "a2", "a3", "a4"}) {
		t.Fatalf("b got %v", got)
	}
	if st := w.net.Stats(); st.Shed != 4 || st.Refused != 1 || st.Delivered != 5 {
		t.Errorf("stats %+v", st)
	}
	if err := send(true, "a5"); err != nil {
		t.Fatalf("after the drain: %v", err)
	}
}

// run is a chatty seeded run with every fault: pings between four nodes,
// each answered, with partitions, a crash and a restart on the way.
func run(t *testing.T, seed uint64) (string, Stats) {
	w := newWorld(t, Config{Seed: seed, QueueLimit: 16, Faults: Faults{
		Drop: 0.05, Duplicate: 0.05, Delay: 0.2, DelayBy: Dist{Max: 100 * time.Millisecond}, Reorder: true,
	}}, "a", "b", "c", "d")
	w.echo = true
	ids := []transport.NodeID{"a", "b", "c", "d"}
	ctx := context.Background()
	for round := range 50 {
		for i, from := range ids {
			if !w.net.Up(from) {
				continue
			}
			to := ids[(i+1+round)%len(ids)]
			err := w.eps[from].Send(ctx, to, transport.Message{Kind: "ping", Assured: round%2 == 0, Body: []byte(strconv.Itoa(round))})
			if err != nil && !errors.Is(err, transport.ErrQueueFull) {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		switch round {
		case 10:
			w.net.Partition([]transport.NodeID{"a", "b"}, []transport.NodeID{"c", "d"})
		case 20:
			w.net.Heal()
			w.net.Crash("c")
		case 30:
			w.eps["c"] = w.net.Restart("c", w.handler(t, "c"))
		}
		if _, err := w.net.RunUntil(ctx, w.net.Clock().Now().Add(20*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
	}
	w.drain(t)
	return w.net.Digest(), w.net.Stats()
}

func TestDeterminism(t *testing.T) {
	seed := testSeed(t, 42)
	d1, s1 := run(t, seed)
	d2, s2 := run(t, seed)
	if d1 != d2 || s1 != s2 {
		t.Fatalf("seed %d twice: %s %+v, then %s %+v", seed, d1, s1, d2, s2)
	}
	t.Logf("digest %s stats %+v", d1, s1)
	if s1.Dropped == 0 || s1.Duplicated == 0 || s1.Cut == 0 || s1.Delivered == 0 {
		t.Errorf("the run did not exercise every fault: %+v", s1)
	}
	if d3, _ := run(t, seed+1); d3 == d1 {
		t.Errorf("seeds %d and %d gave the same digest", seed, seed+1)
	}
}
