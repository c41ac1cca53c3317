package chaintest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/clock"
)

// testSanity: a fresh chain has a genesis head at the clock's time, K funded
// dev accounts, the base minimum fee, and Account answers for any address.
func testSanity(t *testing.T, f Factory) {
	e := newEnv(t, f)
	hd := e.head()
	if hd.Height != 0 || hd.Hash == "" || hd.Parent != "" || !hd.Time.Equal(clock.Epoch) || hd.TxCount != 0 {
		t.Fatalf("genesis head %+v, want height 0 at %v with a hash and no parent", hd, clock.Epoch)
	}
	if fee, err := e.c().MinFee(e.ctx); err != nil || fee != baseFee {
		t.Fatalf("MinFee = %d, %v; want %d", fee, err, baseFee)
	}
	devs, err := e.c().DevAccounts(e.ctx)
	if err != nil || len(devs) != e.cfg.DevAccounts {
		t.Fatalf("DevAccounts = %d accounts, %v; want %d", len(devs), err, e.cfg.DevAccounts)
	}
	seen := map[chain.Address]bool{}
	for _, d := range devs {
		if err := chain.ValidateAddress(d.Address); err != nil || seen[d.Address] {
			t.Fatalf("dev account %q: invalid or repeated (%v)", d.Address, err)
		}
		seen[d.Address] = true
		if d.Balance != devBalance || d.Nonce != 0 {
			t.Fatalf("dev account %+v, want balance %d nonce 0", d, uint64(devBalance))
		}
		ac := e.account(d.Address)
		if ac != (chain.Account{Address: d.Address, Balance: devBalance}) {
			t.Fatalf("Account(dev) = %+v", ac)
		}
	}
	stranger := chain.KeyAddress(chain.KeyFromSeed("chaintest/nobody"))
	if ac := e.account(stranger); ac != (chain.Account{Address: stranger}) {
		t.Fatalf("Account(unknown) = %+v, want zero", ac)
	}
	if _, err := e.c().Account(e.ctx, "not-an-address"); !errors.Is(err, chain.ErrInvalidTx) {
		t.Fatalf("Account(bad address) = %v, want ErrInvalidTx", err)
	}
	fs := e.faults()
	if fs.RejectProb != 0 || fs.DropProb != 0 || fs.RevertProb != 0 || fs.ReorgEvery != 0 || fs.MinFee != baseFee || fs.Reorgs != 0 {
		t.Fatalf("initial faults %+v", fs)
	}
}

// testMineAndBlocks: Mine makes one block per call, empty ones included, with
// consecutive heights, linked parents and the clock's time; Blocks returns
// them and clips the range at the head.
func testMineAndBlocks(t *testing.T, f Factory) {
	e := newEnv(t, f)
	genesis := e.head()
	var hdrs []chain.BlockHeader
	for i, step := range []time.Duration{time.Second, 2500 * time.Millisecond, 0, time.Minute} {
		e.h.Advance(step)
		var tx chain.Hash
		if i%2 == 0 {
			tx = e.send(deploy(e.dev[0], uint64(i/2), baseFee, fmt.Sprintf("blk-%d", i)))
		}
		hdr, ok, err := e.c().Mine(e.ctx)
		if err != nil || !ok {
			t.Fatalf("Mine: ok=%v err=%v", ok, err)
		}
		if hdr.Height != uint64(i+1) || !hdr.Time.Equal(e.clk.Now()) || hdr.MinFee != baseFee {
			t.Fatalf("block %d header %+v, want height %d at %v", i, hdr, i+1, e.clk.Now())
		}
		if want := 1 - i%2; hdr.TxCount != want {
			t.Fatalf("block %d has %d txs, want %d", hdr.Height, hdr.TxCount, want)
		}
		if tx != "" {
			e.wantIncluded(tx, true, "")
		}
		if !sameHeader(e.head(), hdr) {
			t.Fatalf("Head = %+v, Mine returned %+v", e.head(), hdr)
		}
		hdrs = append(hdrs, hdr)
	}
	bs, err := e.c().Blocks(e.ctx, 0, 100)
	if err != nil || len(bs) != 5 {
		t.Fatalf("Blocks(0, 100) = %d blocks, %v; want 5 (clipped at the head)", len(bs), err)
	}
	if !sameHeader(bs[0].BlockHeader, genesis) || len(bs[0].Txs) != 0 {
		t.Fatalf("block 0 = %+v, want genesis %+v", bs[0].BlockHeader, genesis)
	}
	for i, b := range bs[1:] {
		if !sameHeader(b.BlockHeader, hdrs[i]) {
			t.Fatalf("Blocks[%d] header %+v, Mine returned %+v", i+1, b.BlockHeader, hdrs[i])
		}
		if b.Parent != bs[i].Hash || b.TxCount != len(b.Txs) {
			t.Fatalf("block %d: parent %s (want %s), txCount %d with %d txs", b.Height, b.Parent, bs[i].Hash, b.TxCount, len(b.Txs))
		}
		for j, tx := range b.Txs {
			if tx.Index != j || tx.Hash != tx.Tx.Hash() || tx.Status != chain.OutcomeSucceeded {
				t.Fatalf("block %d tx %d: %+v", b.Height, j, tx)
			}
		}
	}
	mid, err := e.c().Blocks(e.ctx, 2, 3)
	if err != nil || len(mid) != 2 || mid[0].Height != 2 || mid[1].Height != 3 {
		t.Fatalf("Blocks(2, 3) = %d blocks, %v", len(mid), err)
	}
	if past, err := e.c().Blocks(e.ctx, 9, 12); err != nil || len(past) != 0 {
		t.Fatalf("Blocks past the head = %d blocks, %v; want none", len(past), err)
	}
}

// testFeeOrdering: a block takes the highest fees first, ties in arrival
// order, at most MaxBlockTxs; the rest go in the next block. A sender's later
// nonce competes only once its predecessor is in.
func testFeeOrdering(t *testing.T, f Factory) {
	e := newEnv(t, f, func(c *devchain.Config) { c.MaxBlockTxs = 4 })
	fees := []uint64{1000, 3000, 2000, 3000, 1000, 5000}
	hs := make([]chain.Hash, len(fees))
	for i, fee := range fees {
		hs[i] = e.send(deploy(e.dev[i], 0, fee, fmt.Sprintf("ord-%d", i)))
	}
	for _, blk := range []struct{ order []int }{{[]int{5, 1, 3, 2}}, {[]int{0, 4}}} {
		b := e.mine()
		var want []chain.Hash
		for _, i := range blk.order {
			want = append(want, hs[i])
		}
		if got := txHashes(b); !sameHashes(got, want) {
			t.Fatalf("block %d order %v, want txs %v", b.Height, got, blk.order)
		}
	}
	if b := e.mine(); len(b.Txs) != 0 {
		t.Fatalf("third block has %d txs, want 0", len(b.Txs))
	}

	// Readiness: A's nonce 1 pays most but waits for A's nonce 0, the cheapest.
	a, b := e.dev[6], e.dev[7]
	a0 := e.send(deploy(a, 0, 1000, "ready-a0"))
	a1 := e.send(deploy(a, 1, 9000, "ready-a1"))
	b0 := e.send(deploy(b, 0, 5000, "ready-b0"))
	blk := e.mine()
	if got, want := txHashes(blk), []chain.Hash{b0, a0, a1}; !sameHashes(got, want) {
		t.Fatalf("readiness order %v, want b0, a0, a1", got)
	}
}

// testNonces: a nonce ahead waits until the gap fills; a nonce behind is
// refused with ErrNonceTooLow; one past the allowed gap with ErrNonceTooHigh.
func testNonces(t *testing.T, f Factory) {
	e := newEnv(t, f)
	a := e.dev[0]
	h2 := e.send(deploy(a, 2, baseFee, "n2"))
	h1 := e.send(deploy(a, 1, 5*baseFee, "n1"))
	if ac := e.account(a); ac.Nonce != 0 || ac.PendingNonce != 0 {
		t.Fatalf("with a gap at 0: %+v, want nonce 0 pendingNonce 0", ac)
	}
	if b := e.mine(); len(b.Txs) != 0 {
		t.Fatalf("block with a nonce gap has %d txs", len(b.Txs))
	}
	e.wantState(h1, chain.TxPending)
	e.wantState(h2, chain.TxPending)
	h0 := e.send(deploy(a, 0, baseFee, "n0"))
	if ac := e.account(a); ac.Nonce != 0 || ac.PendingNonce != 3 {
		t.Fatalf("gap filled: %+v, want nonce 0 pendingNonce 3", ac)
	}
	b := e.mine()
	if got := txHashes(b); !sameHashes(got, []chain.Hash{h0, h1, h2}) {
		t.Fatalf("block order %v, want nonces 0, 1, 2", got)
	}
	if ac := e.account(a); ac.Nonce != 3 || ac.PendingNonce != 3 {
		t.Fatalf("after inclusion: %+v, want nonce 3", ac)
	}
	for n := range uint64(3) {
		e.sendErr(deploy(a, n, 10*baseFee, "behind"), chain.ErrNonceTooLow)
	}
	// The default gap is 1024: far ahead is refused.
	e.sendErr(deploy(a, 3+5000, baseFee, "far"), chain.ErrNonceTooHigh)
}

// testFees: the fee is charged on inclusion only, exactly, failed
// transactions included; a fee under the minimum or over the balance is
// refused.
func testFees(t *testing.T, f Factory) {
	e := newEnv(t, f)
	a := e.dev[0]
	ok := e.send(deploy(a, 0, 1500, "fee-ok"))
	bad := e.send(set(a, 1, 2000, "fee-missing", "k", 1)) // no such zkapp: fails
	if ac := e.account(a); ac.Balance != devBalance || ac.Nonce != 0 || ac.PendingNonce != 2 {
		t.Fatalf("pending: %+v, want the balance untouched", ac)
	}
	e.mine()
	e.wantIncluded(ok, true, "")
	st := e.wantIncluded(bad, false, "no such zkapp")
	if st.Height != 1 {
		t.Fatalf("failed tx in block %d, want 1", st.Height)
	}
	if ac := e.account(a); ac.Balance != devBalance-3500 || ac.Nonce != 2 {
		t.Fatalf("after inclusion: %+v, want balance %d nonce 2", ac, uint64(devBalance-3500))
	}
	e.sendErr(deploy(a, 2, baseFee-1, "cheap"), chain.ErrFeeTooLow)

	poor, key := e.funded("poor", 1500)
	tx := deploy(poor, 0, 2000, "poor")
	tx.Sign(key)
	e.sendErr(tx, chain.ErrInsufficientFunds)
	tx = deploy(poor, 0, 1500, "poor")
	tx.Sign(key)
	h := e.send(tx)
	e.mine()
	e.wantIncluded(h, true, "")
	if ac := e.account(poor); ac.Balance != 0 || ac.Nonce != 1 {
		t.Fatalf("poor account after paying all: %+v", ac)
	}
}

// testReplacement: a pending transaction is replaced only by the same sender
// and nonce at >= 110% of its fee; the replaced one becomes dropped.
func testReplacement(t *testing.T, f Factory) {
	e := newEnv(t, f)
	a, b := e.dev[0], e.dev[1]
	cur := e.send(deploy(a, 0, 1000, "r-1000"))
	curFee := uint64(1000)
	var replaced []chain.Hash
	for _, c := range []struct {
		fee     uint64
		wantErr error
	}{
		{1000, chain.ErrReplacementUnderpriced}, // same fee
		{1090, chain.ErrReplacementUnderpriced}, // 109%
		{1099, chain.ErrReplacementUnderpriced},
		{1100, nil},                             // 110%
		{1200, chain.ErrReplacementUnderpriced}, // 109.1% of 1100
		{1210, nil},                             // 110% of 1100
		{5000, nil},
	} {
		tx := deploy(a, 0, c.fee, fmt.Sprintf("r-%d-offer", c.fee))
		if c.wantErr != nil {
			e.sendErr(tx, c.wantErr)
			e.wantState(cur, chain.TxPending)
			continue
		}
		h := e.send(tx)
		st := e.wantState(cur, chain.TxDropped)
		if st.Reason == "" {
			t.Errorf("dropped status of a replaced tx has no reason")
		}
		replaced = append(replaced, cur)
		cur, curFee = h, c.fee
	}
	// Another sender at the same nonce replaces nothing, whatever its fee.
	other := e.send(deploy(b, 0, 1000, "r-other"))
	e.wantState(cur, chain.TxPending)
	blk := e.mine()
	if got := txHashes(blk); !sameHashes(got, []chain.Hash{cur, other}) {
		t.Fatalf("block %v, want the last replacement and the other sender's tx", got)
	}
	for _, h := range replaced {
		e.wantState(h, chain.TxDropped)
	}
	if ac := e.account(a); ac.Balance != devBalance-curFee || ac.Nonce != 1 {
		t.Fatalf("sender %+v, want only the replacement's fee %d charged", ac, curFee)
	}
}

// testSigning: the chain signs for its dev accounts; any other sender signs
// its own transactions, and a wrong or missing signature is refused.
func testSigning(t *testing.T, f Factory) {
	e := newEnv(t, f)
	dev := e.dev[0]
	addr, key := e.funded("signer", 1_000_000)
	other := chain.KeyFromSeed("chaintest/other")

	h := e.send(deploy(dev, 0, baseFee, "sig-dev")) // unsigned, dev sender
	signed := deploy(addr, 0, baseFee, "sig-own")
	signed.Sign(key)
	hs := e.send(signed)

	cases := []struct {
		name string
		tx   func() chain.Tx
	}{
		{"unsigned non-dev", func() chain.Tx { return deploy(addr, 1, baseFee, "sig-x") }},
		{"signed by another key", func() chain.Tx {
			tx := deploy(addr, 1, baseFee, "sig-x")
			tx.Sign(other)
			return tx
		}},
		{"tampered after signing", func() chain.Tx {
			tx := deploy(addr, 1, baseFee, "sig-x")
			tx.Sign(key)
			tx.Fee *= 2
			return tx
		}},
		{"dev sender signed by another key", func() chain.Tx {
			tx := deploy(dev, 1, baseFee, "sig-x")
			tx.Sign(other)
			return tx
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tx := c.tx()
			if _, err := e.c().SendTx(e.ctx, tx); !errors.Is(err, chain.ErrBadSignature) {
				t.Fatalf("SendTx = %v, want ErrBadSignature", err)
			}
		})
	}
	blk := e.mine()
	if got := txHashes(blk); len(got) != 2 {
		t.Fatalf("block holds %d txs, want the 2 good ones", len(got))
	}
	e.wantIncluded(h, true, "")
	e.wantIncluded(hs, true, "")
	for _, bt := range blk.Txs {
		if err := bt.Tx.VerifySignature(); err != nil {
			t.Fatalf("included tx from %s carries no valid signature: %v", short(bt.From), err)
		}
	}
	if ac := e.account(addr); ac.Nonce != 1 || ac.Balance != 1_000_000-baseFee {
		t.Fatalf("signer after inclusion: %+v", ac)
	}
}

// testFaucet: in dev mode the faucet credits any address within limits; out
// of dev mode there is no faucet, no dev accounts and no signing for them.
func testFaucet(t *testing.T, f Factory) {
	e := newEnv(t, f)
	a := chain.KeyAddress(chain.KeyFromSeed("chaintest/faucet"))
	for i, want := range []uint64{5000, 10000} {
		ac, err := e.c().Faucet(e.ctx, a, 5000)
		if err != nil || ac.Balance != want || ac.Address != a {
			t.Fatalf("Faucet #%d = %+v, %v; want balance %d", i+1, ac, err, want)
		}
	}
	if ac := e.account(a); ac.Balance != 10000 || ac.Nonce != 0 {
		t.Fatalf("Account after faucet = %+v", ac)
	}
	for _, c := range []struct {
		name   string
		addr   chain.Address
		amount uint64
	}{
		{"zero", a, 0},
		{"over the max", a, devBalance + 1},
		{"bad address", "xyz", 10},
	} {
		if _, err := e.c().Faucet(e.ctx, c.addr, c.amount); !errors.Is(err, chain.ErrInvalidTx) {
			t.Fatalf("Faucet %s = %v, want ErrInvalidTx", c.name, err)
		}
	}
	if ac := e.account(a); ac.Balance != 10000 {
		t.Fatalf("refused faucet calls changed the balance: %+v", ac)
	}

	prod := newEnv(t, f, func(c *devchain.Config) { c.NoDevMode = true })
	if _, err := prod.c().Faucet(prod.ctx, a, 10); !errors.Is(err, chain.ErrNotDevMode) {
		t.Fatalf("Faucet out of dev mode = %v, want ErrNotDevMode", err)
	}
	if _, err := prod.c().DevAccounts(prod.ctx); !errors.Is(err, chain.ErrNotDevMode) {
		t.Fatalf("DevAccounts out of dev mode = %v, want ErrNotDevMode", err)
	}
	// The same seed's dev account gets no signing out of dev mode.
	if _, err := prod.c().SendTx(prod.ctx, deploy(e.dev[0], 0, baseFee, "nodev")); !errors.Is(err, chain.ErrBadSignature) {
		t.Fatalf("unsigned tx out of dev mode = %v, want ErrBadSignature", err)
	}
}
