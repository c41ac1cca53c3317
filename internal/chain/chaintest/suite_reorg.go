package chaintest

import (
	"fmt"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
)

// snapshot is the chain's observable state: what a reorg must restore and a
// restart must keep.
type snapshot struct {
	head     chain.BlockHeader
	accounts map[chain.Address][2]uint64 // nonce, balance
	zkapps   map[string]string
	events   string
}

func (e *env) snapshot(addrs []chain.Address, zkapps []string) snapshot {
	e.t.Helper()
	s := snapshot{head: e.head(), accounts: map[chain.Address][2]uint64{}, zkapps: map[string]string{}}
	for _, a := range addrs {
		ac := e.account(a)
		s.accounts[a] = [2]uint64{ac.Nonce, ac.Balance}
	}
	for _, z := range zkapps {
		raw, _ := e.get(z)
		s.zkapps[z] = string(raw)
	}
	s.events = e.mustJSON(e.events(0, 0))
	return s
}

// sameState compares everything but the head.
func (e *env) sameState(what string, got, want snapshot) {
	e.t.Helper()
	for a, w := range want.accounts {
		if g := got.accounts[a]; g != w {
			e.t.Fatalf("%s: account %s nonce/balance %v, want %v", what, short(a), g, w)
		}
	}
	for z, w := range want.zkapps {
		if g := got.zkapps[z]; g != w {
			e.t.Fatalf("%s: zkapp %s = %s, want %s", what, z, g, w)
		}
	}
	if got.events != want.events {
		e.t.Fatalf("%s: events %s, want %s", what, got.events, want.events)
	}
}

// testFaultReorg: a reorg of depth k replaces the last k blocks with empty
// ones at the same heights, returns their transactions to the mempool,
// restores state exactly, and the next block includes them again; event
// cursors are never reused.
func testFaultReorg(t *testing.T, f Factory) {
	const k = 2
	e := newEnv(t, f)
	a, b := e.dev[0], e.dev[1]
	zks := []string{"z1", "z2", "z3", "z4"}
	e.send(deploy(a, 0, baseFee, "z1"))
	e.send(deploy(a, 1, baseFee, "z2"))
	e.send(deploy(b, 0, baseFee, "z3"))
	e.send(deploy(b, 1, baseFee, "z4"))
	e.mine()
	before := e.snapshot([]chain.Address{a, b}, zks)
	kept := e.blocks()

	moved := []chain.Hash{
		e.send(set(a, 2, 2000, "z1", "k", 1)),
		e.send(set(b, 2, 1500, "z3", "k", 3)),
	}
	e.mine()
	moved = append(moved,
		e.send(set(a, 3, 2000, "z2", "k", 2)),
		e.send(zkTx(b, 3, 1500, "inc", `{"zkapp":"z4","key":"n","by":4}`)),
	)
	e.mine()
	old := e.blocks()
	lastCursor := e.events(0, 0)
	maxCursor := lastCursor[len(lastCursor)-1].Cursor

	st := e.setFaults(devchain.FaultUpdate{Reorg: ptr(uint64(k))})
	if st.Reorgs != 1 {
		t.Fatalf("reorgs = %d after one reorg", st.Reorgs)
	}
	hd := e.head()
	if hd.Height != old[len(old)-1].Height {
		t.Fatalf("head height %d after the reorg, want %d", hd.Height, old[len(old)-1].Height)
	}
	now := e.blocks()
	for i := range now {
		switch {
		case i < len(kept):
			if e.mustJSON(now[i]) != e.mustJSON(kept[i]) {
				t.Fatalf("block %d below the reorg changed", i)
			}
		default:
			if now[i].Hash == old[i].Hash || len(now[i].Txs) != 0 || now[i].TxCount != 0 || now[i].Parent != now[i-1].Hash {
				t.Fatalf("replaced block %d: %+v (old hash %s), want a new empty block", i, now[i].BlockHeader, old[i].Hash)
			}
		}
	}
	for _, h := range moved {
		e.wantState(h, chain.TxPending)
	}
	e.sameState("after the reorg", e.snapshot([]chain.Address{a, b}, zks), before)
	if ac := e.account(a); ac.PendingNonce != 4 {
		t.Fatalf("account %+v, want its reorged txs pending (pendingNonce 4)", ac)
	}

	blk := e.mine()
	if len(blk.Txs) != len(moved) {
		t.Fatalf("block after the reorg has %d txs, want the %d reorged ones", len(blk.Txs), len(moved))
	}
	for _, h := range moved {
		if st := e.wantIncluded(h, true, ""); st.Height != blk.Height {
			t.Fatalf("reorged tx included at %d, want %d", st.Height, blk.Height)
		}
	}
	newEvents := e.events(maxCursor, 0)
	if len(newEvents) != len(moved) {
		t.Fatalf("%d events after the old cursor, want %d", len(newEvents), len(moved))
	}
	for _, ev := range newEvents {
		if ev.Cursor <= maxCursor || ev.Height != blk.Height {
			t.Fatalf("event %+v reuses a cursor or sits at the wrong height", ev)
		}
	}
	if all := e.events(0, 0); len(all) != len(zks)+len(moved) {
		t.Fatalf("%d events in all, want %d (the replaced blocks' events are gone)", len(all), len(zks)+len(moved))
	}
}

// testFaultPeriodicReorg: reorgEvery/reorgDepth reorg the chain as it grows;
// every transaction still ends up included exactly once.
func testFaultPeriodicReorg(t *testing.T, f Factory) {
	e := newEnv(t, f)
	a := e.dev[0]
	st := e.setFaults(devchain.FaultUpdate{ReorgEvery: ptr(uint64(2)), ReorgDepth: ptr(uint64(2))})
	if st.ReorgEvery != 2 || st.ReorgDepth != 2 {
		t.Fatalf("SetFaults returned %+v", st)
	}
	const n = 8
	var sent []chain.Hash
	for i := range n {
		sent = append(sent, e.send(deploy(a, uint64(i), baseFee, fmt.Sprintf("per-%d", i))))
		e.mine()
	}
	for range 10 {
		if ac := e.account(a); ac.Nonce == n && ac.PendingNonce == n {
			break
		}
		e.mine()
	}
	if ac := e.account(a); ac.Nonce != n || ac.Balance != devBalance-n*baseFee {
		t.Fatalf("account %+v, want all %d txs paid once", ac, n)
	}
	if st := e.faults(); st.Reorgs == 0 {
		t.Fatalf("no periodic reorg happened: %+v", st)
	}
	seen := map[chain.Hash]int{}
	bs := e.blocks()
	for i, b := range bs[1:] {
		if b.Parent != bs[i].Hash || b.Height != uint64(i+1) {
			t.Fatalf("block %d does not follow block %d", b.Height, i)
		}
		for _, tx := range b.Txs {
			seen[tx.Hash]++
		}
	}
	for i, h := range sent {
		if seen[h] != 1 {
			t.Fatalf("tx %d is in %d blocks, want 1", i, seen[h])
		}
		e.wantIncluded(h, true, "")
		e.get(fmt.Sprintf("per-%d", i))
	}
}
