package evm_test

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/evm"
)

const createC1 = `{"account":"c1","title":"first"}`

// TestIntentApplied sends an intent through the router, sees it included
// and succeeded, reads its effect by Call and decodes it back by Blocks.
func TestIntentApplied(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	tx := h.tx(h.node1, "tx_a", "voting", "create_claim_voting_account", createC1)
	st := h.mined(tx, h.node1)
	if st.State != chain.TxIncluded || !st.Success || st.Reason != "" {
		t.Fatalf("status %+v, want included and succeeded", st)
	}
	out, err := h.b.Call(h.ctx, "voting", "claim", json.RawMessage(`{"account":"c1"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"creator":"` + string(addr(h.node1)) + `","no":"0","title":"first","yes":"0"}`
	if string(out) != want {
		t.Errorf("claim c1 = %s, want %s (the target saw the submitter)", out, want)
	}
	if _, err := h.b.Call(h.ctx, "voting", "claim", json.RawMessage(`{"account":"nope"}`)); !errors.Is(err, chain.ErrNotFound) {
		t.Errorf("claim of a missing account: %v, want ErrNotFound", err)
	}
	// votes_by: one output, an integer as a decimal string
	out, err = h.b.Call(h.ctx, "voting", "votes_by", json.RawMessage(`{"sender":"`+string(addr(h.node1))+`"}`))
	if err != nil || string(out) != `"0"` {
		t.Errorf("votes_by = %s, %v; want \"0\"", out, err)
	}

	bs, err := h.b.Blocks(h.ctx, st.Height, st.Height)
	if err != nil || len(bs) != 1 || len(bs[0].Txs) != 1 {
		t.Fatalf("Blocks(%d) = %+v, %v", st.Height, bs, err)
	}
	got := bs[0].Txs[0]
	if got.Memo != "tx_a" || got.Contract != "voting" || got.Method != "create_claim_voting_account" ||
		string(got.Args) != createC1 || got.From != addr(h.node1) || got.Status != chain.OutcomeSucceeded || got.Hash != st.Hash {
		t.Errorf("block tx = %+v, want the intent decoded back", got)
	}
	// The block's transaction, as decoded, signs and sends as the same one.
	re := got.Tx
	if _, err := h.b.SendTx(h.ctx, re); !errors.Is(err, chain.ErrNonceTooLow) {
		t.Errorf("resending the decoded transaction: %v, want ErrNonceTooLow (the same transaction, its nonce used)", err)
	}
}

// TestIntentOutcomes: a duplicate is duplicate_intent, the same memo with
// other calls intent_conflict, a multi-call whose 2nd call reverts fails
// naming call 1 and rolls the 1st back.
func TestIntentOutcomes(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	if st := h.mined(h.tx(h.node1, "tx_a", "voting", "create_claim_voting_account", createC1), h.node1); !st.Success {
		t.Fatalf("first: %+v", st)
	}
	// another node, the same intent
	if st := h.mined(h.tx(h.node2, "tx_a", "voting", "create_claim_voting_account", createC1), h.node2); st.Success || st.Reason != chain.ReasonDuplicateIntent {
		t.Errorf("duplicate: %+v, want failed %s", st, chain.ReasonDuplicateIntent)
	}
	if st := h.mined(h.tx(h.node1, "tx_a", "voting", "create_claim_voting_account", `{"account":"c9","title":"x"}`), h.node1); st.Success || st.Reason != evm.ReasonIntentConflict {
		t.Errorf("conflict: %+v, want failed %s", st, evm.ReasonIntentConflict)
	}
	if _, err := h.b.Call(h.ctx, "voting", "claim", json.RawMessage(`{"account":"c9"}`)); !errors.Is(err, chain.ErrNotFound) {
		t.Errorf("the conflicting intent's call ran: %v", err)
	}
	multi := `{"calls":[{"contract":"voting","method":"create_claim_voting_account","args":{"account":"c2","title":"t"}},` +
		`{"contract":"voting","method":"send_claim_vote","args":{"account":"missing","voter":"v","vote":true}}]}`
	st := h.mined(h.tx(h.node1, "tx_b", evm.MultiCallContract, evm.MultiCallMethod, multi), h.node1)
	if want := `call 1 (voting.send_claim_vote): NotFound("missing")`; st.State != chain.TxIncluded || st.Success || st.Reason != want {
		t.Errorf("failing multi-call: %+v, want failed %q", st, want)
	}
	if _, err := h.b.Call(h.ctx, "voting", "claim", json.RawMessage(`{"account":"c2"}`)); !errors.Is(err, chain.ErrNotFound) {
		t.Errorf("call 0 of the failed multi-call was not rolled back: %v", err)
	}
	// A multi-call that succeeds, decoded back as multicall.all.
	ok := `{"calls":[{"args":{"account":"c3","title":"t"},"contract":"voting","method":"create_claim_voting_account"},` +
		`{"args":{"account":"c3","vote":true,"voter":"v"},"contract":"voting","method":"send_claim_vote"}]}`
	st = h.mined(h.tx(h.node1, "tx_c", evm.MultiCallContract, evm.MultiCallMethod, ok), h.node1)
	if !st.Success {
		t.Fatalf("multi-call: %+v", st)
	}
	bs, err := h.b.Blocks(h.ctx, st.Height, st.Height)
	if err != nil || len(bs) != 1 {
		t.Fatal(err)
	}
	if got := bs[0].Txs[0]; got.Contract != evm.MultiCallContract || got.Method != evm.MultiCallMethod || string(got.Args) != ok {
		t.Errorf("multi-call decoded as %s.%s %s, want %s", got.Contract, got.Method, got.Args, ok)
	}
	// A stranger's router call reverts (NotSubmitter): the estimate says so.
	stranger := h.tx(h.faucet, "tx_d", "voting", "create_claim_voting_account", createC1)
	if _, err := h.b.EstimateGas(h.ctx, stranger); !errors.Is(err, chain.ErrCallFailed) || !strings.Contains(err.Error(), "NotSubmitter") {
		t.Errorf("a stranger's intent: %v, want ErrCallFailed naming NotSubmitter", err)
	}
}

// TestEstimateGas: an intent is estimated on the strict path with the
// margin; a failing intent is estimated on execute and lands failed.
func TestEstimateGas(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	tx := h.tx(h.node1, "tx_a", "voting", "create_claim_voting_account", createC1)
	g, err := h.b.EstimateGas(h.ctx, tx)
	if err != nil {
		t.Fatal(err)
	}
	st := h.mined(tx, h.node1)
	r, err := h.sim.Client().TransactionReceipt(h.ctx, common.HexToHash(string(st.Hash)))
	if err != nil {
		t.Fatal(err)
	}
	// 130%: the limit is 1.3× the strict estimate, which is at least
	// what the transaction used.
	if g*100 < r.GasUsed*125 || g*100 > r.GasUsed*150 {
		t.Errorf("gas limit %d for %d used: want about 130%%", g, r.GasUsed)
	}
	fail := h.tx(h.node1, "tx_b", "voting", "send_claim_vote", `{"account":"missing","voter":"v","vote":false}`)
	if _, err := h.b.EstimateGas(h.ctx, fail); err != nil {
		t.Fatalf("a failing intent must still be estimated (on execute): %v", err)
	}
	if st := h.mined(fail, h.node1); st.Success || !strings.HasPrefix(st.Reason, "call 0 (voting.send_claim_vote): NotFound") {
		t.Errorf("failing intent: %+v", st)
	}
}

// TestReplacementAndNonces: a replacement with both caps +10% is
// accepted, +5% refused; a used nonce is nonce_too_low; the same
// transaction twice is accepted; the replaced hash reads dropped.
func TestReplacementAndNonces(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	tx := h.tx(h.node1, "tx_a", "voting", "create_claim_voting_account", createC1)
	first := h.send(tx, h.node1)
	if again, err := h.b.SendTx(h.ctx, signed(t, h, tx)); err != nil || again != first {
		t.Errorf("the same transaction again: %s, %v; want %s accepted (already known)", again, err, first)
	}
	if st := h.status(first); st.State != chain.TxPending {
		t.Errorf("before a block: %+v, want pending", st)
	}
	gas := signed(t, h, tx).Gas
	bump := func(pct uint64) chain.Tx {
		r := tx
		r.Gas, r.Fee = gas, tx.Fee*(100+pct)/100
		return r
	}
	if _, err := h.b.SendTx(h.ctx, signed(t, h, bump(5))); !errors.Is(err, chain.ErrReplacementUnderpriced) {
		t.Errorf("+5%%: %v, want ErrReplacementUnderpriced", err)
	}
	rep := signed(t, h, bump(10))
	second, err := h.b.SendTx(h.ctx, rep)
	if err != nil {
		t.Fatalf("+10%%: %v", err)
	}
	h.mine()
	if st := h.status(second); st.State != chain.TxIncluded || !st.Success {
		t.Errorf("replacement: %+v", st)
	}
	if st := h.status(first); st.State != chain.TxDropped {
		t.Errorf("replaced: %+v, want dropped", st)
	}
	if _, err := h.b.SendTx(h.ctx, signed(t, h, bump(50))); !errors.Is(err, chain.ErrNonceTooLow) {
		t.Errorf("at a used nonce: %v, want ErrNonceTooLow", err)
	}
	// A signature by another key is refused before sending.
	forged := tx
	forged.Gas = gas
	if _, err := h.b.Signer().Sign(&forged, h.node2); err != nil {
		t.Fatal(err)
	}
	if _, err := h.b.SendTx(h.ctx, forged); !errors.Is(err, chain.ErrBadSignature) {
		t.Errorf("signed by another key: %v, want ErrBadSignature", err)
	}
}

// signed returns tx signed by the harness's node1 (gas filled).
func signed(t *testing.T, h *harness, tx chain.Tx) chain.Tx {
	t.Helper()
	h.sign(&tx, h.node1)
	return tx
}

// TestAccountHeadIdentity: balances above uint64 saturate with the exact
// value beside; the head carries the fee floor and the reorg depth.
func TestAccountHeadIdentity(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	a, err := h.b.Account(h.ctx, addr(h.node1))
	if err != nil {
		t.Fatal(err)
	}
	if a.Balance != math.MaxUint64 || a.BalanceExact != "1000000000000000000000" || a.Nonce != 0 || a.PendingNonce != 0 {
		t.Errorf("account %+v, want balance saturated with BalanceExact 1000 ether", a)
	}
	if _, err := h.b.Account(h.ctx, "0xABC"); !errors.Is(err, chain.ErrInvalidTx) {
		t.Errorf("a malformed address: %v", err)
	}
	hd, err := h.b.Head(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	hdr, err := h.sim.Client().HeaderByNumber(h.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if hd.Height != hdr.Number.Uint64() || hd.Hash != chain.Hash(strings.ToLower(hdr.Hash().Hex())) || hd.ReorgDepth != 2 || hd.TxCount != 1 {
		t.Errorf("head %+v, want height %d hash %s depth 2 txCount 1", hd, hdr.Number, hdr.Hash().Hex())
	}
	if min := 2 * hdr.BaseFee.Uint64(); hd.MinFee <= min {
		t.Errorf("minFee %d, want above 2×base fee %d", hd.MinFee, min)
	}
	id, err := h.b.Identity(h.ctx)
	if err != nil || id.ChainID != "1337" || !strings.HasPrefix(string(id.Genesis), "0x") || len(id.Genesis) != 66 {
		t.Errorf("identity %+v, %v", id, err)
	}
	// Finality by the chain's tag: the simulated chain finalizes every
	// 32nd block, so below 32 the reorg depth is the head's height.
	fin, err := evm.NewWithClients(h.ctx, evm.Config{Finalized: true}, h.sim.Client())
	if err != nil {
		t.Fatal(err)
	}
	if fh, err := fin.Head(h.ctx); err != nil || fh.ReorgDepth != fh.Height || fh.Height == 0 {
		t.Errorf("finalized head %+v, %v: want reorg depth = height", fh, err)
	}
	// The chain id is checked at first contact.
	if _, err := evm.NewWithClients(h.ctx, evm.Config{ChainID: 1}, h.sim.Client()); err == nil || !strings.Contains(err.Error(), "1337") {
		t.Errorf("a wrong chain id: %v", err)
	}
}

// TestFaucet transfers to a new account and waits for the block.
func TestFaucet(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	to := addr(testKey(t, "fresh"))
	done := make(chan error, 1)
	var got chain.Account
	go func() {
		var err error
		got, err = h.b.Faucet(h.ctx, to, 5*gwei)
		done <- err
	}()
	h.waitPending(addr(h.faucet), 1)
	h.sim.Commit()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got.Balance != 5*gwei || got.BalanceExact != "5000000000" {
		t.Errorf("after the faucet: %+v", got)
	}
	b, err := evm.NewWithClients(h.ctx, evm.Config{}, h.sim.Client())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Faucet(h.ctx, to, 1); !errors.Is(err, chain.ErrNotDevMode) {
		t.Errorf("no faucet key: %v, want ErrNotDevMode", err)
	}
}

// TestReorg forks the chain under an included intent: it is re-included,
// and Events never return a removed log or one above the final height.
func TestReorg(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	tx := h.tx(h.node1, "tx_a", "voting", "create_claim_voting_account", createC1)
	parent, err := h.sim.Client().HeaderByNumber(h.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := h.mined(tx, h.node1)
	if !st.Success {
		t.Fatalf("%+v", st)
	}
	if evs, err := h.b.Events(h.ctx, 0, 100); err != nil || hasEvent(evs, "IntentApplied") {
		t.Errorf("events before the intent is final: %v, %+v", err, evs)
	}
	if err := h.sim.Fork(parent.Hash()); err != nil {
		t.Fatal(err)
	}
	h.commit(2) // the fork overtakes; the transaction returns to the pool and is re-included
	st2 := h.status(st.Hash)
	if st2.State != chain.TxIncluded || !st2.Success {
		t.Fatalf("after the reorg: %+v, want re-included", st2)
	}
	h.commit(3)
	evs, err := h.b.Events(h.ctx, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	head, _ := h.b.Head(h.ctx)
	n := 0
	var last uint64
	for _, e := range evs {
		if e.Cursor <= last || e.Height > head.Height-2 {
			t.Errorf("event %+v: cursor not increasing or not final (head %d)", e, head.Height)
		}
		last = e.Cursor
		if e.Name == "IntentApplied" {
			n++
			if e.Contract != evm.RouterName || e.TxHash != st.Hash || e.Height != st2.Height {
				t.Errorf("applied event %+v, want the router's at height %d", e, st2.Height)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d IntentApplied events, want 1: %+v", n, evs)
	}
	// after the last cursor: nothing more; paging by limit 1 gives the same
	if more, err := h.b.Events(h.ctx, last, 100); err != nil || len(more) != 0 {
		t.Errorf("after the last cursor: %+v, %v", more, err)
	}
	var paged []chain.Event
	for after := uint64(0); ; {
		p, err := h.b.Events(h.ctx, after, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(p) == 0 {
			break
		}
		paged = append(paged, p...)
		after = p[0].Cursor
	}
	if len(paged) != len(evs) {
		t.Errorf("paged %d events, all at once %d", len(paged), len(evs))
	}
	var created *chain.Event
	for i := range evs {
		if evs[i].Name == "ClaimVotingAccountCreated" {
			created = &evs[i]
		}
	}
	if created == nil || created.Contract != "voting" ||
		string(created.Data) != `{"account":"c1","creator":"`+string(addr(h.node1))+`","title":"first"}` {
		t.Errorf("the voting event: %+v", created)
	}
}

func hasEvent(evs []chain.Event, name string) bool {
	for _, e := range evs {
		if e.Name == name {
			return true
		}
	}
	return false
}

// TestSendErrorsReal provokes, on the simulated chain, each refusal the
// pool gives to a well-formed transaction, and checks what the table maps
// its real text to. (Already known, nonce too low and replacement
// underpriced are provoked in TestReplacementAndNonces.)
func TestSendErrorsReal(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	tx := h.tx(h.poor, "", "voting", "create_claim_voting_account", createC1)
	tx.Gas = 200_000
	if _, err := h.b.Signer().Sign(&tx, h.poor); err != nil {
		t.Fatal(err)
	}
	_, err := h.b.SendTx(h.ctx, tx)
	if !errors.Is(err, chain.ErrInsufficientFunds) || !strings.Contains(err.Error(), "insufficient funds for gas * price + value") {
		t.Errorf("an account without the funds: %v, want ErrInsufficientFunds with geth's text", err)
	}
}

// TestSubscribeHeads: a new block arrives as a head on the subscription.
func TestSubscribeHeads(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ch, err := h.b.SubscribeHeads(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	h.sim.Commit()
	want, err := h.sim.Client().HeaderByNumber(h.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case hd, ok := <-ch:
		if !ok || hd.Height != want.Number.Uint64() || hd.Hash != chain.Hash(strings.ToLower(want.Hash().Hex())) || hd.ReorgDepth != 2 {
			t.Errorf("head %+v (open %v), want height %d", hd, ok, want.Number)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no head within 10s")
	}
}

// TestDirectCallsAndNames: a transaction without a memo calls its
// contract directly (a revert is "reverted"); unknown contracts and
// methods are typed; a plain transfer decodes with its value.
func TestDirectCallsAndNames(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	fail := h.tx(h.node1, "", "voting", "send_claim_vote", `{"account":"missing","voter":"v","vote":true}`)
	if _, err := h.b.EstimateGas(h.ctx, fail); !errors.Is(err, chain.ErrCallFailed) || !strings.Contains(err.Error(), `NotFound("missing")`) {
		t.Errorf("estimating a direct call that reverts: %v", err)
	}
	fail.Gas = 100_000
	if st := h.mined(fail, h.node1); st.State != chain.TxIncluded || st.Success || st.Reason != evm.ReasonReverted {
		t.Errorf("a direct call that reverts: %+v, want failed %q", st, evm.ReasonReverted)
	}
	ok := h.tx(h.node1, "", "voting", "create_claim_voting_account", createC1)
	if st := h.mined(ok, h.node1); !st.Success {
		t.Errorf("a direct call: %+v", st)
	}
	for _, tc := range []struct {
		contract, method string
		want             error
	}{
		{"nope", "claim", chain.ErrUnknownContract},
		{"voting", "-", chain.ErrUnknownMethod},
		{"voting", "castVote", chain.ErrUnknownMethod},
		{"multicall", "all", chain.ErrUnknownContract},
	} {
		if _, err := h.b.Call(h.ctx, tc.contract, tc.method, nil); !errors.Is(err, tc.want) {
			t.Errorf("Call %s.%s: %v, want %v", tc.contract, tc.method, err, tc.want)
		}
	}
	for name, want := range map[string]bool{"voting": true, "router": true, "nope": false} {
		if got, err := chain.KnowsContract(h.ctx, h.b, name); err != nil || got != want {
			t.Errorf("KnowsContract(%s) = %v, %v; want %v", name, got, err, want)
		}
	}
	// The router by its registry name, and its exact ABI method name.
	if out, err := h.b.Call(h.ctx, "router", "isSubmitter", json.RawMessage(`{"submitter":"`+string(addr(h.node2))+`"}`)); err != nil || string(out) != "true" {
		t.Errorf("router.isSubmitter(node2) = %s, %v", out, err)
	}
	// A transfer (the faucet's) decodes as no contract, with its value.
	fresh := addr(testKey(t, "fresh"))
	faucetDone := make(chan error, 1)
	go func() { _, err := h.b.Faucet(h.ctx, fresh, 7); faucetDone <- err }()
	h.waitPending(addr(h.faucet), 1)
	h.sim.Commit()
	if err := <-faucetDone; err != nil {
		t.Fatal(err)
	}
	head, err := h.b.Head(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	bs, err := h.b.Blocks(h.ctx, head.Height, head.Height)
	if err != nil || len(bs) != 1 || len(bs[0].Txs) != 1 {
		t.Fatalf("Blocks: %+v, %v", bs, err)
	}
	want := `{"to":"` + string(fresh) + `","value":"7"}`
	if got := bs[0].Txs[0]; got.Contract != "" || got.Memo != "" || string(got.Args) != want || got.From != addr(h.faucet) || got.Status != chain.OutcomeSucceeded {
		t.Errorf("transfer decoded as %+v, want args %s", got, want)
	}
}
