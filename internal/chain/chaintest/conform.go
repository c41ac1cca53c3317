package chaintest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/testkit"
)

// This file is the conformance suite of what every chain behind the seam
// shares (issue 25): devchain and the EVM backend run it alike, through
// the seam (chain.Chain, its Signer and GasEstimator) and a few hooks. The
// devchain-only behaviours (fault knobs, fee accounting, the contracts'
// own rules, determinism, restart) stay in Run.

// ConformCall is one contract call of the conformance suite.
type ConformCall struct {
	Contract string
	Method   string
	Args     json.RawMessage
}

// Conformer is one chain under the conformance suite: the chain and what
// the suite needs that the seam does not say.
type Conformer struct {
	// Chain is the chain under test.
	Chain chain.Chain
	// Senders are two funded keys of the chain's scheme that have sent
	// nothing, both allowed to submit intents.
	Senders [2]chain.Key
	// Mine includes the mempool's transactions in a new block and returns
	// once the mempool has dropped what the block included.
	Mine func(t TB)
	// Reorg replaces the newest block by a fork whose new blocks include
	// its transactions again; nil when the chain cannot (the reorg test
	// is then skipped).
	Reorg func(t TB)
	// Create is a call that creates the entry name and emits the event
	// CreatedEvent.
	Create func(name string) ConformCall
	// CreatedEvent is the name of the event Create emits.
	CreatedEvent string
	// Fail is a call that always reverts.
	Fail func() ConformCall
	// Exists reads whether the entry name exists.
	Exists func(ctx context.Context, name string) (bool, error)
}

// ConformFactory builds a fresh chain under test; it closes what it opened
// with t.Cleanup.
type ConformFactory func(t *testing.T) *Conformer

// RunConformance runs the shared behaviours as subtests, each on a fresh
// chain from f: nonces, replacement, duplicate intent, atomic batch, reorg
// re-inclusion, final events.
func RunConformance(t *testing.T, f ConformFactory) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, *conformEnv)
	}{
		{"Nonces", conformNonces},
		{"Replacement", conformReplacement},
		{"DuplicateIntent", conformDuplicate},
		{"AtomicBatch", conformAtomic},
		{"ReorgReinclusion", conformReorg},
		{"FindNonce", conformFindNonce},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := f(t)
			tc.fn(t, &conformEnv{t: t, ctx: t.Context(), c: c, signer: chain.SignerOf(c.Chain)})
		})
	}
}

// conformEnv is one chain under the conformance suite with its helpers.
type conformEnv struct {
	t      *testing.T
	ctx    context.Context
	c      *Conformer
	signer chain.Signer
}

func (e *conformEnv) from(i int) chain.Address {
	e.t.Helper()
	a, err := e.signer.Address(e.c.Senders[i])
	if err != nil {
		e.t.Fatal(err)
	}
	return a
}

// tx is a transaction of call from sender i at nonce with the chain's
// fee floor and its gas limit filled.
func (e *conformEnv) tx(i int, nonce uint64, memo string, call ConformCall) chain.Tx {
	e.t.Helper()
	fee, err := e.c.Chain.MinFee(e.ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	tx := chain.Tx{From: e.from(i), Nonce: nonce, Fee: fee, Contract: call.Contract, Method: call.Method, Args: call.Args, Memo: memo}
	if err := chain.FillGas(e.ctx, e.c.Chain, &tx); err != nil {
		e.t.Fatal(err)
	}
	return tx
}

// send signs tx with sender i's key and sends it.
func (e *conformEnv) send(i int, tx chain.Tx) (chain.Hash, error) {
	e.t.Helper()
	if _, err := e.signer.Sign(&tx, e.c.Senders[i]); err != nil {
		e.t.Fatal(err)
	}
	return e.c.Chain.SendTx(e.ctx, tx)
}

func (e *conformEnv) mustSend(i int, tx chain.Tx) chain.Hash {
	e.t.Helper()
	h, err := e.send(i, tx)
	if err != nil {
		e.t.Fatalf("send: %v", err)
	}
	return h
}

func (e *conformEnv) status(h chain.Hash) chain.TxStatus {
	e.t.Helper()
	st, err := e.c.Chain.TxStatus(e.ctx, h)
	if err != nil {
		e.t.Fatal(err)
	}
	return st
}

func (e *conformEnv) account(i int) chain.Account {
	e.t.Helper()
	a, err := e.c.Chain.Account(e.ctx, e.from(i))
	if err != nil {
		e.t.Fatal(err)
	}
	return a
}

func (e *conformEnv) exists(name string) bool {
	e.t.Helper()
	ok, err := e.c.Exists(e.ctx, name)
	if err != nil {
		e.t.Fatal(err)
	}
	return ok
}

// conformNonces: the pending nonce counts the mempool, the nonce the
// blocks; a used nonce is refused.
func conformNonces(t *testing.T, e *conformEnv) {
	h0 := e.mustSend(0, e.tx(0, 0, "tx_n0", e.c.Create("n0")))
	e.mustSend(0, e.tx(0, 1, "tx_n1", e.c.Create("n1")))
	// A pool may promote an accepted transaction to pending a moment
	// later (go-ethereum's does so on its own goroutine): wait for it.
	testkit.WaitFor(t, 10*time.Second, 5*time.Millisecond, "the pending nonce at 2", func() bool { return e.account(0).PendingNonce >= 2 })
	if a := e.account(0); a.Nonce != 0 || a.PendingNonce != 2 {
		t.Errorf("before a block: nonce %d pending %d, want 0 and 2", a.Nonce, a.PendingNonce)
	}
	e.c.Mine(t)
	if a := e.account(0); a.Nonce != 2 || a.PendingNonce != 2 {
		t.Errorf("after a block: nonce %d pending %d, want 2 and 2", a.Nonce, a.PendingNonce)
	}
	if st := e.status(h0); st.State != chain.TxIncluded || !st.Success {
		t.Errorf("first: %+v", st)
	}
	if _, err := e.send(0, e.tx(0, 1, "tx_n2", e.c.Create("n2"))); !errors.Is(err, chain.ErrNonceTooLow) {
		t.Errorf("a used nonce: %v, want ErrNonceTooLow", err)
	}
}

// conformFindNonce: chain.FindNonce finds the transaction that took a
// sender's nonce, with its memo and hash, from the blocks the chain lists
// (what the sequencer reads to settle an attempt a remote worker never
// reported); a nonce not taken is not found.
func conformFindNonce(t *testing.T, e *conformEnv) {
	nr, ok := e.c.Chain.(chain.NonceReader)
	if !ok {
		t.Fatal("the chain does not list its blocks (chain.NonceReader)")
	}
	h0 := e.mustSend(0, e.tx(0, 0, "tx_f0", e.c.Create("f0")))
	e.c.Mine(t)
	h1 := e.mustSend(0, e.tx(0, 1, "tx_f1", e.c.Create("f1")))
	e.mustSend(1, e.tx(1, 0, "tx_g0", e.c.Create("g0")))
	e.c.Mine(t)
	for _, want := range []struct {
		nonce uint64
		hash  chain.Hash
		memo  string
	}{{0, h0, "tx_f0"}, {1, h1, "tx_f1"}} {
		tx, height, found, err := chain.FindNonce(e.ctx, nr, e.from(0), want.nonce, time.Time{}, 0)
		if err != nil || !found || tx.Hash != want.hash || tx.Memo != want.memo || tx.Status != chain.OutcomeSucceeded {
			t.Fatalf("nonce %d: %+v at %d, found %v, %v; want %s with memo %s", want.nonce, tx, height, found, err, want.hash, want.memo)
		}
		if st := e.status(want.hash); st.Height != height || st.Index != tx.Index {
			t.Errorf("nonce %d found at %d #%d, the status says %d #%d", want.nonce, height, tx.Index, st.Height, st.Index)
		}
	}
	if _, _, found, err := chain.FindNonce(e.ctx, nr, e.from(0), 2, time.Time{}, 0); err != nil || found {
		t.Errorf("a nonce not taken: found %v, %v", found, err)
	}
}

// conformReplacement: at a pending nonce, a fee 5% higher is refused and
// one 10% higher replaces; only the replacement is included.
func conformReplacement(t *testing.T, e *conformEnv) {
	tx := e.tx(0, 0, "tx_r", e.c.Create("r"))
	first := e.mustSend(0, tx)
	bump := func(pct uint64) chain.Tx {
		r := tx // the same gas limit: a replacement changes only the fee
		r.Fee = tx.Fee * (100 + pct) / 100
		return r
	}
	if _, err := e.send(0, bump(5)); !errors.Is(err, chain.ErrReplacementUnderpriced) {
		t.Errorf("+5%%: %v, want ErrReplacementUnderpriced", err)
	}
	second, err := e.send(0, bump(10))
	if err != nil {
		t.Fatalf("+10%%: %v", err)
	}
	e.c.Mine(t)
	if st := e.status(second); st.State != chain.TxIncluded || !st.Success {
		t.Errorf("replacement: %+v, want included", st)
	}
	if st := e.status(first); st.State == chain.TxIncluded || st.State == chain.TxPending {
		t.Errorf("replaced: %+v, want neither included nor pending", st)
	}
}

// conformDuplicate: a second transaction carrying an applied intent (its
// memo, the same calls), from another sender, is included and fails
// duplicate_intent; the intent is applied once.
func conformDuplicate(t *testing.T, e *conformEnv) {
	h1 := e.mustSend(0, e.tx(0, 0, "tx_dup", e.c.Create("d")))
	e.c.Mine(t)
	h2 := e.mustSend(1, e.tx(1, 0, "tx_dup", e.c.Create("d")))
	e.c.Mine(t)
	if st := e.status(h1); st.State != chain.TxIncluded || !st.Success {
		t.Errorf("first: %+v", st)
	}
	if st := e.status(h2); st.State != chain.TxIncluded || st.Success || st.Reason != chain.ReasonDuplicateIntent {
		t.Errorf("second: %+v, want included and failed %s", st, chain.ReasonDuplicateIntent)
	}
	if !e.exists("d") {
		t.Error("the intent's entry does not exist")
	}
}

// conformAtomic: a multi-call whose 2nd call fails applies none of its
// calls and names call 1 in its reason.
func conformAtomic(t *testing.T, e *conformEnv) {
	calls := []ConformCall{e.c.Create("a"), e.c.Fail()}
	var parts []string
	for _, c := range calls {
		parts = append(parts, fmt.Sprintf(`{"contract":%q,"method":%q,"args":%s}`, c.Contract, c.Method, c.Args))
	}
	h := e.mustSend(0, e.tx(0, 0, "tx_atomic", ConformCall{"multicall", "all", json.RawMessage(`{"calls":[` + strings.Join(parts, ",") + `]}`)}))
	e.c.Mine(t)
	st := e.status(h)
	if want := fmt.Sprintf("call 1 (%s.%s): ", calls[1].Contract, calls[1].Method); st.State != chain.TxIncluded || st.Success || !strings.HasPrefix(st.Reason, want) {
		t.Errorf("multi-call: %+v, want included and failed %q…", st, want)
	}
	if e.exists("a") {
		t.Error("call 0 of the failed multi-call was applied")
	}
}

// conformReorg: a reorg that removes an included intent's block includes
// it again; the events of final blocks show its event once, cursors
// increasing.
func conformReorg(t *testing.T, e *conformEnv) {
	if e.c.Reorg == nil {
		t.Skip("the chain cannot reorg on demand")
	}
	h := e.mustSend(0, e.tx(0, 0, "tx_reorg", e.c.Create("g")))
	e.c.Mine(t)
	before := e.status(h)
	if before.State != chain.TxIncluded || !before.Success {
		t.Fatalf("before the reorg: %+v", before)
	}
	e.c.Reorg(t)
	after := e.status(h)
	if after.State != chain.TxIncluded || !after.Success {
		t.Fatalf("after the reorg: %+v, want included again", after)
	}
	if !e.exists("g") {
		t.Error("the re-included intent's entry does not exist")
	}
	var head chain.BlockHeader
	for range 8 { // past the reorg depth: the block is final
		e.c.Mine(t)
		var err error
		if head, err = e.c.Chain.Head(e.ctx); err != nil {
			t.Fatal(err)
		}
		if head.Height > after.Height+head.ReorgDepth {
			break
		}
	}
	evs, err := e.c.Chain.Events(e.ctx, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	var last uint64
	for _, ev := range evs {
		if ev.Cursor <= last {
			t.Errorf("cursor %d after %d", ev.Cursor, last)
		}
		last = ev.Cursor
		if ev.Height+head.ReorgDepth >= head.Height { // not final: a consumer skips it
			continue
		}
		if ev.Name == e.c.CreatedEvent && ev.TxHash == h {
			n++
			if ev.Height != after.Height {
				t.Errorf("event at height %d, the transaction is at %d", ev.Height, after.Height)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d %s events of the re-included transaction, want 1: %+v", n, e.c.CreatedEvent, evs)
	}
}
