package devchain_test

// Tests of the in-process devchain that the HTTP suite cannot express: block
// production by Tick and Run on the virtual clock, the block cap, a
// randomized property test, and the Mine benchmark. Helpers carry a core
// prefix so as not to collide with the HTTP tests of this package.

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/clock"
)

const coreWait = 10 * time.Second

func coreNew(t testing.TB, cfg devchain.Config) *devchain.Chain {
	t.Helper()
	c, err := devchain.New(cfg)
	if err != nil {
		t.Fatalf("devchain.New: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func coreDevs(t testing.TB, c *devchain.Chain) []chain.Address {
	t.Helper()
	devs, err := c.DevAccounts(context.Background())
	if err != nil {
		t.Fatalf("DevAccounts: %v", err)
	}
	out := make([]chain.Address, len(devs))
	for i, d := range devs {
		out[i] = d.Address
	}
	return out
}

func coreSend(t testing.TB, c *devchain.Chain, tx chain.Tx) chain.Hash {
	t.Helper()
	h, err := c.SendTx(context.Background(), tx)
	if err != nil {
		t.Fatalf("SendTx(nonce %d fee %d): %v", tx.Nonce, tx.Fee, err)
	}
	return h
}

func coreDeploy(from chain.Address, nonce, fee uint64, zk string) chain.Tx {
	return chain.Tx{From: from, Nonce: nonce, Fee: fee, Contract: "zkapp", Method: "deploy", Args: []byte(fmt.Sprintf(`{"zkapp":%q}`, zk))}
}

func coreHead(t testing.TB, c *devchain.Chain) chain.BlockHeader {
	t.Helper()
	h, err := c.Head(context.Background())
	if err != nil {
		t.Fatalf("Head: %v", err)
	}
	return h
}

func coreBlock(t testing.TB, c *devchain.Chain, h uint64) chain.Block {
	t.Helper()
	bs, err := c.Blocks(context.Background(), h, h)
	if err != nil || len(bs) != 1 {
		t.Fatalf("Blocks(%d): %d blocks, %v", h, len(bs), err)
	}
	return bs[0]
}

// coreWaitUntil polls cond until it holds or the deadline passes.
func coreWaitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	deadline := time.After(coreWait)
	for !cond() {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// TestMaxBlockTxsOverflow: a block holds at most MaxBlockTxs transactions;
// the rest go in the next blocks, highest fees first.
func TestMaxBlockTxsOverflow(t *testing.T) {
	ctx := context.Background()
	clk := clock.NewVirtual(clock.Epoch)
	c := coreNew(t, devchain.Config{Clock: clk, MaxBlockTxs: 5, DevAccounts: 4})
	devs := coreDevs(t, c)
	var all []chain.Hash
	fees := map[chain.Hash]uint64{}
	for i := range 12 {
		from, nonce := devs[i%4], uint64(i/4)
		fee := uint64(1000 + 100*(i%5))
		h := coreSend(t, c, coreDeploy(from, nonce, fee, fmt.Sprintf("cap-%d", i)))
		all = append(all, h)
		fees[h] = fee
	}
	seen := map[chain.Hash]bool{}
	for i, want := range []int{5, 5, 2, 0} {
		clk.Advance(time.Second)
		hdr, ok, err := c.Mine(ctx)
		if err != nil || !ok {
			t.Fatalf("Mine: %v %v", ok, err)
		}
		b := coreBlock(t, c, hdr.Height)
		if len(b.Txs) != want || hdr.TxCount != want {
			t.Fatalf("block %d has %d txs (header says %d), want %d", i+1, len(b.Txs), hdr.TxCount, want)
		}
		for _, tx := range b.Txs {
			seen[tx.Hash] = true
		}
	}
	for i, h := range all {
		if !seen[h] {
			t.Fatalf("tx %d never included", i)
		}
	}
	if st := c.Stats(); st.Mempool != 0 {
		t.Fatalf("mempool holds %d after the overflow drained", st.Mempool)
	}
}

// TestTickByBlockTime: Tick makes a block each BlockTime of the virtual
// clock, never a burst after a long gap, and none during a stall.
func TestTickByBlockTime(t *testing.T) {
	const bt = 2 * time.Second
	ctx := context.Background()
	clk := clock.NewVirtual(clock.Epoch)
	c := coreNew(t, devchain.Config{Clock: clk, BlockTime: bt, DevAccounts: 1})
	dev := coreDevs(t, c)[0]
	if at := c.NextBlockAt(); !at.Equal(clock.Epoch.Add(bt)) {
		t.Fatalf("NextBlockAt = %v, want %v", at, clock.Epoch.Add(bt))
	}
	tick := func(step time.Duration, want int) {
		t.Helper()
		clk.Advance(step)
		before := coreHead(t, c).Height
		if n := c.Tick(clk.Now()); n != want {
			t.Fatalf("Tick at +%v made %d blocks, want %d", clk.Now().Sub(clock.Epoch), n, want)
		}
		hd := coreHead(t, c)
		if hd.Height != before+uint64(want) || (want > 0 && !hd.Time.Equal(clk.Now())) {
			t.Fatalf("head %+v after Tick at %v", hd, clk.Now())
		}
	}
	tick(0, 0)
	tick(bt-time.Millisecond, 0)
	h := coreSend(t, c, coreDeploy(dev, 0, 1000, "tick"))
	tick(time.Millisecond, 1)
	if st, _ := c.TxStatus(ctx, h); st.State != chain.TxIncluded || st.Height != 1 {
		t.Fatalf("tx status %+v, want included in block 1", st)
	}
	tick(0, 0) // same instant: nothing more
	tick(bt, 1)
	tick(30*time.Second, 1) // far behind: one block, then the cadence resumes
	if at := c.NextBlockAt(); !at.Equal(clk.Now().Add(bt)) {
		t.Fatalf("NextBlockAt after a gap = %v, want %v", at, clk.Now().Add(bt))
	}
	if _, err := c.SetFaults(ctx, devchain.FaultUpdate{Stall: corePtr(devchain.Duration(5 * time.Second))}); err != nil {
		t.Fatal(err)
	}
	if at := c.NextBlockAt(); !at.Equal(clk.Now().Add(5 * time.Second)) {
		t.Fatalf("NextBlockAt during a stall = %v, want the stall's end", at)
	}
	tick(bt, 0)
	tick(3*time.Second, 1)
}

// TestRunProducesBlocks: Run makes a block each time the virtual clock
// passes BlockTime, and returns when its context ends.
func TestRunProducesBlocks(t *testing.T) {
	clk := clock.NewVirtual(clock.Epoch)
	c := coreNew(t, devchain.Config{Clock: clk, BlockTime: time.Second, DevAccounts: 1})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	heads, err := c.SubscribeHeads(ctx)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	dev := coreDevs(t, c)[0]
	h := coreSend(t, c, coreDeploy(dev, 0, 1000, "run"))
	for i := uint64(1); i <= 3; i++ {
		coreWaitUntil(t, "Run to arm its timer", func() bool { return clk.Pending() > 0 })
		clk.Advance(time.Second)
		select {
		case hd := <-heads:
			if hd.Height != i || !hd.Time.Equal(clock.Epoch.Add(time.Duration(i)*time.Second)) {
				t.Fatalf("head %+v, want height %d at +%ds", hd, i, i)
			}
		case <-time.After(coreWait):
			t.Fatalf("Run made no block %d", i)
		}
	}
	if st, _ := c.TxStatus(ctx, h); st.State != chain.TxIncluded || st.Height != 1 {
		t.Fatalf("tx status %+v, want included in block 1", st)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run returned %v", err)
		}
	case <-time.After(coreWait):
		t.Fatal("Run did not return after its context ended")
	}
}

func corePtr[T any](v T) *T { return &v }
