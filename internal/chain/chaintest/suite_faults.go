package chaintest

import (
	"fmt"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
)

// testFaultReject: rejectProb=1 refuses every submit with ErrRejected and
// nothing enters the mempool.
func testFaultReject(t *testing.T, f Factory) {
	e := newEnv(t, f)
	a := e.dev[0]
	if st := e.setFaults(devchain.FaultUpdate{RejectProb: ptr(1.0)}); st.RejectProb != 1 {
		t.Fatalf("SetFaults returned %+v", st)
	}
	if st := e.faults(); st.RejectProb != 1 {
		t.Fatalf("Faults = %+v, want rejectProb 1", st)
	}
	for i := range 3 {
		e.sendErr(deploy(a, uint64(i), baseFee, fmt.Sprintf("rej-%d", i)), chain.ErrRejected)
	}
	if ac := e.account(a); ac.PendingNonce != 0 {
		t.Fatalf("rejected txs reached the mempool: %+v", ac)
	}
	if b := e.mine(); len(b.Txs) != 0 {
		t.Fatalf("block after rejections has %d txs", len(b.Txs))
	}
	e.setFaults(devchain.FaultUpdate{RejectProb: ptr(0.0)})
	h := e.send(deploy(a, 0, baseFee, "rej-0"))
	e.mine()
	e.wantIncluded(h, true, "")
}

// testFaultDrop: dropProb=1 accepts a submit, shows it pending, and forgets it
// at the next block.
func testFaultDrop(t *testing.T, f Factory) {
	e := newEnv(t, f)
	a := e.dev[0]
	e.setFaults(devchain.FaultUpdate{DropProb: ptr(1.0)})
	tx := deploy(a, 0, baseFee, "drop")
	h := e.send(tx)
	e.wantState(h, chain.TxPending)
	b := e.mine()
	for _, bt := range b.Txs {
		if bt.Hash == h {
			t.Fatalf("dropped tx is in block %d", b.Height)
		}
	}
	e.wantState(h, chain.TxUnknown)
	if ac := e.account(a); ac.Nonce != 0 || ac.PendingNonce != 0 || ac.Balance != devBalance {
		t.Fatalf("account after a silent drop: %+v", ac)
	}
	if _, err := e.c().Call(e.ctx, "zkapp", "get", []byte(`{"zkapp":"drop"}`)); err == nil {
		t.Fatalf("dropped deploy took effect")
	}
	// Resubmitted once the fault is off, it goes through.
	e.setFaults(devchain.FaultUpdate{DropProb: ptr(0.0)})
	e.send(tx)
	e.mine()
	e.wantIncluded(h, true, "")
}

// testFaultRevert: revertProb=1 includes a transaction as failed "reverted":
// nonce and fee consumed, contract state and events untouched.
func testFaultRevert(t *testing.T, f Factory) {
	e := newEnv(t, f)
	a := e.dev[0]
	e.send(deploy(a, 0, baseFee, "rev"))
	e.mine()
	before, _ := e.get("rev")
	evs := e.events(0, 0)
	acct := e.account(a)

	e.setFaults(devchain.FaultUpdate{RevertProb: ptr(1.0)})
	h := e.send(set(a, 1, 2500, "rev", "k", 1))
	e.mine()
	e.wantIncluded(h, false, devchain.ReasonReverted)
	if ac := e.account(a); ac.Nonce != acct.Nonce+1 || ac.Balance != acct.Balance-2500 {
		t.Fatalf("after a revert: %+v, want nonce %d balance %d", ac, acct.Nonce+1, acct.Balance-2500)
	}
	if after, _ := e.get("rev"); string(after) != string(before) {
		t.Fatalf("reverted tx changed state: %s -> %s", before, after)
	}
	if got := e.events(0, 0); len(got) != len(evs) {
		t.Fatalf("reverted tx emitted %d events", len(got)-len(evs))
	}
}

// testFaultFeeSpike: a spike multiplies the minimum fee for n blocks;
// transactions under it wait those blocks out and are included after.
func testFaultFeeSpike(t *testing.T, f Factory) {
	const k, n = 5, 3
	e := newEnv(t, f)
	a, b := e.dev[0], e.dev[1]
	st := e.setFaults(devchain.FaultUpdate{FeeSpike: &devchain.FeeSpike{Factor: k, Blocks: n}})
	if st.MinFee != k*baseFee || st.FeeSpikeFactor != k || st.FeeSpikeBlocks != n {
		t.Fatalf("SetFaults returned %+v", st)
	}
	if fee, err := e.c().MinFee(e.ctx); err != nil || fee != k*baseFee {
		t.Fatalf("MinFee during a spike = %d, %v; want %d", fee, err, k*baseFee)
	}
	low := e.send(deploy(a, 0, baseFee, "spike-low"))   // admitted at the base fee, waits
	mid := e.send(deploy(b, 0, k*baseFee-1, "spike-b")) // just under: waits too
	e.sendErr(deploy(a, 1, baseFee-1, "spike-x"), chain.ErrFeeTooLow)
	for i := range n {
		var high chain.Hash
		if i == 0 {
			high = e.send(deploy(e.dev[2], 0, k*baseFee, "spike-high"))
		}
		blk := e.mine()
		if blk.MinFee != k*baseFee {
			t.Fatalf("spike block %d minFee %d, want %d", blk.Height, blk.MinFee, k*baseFee)
		}
		if high != "" {
			if got := txHashes(blk); !sameHashes(got, []chain.Hash{high}) {
				t.Fatalf("first spike block %v, want only the tx paying the spiked fee", got)
			}
		} else if len(blk.Txs) != 0 {
			t.Fatalf("spike block %d has %d txs, want 0", blk.Height, len(blk.Txs))
		}
		e.wantState(low, chain.TxPending)
		e.wantState(mid, chain.TxPending)
	}
	if fee, _ := e.c().MinFee(e.ctx); fee != baseFee {
		t.Fatalf("MinFee after the spike = %d, want %d", fee, baseFee)
	}
	if st := e.faults(); st.MinFee != baseFee || st.FeeSpikeBlocks != 0 {
		t.Fatalf("Faults after the spike: %+v", st)
	}
	blk := e.mine()
	if blk.MinFee != baseFee || !sameHashes(txHashes(blk), []chain.Hash{mid, low}) {
		t.Fatalf("block after the spike: minFee %d txs %v, want the two waiting txs", blk.MinFee, txHashes(blk))
	}
}

// testFaultStall: Mine makes no block until the stall's time has passed.
func testFaultStall(t *testing.T, f Factory) {
	const d = 10 * time.Second
	e := newEnv(t, f)
	e.mine()
	hd := e.head()
	start := e.clk.Now()
	st := e.setFaults(devchain.FaultUpdate{Stall: ptr(devchain.Duration(d))})
	if !st.StallUntil.Equal(start.Add(d)) {
		t.Fatalf("stallUntil %v, want %v", st.StallUntil, start.Add(d))
	}
	h := e.send(deploy(e.dev[0], 0, baseFee, "stall"))
	for _, step := range []time.Duration{0, d / 2, d/2 - time.Millisecond} {
		e.h.Advance(step)
		if hdr, ok, err := e.c().Mine(e.ctx); err != nil || ok {
			t.Fatalf("Mine %v into a %v stall: ok=%v err=%v hdr=%+v", e.clk.Now().Sub(start), d, ok, err, hdr)
		}
		if !sameHeader(e.head(), hd) {
			t.Fatalf("head moved during a stall")
		}
		e.wantState(h, chain.TxPending)
	}
	e.h.Advance(2 * time.Millisecond)
	hdr, ok, err := e.c().Mine(e.ctx)
	if err != nil || !ok || hdr.Height != hd.Height+1 || !hdr.Time.Equal(e.clk.Now()) {
		t.Fatalf("Mine after the stall: ok=%v err=%v hdr=%+v", ok, err, hdr)
	}
	e.wantIncluded(h, true, "")
}

// testFaultInvalid: an invalid update is refused and changes nothing, even
// the valid fields it carries.
func testFaultInvalid(t *testing.T, f Factory) {
	e := newEnv(t, f)
	e.send(deploy(e.dev[0], 0, baseFee, "inv"))
	e.mine()
	before, hd := e.faults(), e.head()
	half := ptr(0.5)
	for _, c := range []struct {
		name string
		u    devchain.FaultUpdate
	}{
		{"negative rejectProb", devchain.FaultUpdate{RejectProb: ptr(-0.1)}},
		{"dropProb over 1", devchain.FaultUpdate{DropProb: ptr(1.5), RejectProb: half}},
		{"revertProb over 1", devchain.FaultUpdate{RevertProb: ptr(2.0), DropProb: half}},
		{"reorgDepth 0", devchain.FaultUpdate{ReorgDepth: ptr(uint64(0)), ReorgEvery: ptr(uint64(2))}},
		{"reorgDepth too deep", devchain.FaultUpdate{ReorgDepth: ptr(uint64(devchain.MaxReorgDepth + 1))}},
		{"feeSpike factor 0", devchain.FaultUpdate{FeeSpike: &devchain.FeeSpike{Factor: 0, Blocks: 2}}},
		{"feeSpike too long", devchain.FaultUpdate{FeeSpike: &devchain.FeeSpike{Factor: 2, Blocks: 2_000_000}}},
		{"negative stall", devchain.FaultUpdate{Stall: ptr(devchain.Duration(-time.Second))}},
		{"stall over a day", devchain.FaultUpdate{Stall: ptr(devchain.Duration(25 * time.Hour)), RevertProb: half}},
		{"reorg 0", devchain.FaultUpdate{Reorg: ptr(uint64(0))}},
		{"reorg too deep", devchain.FaultUpdate{Reorg: ptr(uint64(devchain.MaxReorgDepth + 1)), RejectProb: half}},
		{"valid reorg with a bad prob", devchain.FaultUpdate{Reorg: ptr(uint64(1)), DropProb: ptr(-1.0)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if st, err := e.c().SetFaults(e.ctx, c.u); err == nil {
				t.Fatalf("SetFaults accepted it: %+v", st)
			}
			if got := e.faults(); e.mustJSON(got) != e.mustJSON(before) {
				t.Fatalf("faults changed: %+v -> %+v", before, got)
			}
			if !sameHeader(e.head(), hd) {
				t.Fatalf("head changed: %+v -> %+v", hd, e.head())
			}
		})
	}
}
