package devchain_test

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/testkit"
)

// corePropSeedEnv replays one run of TestRandomProperty: set it to the seed
// the failing run logged.
const corePropSeedEnv = "DEVCHAIN_PROP_SEED"

// TestRandomProperty submits random transactions (dev and self-signed
// senders, nonces ahead, behind and replaced, random fees) under random
// faults, mines, and checks the chain's invariants on everything it made.
func TestRandomProperty(t *testing.T) {
	seeds := []uint64{uint64(time.Now().UnixNano())}
	seeds = append(seeds, seeds[0]+1, seeds[0]+2)
	if s := os.Getenv(corePropSeedEnv); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: %v", corePropSeedEnv, s, err)
		}
		seeds = []uint64{v}
	}
	steps := 150
	if !testkit.Long() {
		steps = 40
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Logf("seed %d (replay: %s=%d go test -run 'TestRandomProperty' ./internal/chain/devchain)", seed, corePropSeedEnv, seed)
			corePropRun(t, seed, steps)
		})
	}
}

type propAcct struct {
	addr  chain.Address
	key   ed25519.PrivateKey // nil: a dev account, the chain signs
	start uint64
	added uint64 // faucet credits
}

type propTx struct {
	hash  chain.Hash
	from  chain.Address
	nonce uint64
}

type propRun struct {
	t        *testing.T
	ctx      context.Context
	rng      *rand.Rand
	clk      *clock.Virtual
	cfg      devchain.Config
	c        *devchain.Chain
	accts    []*propAcct
	accepted []propTx
	lastFee  map[string]uint64 // "addr/nonce" → fee of the last accepted tx there
	memo     int
	refused  map[string]int // refusals by error code
}

func corePropRun(t *testing.T, seed uint64, steps int) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, seed^0x5bd1e995))
	clk := clock.NewVirtual(clock.Epoch)
	cfg := devchain.Config{
		Seed:        seed,
		MinFee:      1000,
		MaxBlockTxs: 1 + rng.IntN(6),
		DevAccounts: 3,
		DevBalance:  1e12,
		DataDir:     t.TempDir(),
		Clock:       clk,
	}
	p := &propRun{t: t, ctx: ctx, rng: rng, clk: clk, cfg: cfg, c: coreNew(t, cfg), lastFee: map[string]uint64{}, refused: map[string]int{}}
	t.Logf("maxBlockTxs %d", cfg.MaxBlockTxs)
	for _, a := range coreDevs(t, p.c) {
		p.accts = append(p.accts, &propAcct{addr: a, start: cfg.DevBalance})
	}
	for i := range 3 {
		key := chain.KeyFromSeed(fmt.Sprintf("prop/%d/%d", seed, i))
		a := &propAcct{addr: chain.KeyAddress(key), key: key}
		p.accts = append(p.accts, a)
		p.faucet(a, uint64(20_000+rng.IntN(80_000)))
	}
	// Shared zkApps that many transactions contend for.
	for i := range 3 {
		h := coreSend(t, p.c, coreDeploy(p.accts[0].addr, uint64(i), 1000, fmt.Sprintf("shared-%d", i)))
		p.accepted = append(p.accepted, propTx{hash: h, from: p.accts[0].addr, nonce: uint64(i)})
		p.lastFee[fmt.Sprintf("%s/%d", p.accts[0].addr, i)] = 1000
	}
	p.mine()

	for step := range steps {
		p.clk.Advance(time.Duration(200+rng.IntN(1800)) * time.Millisecond)
		if rng.IntN(7) == 0 {
			p.randomFaults()
		}
		if rng.IntN(10) == 0 {
			p.faucet(p.accts[rng.IntN(len(p.accts))], uint64(1_000+rng.IntN(20_000)))
		}
		for range rng.IntN(7) {
			p.randomSend()
		}
		p.mine()
		if step%25 == 24 {
			p.check()
		}
	}
	// Calm down and drain what can be drained, then check and restart.
	zero := 0.0
	if _, err := p.c.SetFaults(ctx, devchain.FaultUpdate{RejectProb: &zero, DropProb: &zero, RevertProb: &zero, ReorgEvery: corePtr(uint64(0))}); err != nil {
		t.Fatal(err)
	}
	for range 10 {
		p.clk.Advance(5 * time.Second)
		p.mine()
	}
	p.check()
	fs, _ := p.c.Faults(ctx)
	p.checkRestart()
	var txs, failed int
	bs := p.allBlocks()
	for _, b := range bs {
		txs += len(b.Txs)
		for _, tx := range b.Txs {
			if tx.Status == chain.OutcomeFailed {
				failed++
			}
		}
	}
	t.Logf("%d blocks, %d txs included (%d failed), %d accepted, refused %v, %d reorgs before the restart",
		len(bs), txs, failed, len(p.accepted), p.refused, fs.Reorgs)
}

func (p *propRun) faucet(a *propAcct, amount uint64) {
	p.t.Helper()
	if _, err := p.c.Faucet(p.ctx, a.addr, amount); err != nil {
		p.t.Fatalf("Faucet: %v", err)
	}
	a.added += amount
}

func (p *propRun) randomFaults() {
	rng := p.rng
	probs := []float64{0, 0, 0.2, 0.5}
	var u devchain.FaultUpdate
	switch rng.IntN(6) {
	case 0:
		u.RejectProb, u.DropProb, u.RevertProb = corePtr(probs[rng.IntN(4)]), corePtr(probs[rng.IntN(4)]), corePtr(probs[rng.IntN(4)])
	case 1:
		u.Reorg = corePtr(uint64(1 + rng.IntN(3)))
	case 2:
		u.FeeSpike = &devchain.FeeSpike{Factor: uint64(2 + rng.IntN(3)), Blocks: uint64(1 + rng.IntN(3))}
	case 3:
		u.Stall = corePtr(devchain.Duration(time.Duration(rng.IntN(4000)) * time.Millisecond))
	case 4:
		u.ReorgEvery, u.ReorgDepth = corePtr([]uint64{0, 0, 3, 5}[rng.IntN(4)]), corePtr(uint64(1+rng.IntN(2)))
	case 5:
		z := 0.0
		u.RejectProb, u.DropProb, u.RevertProb = &z, &z, &z
	}
	if _, err := p.c.SetFaults(p.ctx, u); err != nil {
		p.t.Fatalf("SetFaults(%s): %v", coreJSON(p.t, u), err)
	}
}

// randomSend submits one random transaction and checks that the chain's
// answer is one the rules allow.
func (p *propRun) randomSend() {
	t, rng := p.t, p.rng
	a := p.accts[rng.IntN(len(p.accts))]
	ac, err := p.c.Account(p.ctx, a.addr)
	if err != nil {
		t.Fatal(err)
	}
	nonce := ac.PendingNonce
	switch r := rng.IntN(10); {
	case r == 0:
		nonce += 1 + uint64(rng.IntN(3)) // a gap
	case r == 1 && ac.Nonce > 0:
		nonce = ac.Nonce - 1 - uint64(rng.IntN(int(min(ac.Nonce, 3)))) // behind
	case r <= 3 && ac.PendingNonce > ac.Nonce:
		nonce = ac.Nonce + uint64(rng.IntN(int(ac.PendingNonce-ac.Nonce))) // a replacement
	}
	key := fmt.Sprintf("%s/%d", a.addr, nonce)
	fee := uint64(1000 + 250*rng.IntN(12))
	if old, ok := p.lastFee[key]; ok && rng.IntN(2) == 0 {
		fee = old * uint64(10+rng.IntN(3)) / 10 // 100%, 110% or 120% of the last
	}
	p.memo++
	var tx chain.Tx
	switch rng.IntN(3) {
	case 0:
		tx = coreDeploy(a.addr, nonce, fee, fmt.Sprintf("p-%d", p.memo))
	default:
		tx = chain.Tx{From: a.addr, Nonce: nonce, Fee: fee, Contract: "zkapp", Method: "inc",
			Args: []byte(fmt.Sprintf(`{"zkapp":"shared-%d","key":"n","by":1}`, rng.IntN(3)))}
	}
	tx.Memo = fmt.Sprintf("m%d", p.memo) // every hash unique
	if a.key != nil {
		tx.Sign(a.key)
	}
	fs, _ := p.c.Faults(p.ctx)
	h, err := p.c.SendTx(p.ctx, tx)
	if err != nil {
		p.refused[chain.CodeOf(err)]++
	}
	switch {
	case err == nil:
		if nonce < ac.Nonce {
			t.Fatalf("nonce %d behind the account's %d accepted", nonce, ac.Nonce)
		}
		p.accepted = append(p.accepted, propTx{hash: h, from: a.addr, nonce: nonce})
		p.lastFee[key] = fee
	case errors.Is(err, chain.ErrRejected):
		if fs.RejectProb == 0 {
			t.Fatalf("ErrRejected with rejectProb 0")
		}
	case errors.Is(err, chain.ErrNonceTooLow):
		if nonce >= ac.Nonce {
			t.Fatalf("ErrNonceTooLow for nonce %d, account at %d", nonce, ac.Nonce)
		}
	case errors.Is(err, chain.ErrReplacementUnderpriced):
		if old, ok := p.lastFee[key]; !ok || fee*10 >= old*11 {
			t.Fatalf("ErrReplacementUnderpriced for fee %d over %d (known %v)", fee, old, ok)
		}
	case errors.Is(err, chain.ErrInsufficientFunds):
		if ac.Balance >= fee {
			t.Fatalf("ErrInsufficientFunds with balance %d for fee %d", ac.Balance, fee)
		}
	default:
		t.Fatalf("SendTx(nonce %d, account %+v): unexpected %v", nonce, ac, err)
	}
	if err != nil && nonce < ac.Nonce && !errors.Is(err, chain.ErrNonceTooLow) && !errors.Is(err, chain.ErrRejected) {
		t.Fatalf("nonce behind refused with %v, want ErrNonceTooLow", err)
	}
}

func (p *propRun) mine() {
	p.t.Helper()
	hdr, ok, err := p.c.Mine(p.ctx)
	if err != nil {
		p.t.Fatalf("Mine: %v", err)
	}
	fs, _ := p.c.Faults(p.ctx)
	stalled := p.clk.Now().Before(fs.StallUntil)
	if ok == stalled {
		p.t.Fatalf("Mine ok=%v at %v with a stall until %v", ok, p.clk.Now(), fs.StallUntil)
	}
	if ok && (!hdr.Time.Equal(p.clk.Now()) || len(hdr.Hash) == 0) {
		p.t.Fatalf("mined %+v at %v", hdr, p.clk.Now())
	}
}

func (p *propRun) allBlocks() []chain.Block {
	p.t.Helper()
	hd := coreHead(p.t, p.c).Height
	var bs []chain.Block
	for from := uint64(0); from <= hd; from += 1000 {
		page, err := p.c.Blocks(p.ctx, from, min(from+999, hd))
		if err != nil {
			p.t.Fatalf("Blocks: %v", err)
		}
		bs = append(bs, page...)
	}
	if uint64(len(bs)) != hd+1 {
		p.t.Fatalf("%d blocks for head %d", len(bs), hd)
	}
	return bs
}

// check verifies the invariants over the whole chain.
func (p *propRun) check() {
	t := p.t
	t.Helper()
	bs := p.allBlocks()
	next := map[chain.Address]uint64{}
	fees := map[chain.Address]uint64{}
	where := map[chain.Hash][2]uint64{}
	for i, b := range bs {
		if i > 0 && (b.Height != uint64(i) || b.Parent != bs[i-1].Hash) {
			t.Fatalf("block %d (height %d) does not follow block %d", i, b.Height, i-1)
		}
		if len(b.Txs) > p.cfg.MaxBlockTxs || b.TxCount != len(b.Txs) {
			t.Fatalf("block %d has %d txs (txCount %d), cap %d", b.Height, len(b.Txs), b.TxCount, p.cfg.MaxBlockTxs)
		}
		prev := make([]int, len(b.Txs)) // index of the sender's previous tx in this block, or -1
		last := map[chain.Address]int{}
		for j, tx := range b.Txs {
			if tx.Index != j || tx.Hash != tx.Tx.Hash() || tx.Tx.VerifySignature() != nil {
				t.Fatalf("block %d tx %d: bad index, hash or signature", b.Height, j)
			}
			if tx.Fee < b.MinFee {
				t.Fatalf("block %d tx %d pays %d under the block's minimum %d", b.Height, j, tx.Fee, b.MinFee)
			}
			if tx.Nonce != next[tx.From] {
				t.Fatalf("block %d tx %d: sender %s nonce %d, want %d (contiguous, once each)", b.Height, j, tx.From[:8], tx.Nonce, next[tx.From])
			}
			if (tx.Status == chain.OutcomeSucceeded) != (tx.Reason == "") || (tx.Status != chain.OutcomeSucceeded && tx.Status != chain.OutcomeFailed) {
				t.Fatalf("block %d tx %d: status %q reason %q", b.Height, j, tx.Status, tx.Reason)
			}
			if _, dup := where[tx.Hash]; dup {
				t.Fatalf("tx %s included twice", tx.Hash[:8])
			}
			where[tx.Hash] = [2]uint64{b.Height, uint64(j)}
			next[tx.From]++
			fees[tx.From] += tx.Fee
			prev[j] = -1
			if k, ok := last[tx.From]; ok {
				prev[j] = k
			}
			last[tx.From] = j
		}
		// Fee order among ready transactions: when tx i was picked, every later
		// tx j whose predecessor was already in (or that had none) competed.
		for i := range b.Txs {
			for j := i + 1; j < len(b.Txs); j++ {
				if prev[j] < i && b.Txs[j].Fee > b.Txs[i].Fee {
					t.Fatalf("block %d: tx %d (fee %d) before ready tx %d (fee %d)", b.Height, i, b.Txs[i].Fee, j, b.Txs[j].Fee)
				}
			}
		}
	}
	for _, a := range p.accts {
		ac, err := p.c.Account(p.ctx, a.addr)
		if err != nil {
			t.Fatal(err)
		}
		if ac.Nonce != next[a.addr] {
			t.Fatalf("account %s nonce %d, %d txs included", a.addr[:8], ac.Nonce, next[a.addr])
		}
		if want := a.start + a.added - fees[a.addr]; ac.Balance != want {
			t.Fatalf("account %s balance %d, want %d = %d + %d faucet - %d fees", a.addr[:8], ac.Balance, want, a.start, a.added, fees[a.addr])
		}
	}
	for _, tx := range p.accepted {
		st, err := p.c.TxStatus(p.ctx, tx.hash)
		if err != nil {
			t.Fatal(err)
		}
		w, in := where[tx.hash]
		switch {
		case in && (st.State != chain.TxIncluded || st.Height != w[0] || uint64(st.Index) != w[1]):
			t.Fatalf("tx %s is in block %d index %d but its status is %+v", tx.hash[:8], w[0], w[1], st)
		case !in && st.State == chain.TxIncluded:
			t.Fatalf("tx %s reported included (%+v) but is in no block", tx.hash[:8], st)
		}
	}
}

// checkRestart reopens the chain from its data directory and compares.
func (p *propRun) checkRestart() {
	t := p.t
	before := coreJSON(t, p.allBlocks())
	accts := map[chain.Address]chain.Account{}
	for _, a := range p.accts {
		ac, _ := p.c.Account(p.ctx, a.addr)
		ac.PendingNonce = ac.Nonce // the mempool does not survive
		accts[a.addr] = ac
	}
	evs, _ := p.c.Events(p.ctx, 0, 1000)
	if err := p.c.Close(); err != nil {
		t.Fatal(err)
	}
	p.c = coreNew(t, p.cfg)
	if got := coreJSON(t, p.allBlocks()); got != before {
		t.Fatalf("blocks differ after restart")
	}
	for _, a := range p.accts {
		if ac, _ := p.c.Account(p.ctx, a.addr); ac != accts[a.addr] {
			t.Fatalf("account after restart %+v, want %+v", ac, accts[a.addr])
		}
	}
	if got, _ := p.c.Events(p.ctx, 0, 1000); coreJSON(t, got) != coreJSON(t, evs) {
		t.Fatalf("events differ after restart")
	}
}

func coreJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return string(b)
}
