package simnet

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/transport"
)

// world is a test network of named nodes, each recording what it received.
type world struct {
	net  *Network
	eps  map[transport.NodeID]*Endpoint
	got  map[transport.NodeID][]transport.Message
	echo bool // each node answers every "ping" with a "pong"
}

func newWorld(t *testing.T, cfg Config, ids ...transport.NodeID) *world {
	t.Helper()
	w := &world{net: New(cfg), eps: map[transport.NodeID]*Endpoint{}, got: map[transport.NodeID][]transport.Message{}}
	for _, id := range ids {
		w.eps[id] = w.net.Attach(id, w.handler(t, id))
	}
	return w
}

func (w *world) handler(t *testing.T, id transport.NodeID) transport.Handler {
	return func(m transport.Message) {
		w.got[id] = append(w.got[id], m)
		if w.echo && m.Kind == "ping" {
			err := w.eps[id].Send(context.Background(), m.From, transport.Message{Kind: "pong", Body: m.Body})
			if err != nil && !errors.Is(err, transport.ErrClosed) {
				t.Errorf("%s: pong: %v", id, err)
			}
		}
	}
}

func (w *world) send(t *testing.T, from, to transport.NodeID, kind string, assured bool, n int) {
	t.Helper()
	for i := range n {
		m := transport.Message{From: "forged", Kind: kind, Assured: assured, Body: []byte(strconv.Itoa(i))}
		if err := w.eps[from].Send(context.Background(), to, m); err != nil {
			t.Fatalf("send %s %d from %s to %s: %v", kind, i, from, to, err)
		}
	}
}

func (w *world) drain(t *testing.T) int {
	t.Helper()
	steps := 0
	for w.net.Step() {
		steps++
		if steps > 1_000_000 {
			t.Fatal("network does not drain")
		}
	}
	return steps
}

// bodies returns the bodies id received from from, in order.
func (w *world) bodies(id, from transport.NodeID) []string {
	var out []string
	for _, m := range w.got[id] {
		if m.From == from {
			out = append(out, string(m.Body))
		}
	}
	return out
}

func seq(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strconv.Itoa(i)
	}
	return out
}

// testSeed is ORDO_SEED when set, else def; the test logs it for a replay.
func testSeed(t *testing.T, def uint64) uint64 {
	t.Helper()
	if s := os.Getenv("ORDO_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("ORDO_SEED=%q: %v", s, err)
		}
		def = v
	}
	t.Logf("seed %d (replay with ORDO_SEED=%d)", def, def)
	return def
}

func equal(a, b []string) bool {
	return fmt.Sprint(a) == fmt.Sprint(b)
}

func TestFIFOWithoutFaults(t *testing.T) {
	seed := testSeed(t, 1)
	w := newWorld(t, Config{Seed: seed, Latency: Dist{Min: time.Millisecond, Max: 50 * time.Millisecond}}, "a", "b", "c")
	w.send(t, "a", "b", "x", true, 200)
	w.send(t, "c", "b", "x", false, 200)
	w.send(t, "b", "a", "x", true, 200)
	start := w.net.Clock().Now()
	if got := w.drain(t); got != 600 {
		t.Fatalf("steps = %d, want 600", got)
	}
	for _, c := range []struct{ to, from transport.NodeID }{{"b", "a"}, {"b", "c"}, {"a", "b"}} {
		if got := w.bodies(c.to, c.from); !equal(got, seq(200)) {
			t.Errorf("%s from %s: got %v, want 0..199 in order", c.to, c.from, got)
		}
	}
	for _, m := range w.got["b"] {
		if m.From == "forged" || m.Kind != "x" {
			t.Fatalf("delivered %+v: From must be the sender's endpoint", m)
		}
	}
	if !w.net.Clock().Now().After(start) {
		t.Error("the clock did not move with the deliveries")
	}
	st := w.net.Stats()
	if st.Sent != 600 || st.Delivered != 600 || w.net.Pending() != 0 {
		t.Errorf("stats %+v, pending %d", st, w.net.Pending())
	}
}

func TestSendErrors(t *testing.T) {
	w := newWorld(t, Config{}, "a")
	ctx := context.Background()
	if err := w.eps["a"].Send(ctx, "nobody", transport.Message{}); !errors.Is(err, transport.ErrUnknownPeer) {
		t.Errorf("unknown peer: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := w.eps["a"].Send(cctx, "a", transport.Message{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled ctx: %v", err)
	}
	if n, err := w.net.RunUntil(cctx, w.net.Clock().Now().Add(time.Second)); !errors.Is(err, context.Canceled) || n != 0 {
		t.Errorf("RunUntil on a cancelled ctx: %d, %v", n, err)
	}
	if w.eps["a"].Self() != "a" {
		t.Errorf("Self = %q", w.eps["a"].Self())
	}
}

func TestRunUntilAndDeliverDue(t *testing.T) {
	w := newWorld(t, Config{Latency: Dist{Min: 10 * time.Millisecond}}, "a", "b")
	w.echo = true
	ctx := context.Background()
	w.send(t, "a", "b", "ping", true, 3)
	t0 := w.net.Clock().Now()
	if n, err := w.net.DeliverDue(ctx); err != nil || n != 0 {
		t.Fatalf("DeliverDue before anything is due: %d, %v", n, err)
	}
	// Pings arrive at +10ms, pongs at +20ms: RunUntil +15ms sees the pings only.
	if n, err := w.net.RunUntil(ctx, t0.Add(15*time.Millisecond)); err != nil || n != 3 {
		t.Fatalf("RunUntil +15ms: %d, %v", n, err)
	}
	if !w.net.Clock().Now().Equal(t0.Add(15 * time.Millisecond)) {
		t.Fatalf("clock at %v", w.net.Clock().Now())
	}
	if len(w.got["a"]) != 0 || w.net.Pending() != 3 {
		t.Fatalf("pongs early: a got %d, pending %d", len(w.got["a"]), w.net.Pending())
	}
	if next, ok := w.net.Next(); !ok || !next.Equal(t0.Add(20*time.Millisecond)) {
		t.Fatalf("Next = %v %v", next, ok)
	}
	w.net.Clock().Advance(time.Second)
	if n, err := w.net.DeliverDue(ctx); err != nil || n != 3 {
		t.Fatalf("DeliverDue: %d, %v", n, err)
	}
	if got := w.bodies("a", "b"); !equal(got, seq(3)) {
		t.Fatalf("pongs %v", got)
	}
}
