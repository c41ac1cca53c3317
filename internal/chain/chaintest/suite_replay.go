package chaintest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
)

// detRun feeds a fixed script of inputs, at fixed virtual times, to a fresh
// chain with the given seed and probabilistic faults, and returns the JSON of
// all its blocks and a transcript of what each call answered.
func detRun(t *testing.T, f Factory, seed uint64) (blocks []byte, transcript []string, faults devchain.FaultState) {
	t.Helper()
	e := newEnv(t, f, func(c *devchain.Config) { c.Seed = seed; c.MaxBlockTxs = 5 })
	p := 0.3
	e.setFaults(devchain.FaultUpdate{RejectProb: &p, DropProb: &p, RevertProb: &p, ReorgEvery: ptr(uint64(7)), ReorgDepth: ptr(uint64(2))})
	script := rand.New(rand.NewPCG(2026, 1)) // the inputs: the same for every seed
	for step := range 30 {
		e.h.Advance(time.Duration(500+script.IntN(1000)) * time.Millisecond)
		for k := range 6 {
			from := e.dev[script.IntN(4)]
			ac := e.account(from)
			nonce := ac.PendingNonce
			switch r := script.IntN(10); {
			case r == 0 && ac.PendingNonce > ac.Nonce:
				nonce = ac.Nonce // a replacement attempt
			case r == 1:
				nonce++ // a gap
			}
			fee := uint64(baseFee + 250*script.IntN(8))
			var tx chain.Tx
			if script.IntN(3) == 0 {
				tx = deploy(from, nonce, fee, fmt.Sprintf("det-%d-%d", step, k))
			} else {
				tx = zkTx(from, nonce, fee, "inc", fmt.Sprintf(`{"zkapp":"det-%d-0","key":"n","by":%d}`, script.IntN(step+1), k))
			}
			h, err := e.c().SendTx(e.ctx, tx)
			transcript = append(transcript, fmt.Sprintf("%d.%d send %s %q %v", step, k, h, chain.CodeOf(err), err != nil))
		}
		hdr, ok, err := e.c().Mine(e.ctx)
		if err != nil {
			t.Fatalf("Mine: %v", err)
		}
		transcript = append(transcript, fmt.Sprintf("%d mine %d %s %v", step, hdr.Height, hdr.Hash, ok))
	}
	bs := e.blocks()
	out, err := json.Marshal(bs)
	if err != nil {
		t.Fatalf("marshal blocks: %v", err)
	}
	return out, transcript, e.faults()
}

// testDeterminism: the same seed and config fed the same inputs at the same
// virtual times give byte-identical blocks, probabilistic faults included; a
// different seed gives a different chain.
func testDeterminism(t *testing.T, f Factory) {
	b1, tr1, fs := detRun(t, f, 7)
	b2, tr2, _ := detRun(t, f, 7)
	if strings.Join(tr1, "\n") != strings.Join(tr2, "\n") {
		for i := range min(len(tr1), len(tr2)) {
			if tr1[i] != tr2[i] {
				t.Fatalf("runs diverge at input %d:\n  %s\n  %s", i, tr1[i], tr2[i])
			}
		}
		t.Fatalf("transcripts differ in length: %d vs %d", len(tr1), len(tr2))
	}
	if string(b1) != string(b2) {
		t.Fatalf("same seed, different blocks:\n%s\n%s", b1, b2)
	}
	// The faults must have fired, or the comparison proves little.
	all := strings.Join(tr1, "\n")
	if !strings.Contains(all, `"rejected"`) || !strings.Contains(string(b1), `"reverted"`) || fs.Reorgs == 0 {
		t.Fatalf("faults did not all fire: rejected=%v reverted=%v reorgs=%d",
			strings.Contains(all, `"rejected"`), strings.Contains(string(b1), `"reverted"`), fs.Reorgs)
	}
	b3, _, _ := detRun(t, f, 8)
	if string(b3) == string(b1) {
		t.Fatalf("seeds 7 and 8 gave the same chain")
	}
}

// testRestart: a durable chain restarted keeps its head, blocks, accounts,
// zkapp state and events (a reorg in its history included), loses its mempool,
// and goes on producing blocks on top.
func testRestart(t *testing.T, f Factory) {
	e := newEnv(t, f)
	a, b := e.dev[0], e.dev[1]
	s, key := e.funded("restart", 1_000_000)
	signed := func(nonce uint64, tx chain.Tx) chain.Tx {
		tx.Nonce, tx.Memo = nonce, suiteMemo(tx.From, nonce)
		tx.Sign(key)
		return tx
	}
	e.send(deploy(a, 0, baseFee, "r1"))
	e.send(deploy(b, 0, baseFee, "r2"))
	e.send(signed(0, deploy(s, 0, baseFee, "r3")))
	e.mine()
	e.send(set(a, 1, baseFee, "r1", "k", "one"))
	e.send(zkTx(b, 1, 2*baseFee, "inc", `{"zkapp":"r2","key":"n","by":2}`))
	e.send(set(a, 2, baseFee, "r1", "k", "precondition")) // fails: same block
	e.mine()
	e.send(zkTx(a, 3, baseFee, "append", `{"zkapp":"r1","key":"l","value":1}`))
	e.send(signed(1, set(s, 0, baseFee, "r3", "k", true)))
	e.mine()
	e.setFaults(devchain.FaultUpdate{Reorg: ptr(uint64(2))})
	e.mine() // includes the reorged txs again
	if _, err := e.c().Faucet(e.ctx, s, 77); err != nil {
		t.Fatalf("Faucet: %v", err)
	}
	inc := e.send(zkTx(b, 2, baseFee, "inc", `{"zkapp":"r2","key":"n","by":1}`))
	e.mine()
	pending := e.send(set(a, 4, baseFee, "r1", "k", "lost"))
	ahead := e.send(set(b, 4, baseFee, "r2", "k", "lost"))

	addrs, zks := []chain.Address{a, b, s}, []string{"r1", "r2", "r3"}
	before := e.snapshot(addrs, zks)
	blocksBefore := e.mustJSON(e.blocks())
	incSt := e.wantIncluded(inc, true, "")
	if before.head.Height != 5 {
		t.Fatalf("head %d before the restart, want 5", before.head.Height)
	}

	e.restart()
	after := e.snapshot(addrs, zks)
	if !sameHeader(after.head, before.head) {
		t.Fatalf("head after restart %+v, want %+v", after.head, before.head)
	}
	e.sameState("after restart", after, before)
	if got := e.mustJSON(e.blocks()); got != blocksBefore {
		t.Fatalf("blocks after restart:\n%s\nwant\n%s", got, blocksBefore)
	}
	if st := e.wantIncluded(inc, true, ""); st != incSt {
		t.Fatalf("status after restart %+v, want %+v", st, incSt)
	}
	for _, h := range []chain.Hash{pending, ahead} {
		e.wantState(h, chain.TxUnknown) // the documented loss: the mempool
	}
	for _, ad := range addrs {
		if ac := e.account(ad); ac.PendingNonce != ac.Nonce {
			t.Fatalf("mempool survived the restart: %+v", ac)
		}
	}

	// It goes on: resubmitted txs land in a block on top of the old head.
	e.send(set(a, 4, baseFee, "r1", "k", "lost"))
	h := e.send(signed(2, set(s, 0, baseFee, "r3", "k", false)))
	blk := e.mine()
	if blk.Height != before.head.Height+1 || blk.Parent != before.head.Hash || len(blk.Txs) != 2 {
		t.Fatalf("first block after restart %+v with %d txs", blk.BlockHeader, len(blk.Txs))
	}
	e.wantIncluded(h, true, "")
	evs := e.events(0, 0)
	var last uint64
	for _, ev := range evs {
		if ev.Cursor <= last {
			t.Fatalf("event cursors not increasing after restart: %+v", evs)
		}
		last = ev.Cursor
	}
	// And once more, with nothing pending.
	mid := e.snapshot(addrs, zks)
	midBlocks := e.mustJSON(e.blocks())
	e.restart()
	e.sameState("after a second restart", e.snapshot(addrs, zks), mid)
	if e.mustJSON(e.blocks()) != midBlocks {
		t.Fatalf("blocks changed across the second restart")
	}
}

// testSubscribeHeads: a subscription delivers each mined head, and closes
// when its context ends.
func testSubscribeHeads(t *testing.T, f Factory) {
	e := newEnv(t, f)
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	ch, err := e.c().SubscribeHeads(ctx)
	if err != nil {
		t.Fatalf("SubscribeHeads: %v", err)
	}
	for i := range 3 {
		if i == 1 {
			e.send(deploy(e.dev[0], 0, baseFee, "sub"))
		}
		e.h.Advance(time.Second)
		hdr, ok, err := e.c().Mine(e.ctx)
		if err != nil || !ok {
			t.Fatalf("Mine: ok=%v err=%v", ok, err)
		}
		select {
		case got, open := <-ch:
			if !open {
				t.Fatalf("subscription closed early")
			}
			if !sameHeader(got, hdr) {
				t.Fatalf("notified %+v, mined %+v", got, hdr)
			}
		case <-time.After(waitFor):
			t.Fatalf("no notification of block %d within %v", hdr.Height, waitFor)
		}
	}
	cancel()
	deadline := time.After(waitFor)
	for {
		select {
		case _, open := <-ch:
			if !open {
				return
			}
		case <-deadline:
			t.Fatalf("subscription not closed %v after its context ended", waitFor)
		}
	}
}
