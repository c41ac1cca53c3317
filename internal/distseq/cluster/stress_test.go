package cluster

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/distseq/token"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit"
	"github.com/ordolabs/ordo/internal/transport/simnet"
)

// TestStress: random intents, network faults, crashes and restarts,
// indexer lag; then a quiet phase in which every intent must end final,
// each confirmed exactly once on chain.
func TestStress(t *testing.T) {
	testkit.Seeds(t, func(t *testing.T, seed uint64, steps int) { stress(t, seed) })
}

// TestStressRegressions replays the seeds of TestStress that broke a
// rule once: an intent Parked for ever on a grant whose coin its
// creator's later assembly renamed (17516702555477297562), a transaction
// queued twice by its coordinator (…500), a grant remembered without the
// creator of an earlier assembly's coin (…576), a grant on the coin of an
// intent reverted for good (…784).
func TestStressRegressions(t *testing.T) {
	for _, seed := range []uint64{17516702555477297562, 10330528933859190500, 10330528933859190576, 10330528933859190784} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { stress(t, seed) })
	}
}

func stress(t *testing.T, seed uint64) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, 5))
	c, err := New(ctx, Config{Seed: seed, Check: true, Coins: 50, Net: simnet.Config{Faults: simnet.Faults{
		Drop: 0.05, Duplicate: 0.05, Delay: 0.1, DelayBy: simnet.Dist{Min: time.Millisecond, Max: 300 * time.Millisecond}, Reorder: true}}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	defer c.Close()
	for step := range 200 {
		n := c.Nodes()[rng.IntN(len(c.Nodes()))]
		switch r := rng.IntN(100); {
		case r < 60:
			if n.Up() {
				id, err := c.Submit(ctx, n.ID, Group(0), token.Intent{To: "x", Amount: uint64(1 + rng.IntN(1500))}, "")
				if err != nil {
					t.Fatalf("step %d: %v", step, err)
				}
				ids = append(ids, id)
			}
		case r < 65:
			c.Crash(n.ID)
		case r < 75:
			if err := c.Restart(ctx, n.ID); err != nil {
				t.Fatal(err)
			}
		case r < 80:
			n.Lag = uint64(rng.IntN(4))
		}
		if err := c.RunFor(ctx, time.Duration(rng.IntN(1500))*time.Millisecond); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
	}
	c.Net.SetFaults(simnet.Faults{})
	for _, n := range c.Nodes() {
		n.Lag = 0
		if err := c.Restart(ctx, n.ID); err != nil {
			t.Fatal(err)
		}
	}
	final := func() bool {
		for _, id := range ids {
			rec, err := c.Intent(ctx, distseq.NodeID(id[:1]), id)
			if err != nil || rec.Status == store.DistseqPending {
				return false
			}
		}
		return true
	}
	ok, err := c.RunUntil(ctx, 5*time.Minute, final)
	if err != nil {
		t.Fatal(err)
	}
	var conf, rev int
	for _, id := range ids {
		rec, _ := c.Intent(ctx, distseq.NodeID(id[:1]), id)
		switch rec.Status {
		case store.DistseqConfirmed:
			conf++
			if c.Confirmed[Group(0)+"/"+id] != 1 {
				t.Errorf("%s confirmed %d times on chain", id, c.Confirmed[Group(0)+"/"+id])
			}
		case store.DistseqReverted:
			rev++
			if c.Confirmed[Group(0)+"/"+id] != 0 {
				t.Errorf("%s reverted at its sender, confirmed on chain", id)
			}
		default:
			n := c.Node(distseq.NodeID(id[:1]))
			v, _ := n.Core().Tx(id)
			t.Errorf("%s still %s: %+v", id, rec.Status, v)
			for _, g := range v.Granted {
				st, _ := n.Store.DistseqStatesByID(ctx, v.Contract, g.Spends)
				for _, x := range st {
					t.Logf("granted %v: %s spent=%v by=%s created=%s", g, x.ID, x.Spent, x.SpentBy, x.CreatedBy)
				}
			}
		}
	}
	t.Logf("seed %d: %d intents, %d confirmed, %d reverted, quiet phase ok=%v, head %d", seed, len(ids), conf, rev, ok, c.Head())
}

// TestTraceReplays: every node's recorded run (crashes and restarts
// included) replays into fresh cores with identical Readys.
func TestTraceReplays(t *testing.T) {
	ctx := context.Background()
	bufs := map[distseq.NodeID]*bytes.Buffer{}
	c, err := New(ctx, Config{Seed: 7, Trace: func(id distseq.NodeID) io.Writer {
		bufs[id] = &bytes.Buffer{}
		return bufs[id]
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i := range 20 {
		n := c.Nodes()[i%4]
		if !n.Up() {
			continue
		}
		if _, err := c.Submit(ctx, n.ID, Group(0), token.Intent{To: "y", Amount: 10}, ""); err != nil {
			t.Fatal(err)
		}
		if i == 9 {
			c.Crash("B")
		}
		if err := c.RunFor(ctx, 700*time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Restart(ctx, "B"); err != nil {
		t.Fatal(err)
	}
	if err := c.RunFor(ctx, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	for _, n := range c.Nodes() {
		if err := n.FlushTrace(); err != nil {
			t.Fatal(err)
		}
		st, err := distseq.Replay(bytes.NewReader(bufs[n.ID].Bytes()), map[string]distseq.Domain{"token": token.Domain{}})
		if err != nil {
			t.Fatalf("node %s: %v", n.ID, err)
		}
		if st.Inputs < 100 || (n.ID == "B" && st.Starts != 2) {
			t.Errorf("node %s: replayed %+v", n.ID, st)
		}
		t.Logf("node %s: %d starts, %d inputs, %d readys identical", n.ID, st.Starts, st.Inputs, st.Readys)
	}
}
