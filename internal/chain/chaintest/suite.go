package chaintest

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/clock"
)

// Run runs every devchain behaviour as a subtest against chains built by f.
func Run(t *testing.T, f Factory) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, Factory)
	}{
		{"HeadAccountMinFee", testSanity},
		{"Identity", testIdentity},
		{"MineOnDemandAndBlocks", testMineAndBlocks},
		{"FeeOrderingAndBlockCap", testFeeOrdering},
		{"Nonces", testNonces},
		{"FeeChargedOnInclusion", testFees},
		{"Replacement", testReplacement},
		{"DevAccountSigning", testSigning},
		{"Faucet", testFaucet},
		{"ZkApp", testZkApp},
		{"Events", testEvents},
		{"Library", testLibrary},
		{"Multicall", testMulticall},
		{"Registry", testRegistry},
		{"Workflow", testWorkflow},
		{"PrivacyGroup", testPrivacyGroup},
		{"Nodes", testNodes},
		{"Intents", testIntents},
		{"FaultReject", testFaultReject},
		{"FaultDrop", testFaultDrop},
		{"FaultRevert", testFaultRevert},
		{"FaultFeeSpike", testFaultFeeSpike},
		{"FaultStall", testFaultStall},
		{"FaultReorg", testFaultReorg},
		{"FaultPeriodicReorg", testFaultPeriodicReorg},
		{"FaultInvalidUpdates", testFaultInvalid},
		{"Determinism", testDeterminism},
		{"Restart", testRestart},
		{"SubscribeHeads", testSubscribeHeads},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, f) })
	}
}

const (
	baseFee    = 1000
	devBalance = 1_000_000_000
	// waitFor bounds every wait on a notification.
	waitFor = 10 * time.Second
)

// env is one chain under test with the suite's helpers.
type env struct {
	t   *testing.T
	ctx context.Context
	cfg devchain.Config
	clk *clock.Virtual
	h   *Harness
	dev []chain.Address // dev account addresses, in the chain's order
}

// newEnv builds the suite's config, applies mods and asks f for a chain.
func newEnv(t *testing.T, f Factory, mods ...func(*devchain.Config)) *env {
	t.Helper()
	clk := clock.NewVirtual(clock.Epoch)
	cfg := devchain.Config{
		Seed:        42,
		MinFee:      baseFee,
		MaxBlockTxs: 100,
		DevAccounts: 8,
		DevBalance:  devBalance,
		FaucetMax:   devBalance,
		DataDir:     t.TempDir(),
		Clock:       clk,
	}
	for _, m := range mods {
		m(&cfg)
	}
	h := f(t, cfg)
	if h == nil || h.Chain == nil || h.Advance == nil {
		t.Fatalf("factory returned no chain or no Advance")
	}
	e := &env{t: t, ctx: t.Context(), cfg: cfg, clk: clk, h: h}
	if !cfg.NoDevMode {
		devs, err := h.Chain.DevAccounts(e.ctx)
		if err != nil {
			t.Fatalf("DevAccounts: %v", err)
		}
		for _, d := range devs {
			e.dev = append(e.dev, d.Address)
		}
	}
	return e
}

func (e *env) c() DevChain { return e.h.Chain }

// restart restarts the chain, or skips the test when the factory cannot.
func (e *env) restart() {
	e.t.Helper()
	if e.h.Restart == nil {
		e.t.Skip("factory cannot restart")
	}
	n := e.h.Restart()
	if n == nil {
		e.t.Skip("factory cannot restart")
	}
	e.h.Chain = n
}

func zkTx(from chain.Address, nonce, fee uint64, method, args string) chain.Tx {
	return chain.Tx{From: from, Nonce: nonce, Fee: fee, Contract: "zkapp", Method: method, Args: json.RawMessage(args), Memo: suiteMemo(from, nonce)}
}

// suiteMemo is the memo of the suite's transactions: one per sender and
// nonce, so that no two of them are taken for one intent (the chain fails a
// second success with a memo as chain.ReasonDuplicateIntent).
func suiteMemo(from chain.Address, nonce uint64) string {
	return fmt.Sprintf("suite/%s/%d", from, nonce)
}

func deploy(from chain.Address, nonce, fee uint64, zk string) chain.Tx {
	return zkTx(from, nonce, fee, "deploy", fmt.Sprintf(`{"zkapp":%q}`, zk))
}

func set(from chain.Address, nonce, fee uint64, zk, key string, value any) chain.Tx {
	v, _ := json.Marshal(value)
	return zkTx(from, nonce, fee, "set", fmt.Sprintf(`{"zkapp":%q,"key":%q,"value":%s}`, zk, key, v))
}

func (e *env) send(tx chain.Tx) chain.Hash {
	e.t.Helper()
	h, err := e.c().SendTx(e.ctx, tx)
	if err != nil {
		e.t.Fatalf("SendTx(%s nonce %d fee %d %s %s): %v", short(tx.From), tx.Nonce, tx.Fee, tx.Method, tx.Args, err)
	}
	if h != tx.Hash() {
		e.t.Fatalf("SendTx returned hash %s, the transaction's hash is %s", h, tx.Hash())
	}
	return h
}

// sendErr submits tx and checks that it fails with want.
func (e *env) sendErr(tx chain.Tx, want error) {
	e.t.Helper()
	_, err := e.c().SendTx(e.ctx, tx)
	if !errors.Is(err, want) {
		e.t.Fatalf("SendTx(nonce %d fee %d %s) = %v, want %v", tx.Nonce, tx.Fee, tx.Method, err, want)
	}
	if st := e.status(tx.Hash()); st.State != chain.TxUnknown {
		e.t.Fatalf("refused transaction has status %+v, want unknown", st)
	}
}

// mine advances the clock by a second and mines a block, which must be made.
func (e *env) mine() chain.Block {
	e.t.Helper()
	e.h.Advance(time.Second)
	hdr, ok, err := e.c().Mine(e.ctx)
	if err != nil || !ok {
		e.t.Fatalf("Mine: ok=%v err=%v", ok, err)
	}
	if !hdr.Time.Equal(e.clk.Now()) {
		e.t.Fatalf("block %d time %v, clock reads %v", hdr.Height, hdr.Time, e.clk.Now())
	}
	b := e.block(hdr.Height)
	if b.Hash != hdr.Hash {
		e.t.Fatalf("Blocks(%d) hash %s, Mine returned %s", hdr.Height, b.Hash, hdr.Hash)
	}
	return b
}

func (e *env) head() chain.BlockHeader {
	e.t.Helper()
	h, err := e.c().Head(e.ctx)
	if err != nil {
		e.t.Fatalf("Head: %v", err)
	}
	return h
}

func (e *env) block(h uint64) chain.Block {
	e.t.Helper()
	bs, err := e.c().Blocks(e.ctx, h, h)
	if err != nil || len(bs) != 1 || bs[0].Height != h {
		e.t.Fatalf("Blocks(%d, %d) = %d blocks, %v", h, h, len(bs), err)
	}
	return bs[0]
}

func (e *env) blocks() []chain.Block {
	e.t.Helper()
	hd := e.head().Height
	bs, err := e.c().Blocks(e.ctx, 0, hd)
	if err != nil || uint64(len(bs)) != hd+1 {
		e.t.Fatalf("Blocks(0, %d) = %d blocks, %v", hd, len(bs), err)
	}
	return bs
}

func (e *env) status(h chain.Hash) chain.TxStatus {
	e.t.Helper()
	st, err := e.c().TxStatus(e.ctx, h)
	if err != nil {
		e.t.Fatalf("TxStatus(%s): %v", h, err)
	}
	return st
}

func (e *env) wantState(h chain.Hash, want chain.TxState) chain.TxStatus {
	e.t.Helper()
	st := e.status(h)
	if st.State != want {
		e.t.Fatalf("status of %s = %+v, want %s", short(h), st, want)
	}
	return st
}

// wantIncluded checks that h is included with the given outcome.
func (e *env) wantIncluded(h chain.Hash, success bool, reason string) chain.TxStatus {
	e.t.Helper()
	st := e.wantState(h, chain.TxIncluded)
	if st.Success != success || st.Reason != reason {
		e.t.Fatalf("status of %s = %+v, want success=%v reason=%q", short(h), st, success, reason)
	}
	b := e.block(st.Height)
	if st.Index >= len(b.Txs) || b.Txs[st.Index].Hash != h {
		e.t.Fatalf("status of %s points at block %d index %d, which does not hold it", short(h), st.Height, st.Index)
	}
	return st
}

func (e *env) account(a chain.Address) chain.Account {
	e.t.Helper()
	ac, err := e.c().Account(e.ctx, a)
	if err != nil {
		e.t.Fatalf("Account(%s): %v", short(a), err)
	}
	return ac
}

func (e *env) setFaults(u devchain.FaultUpdate) devchain.FaultState {
	e.t.Helper()
	st, err := e.c().SetFaults(e.ctx, u)
	if err != nil {
		e.t.Fatalf("SetFaults: %v", err)
	}
	return st
}

func (e *env) faults() devchain.FaultState {
	e.t.Helper()
	st, err := e.c().Faults(e.ctx)
	if err != nil {
		e.t.Fatalf("Faults: %v", err)
	}
	return st
}

// funded returns a fresh signing key funded by the faucet.
func (e *env) funded(label string, amount uint64) (chain.Address, ed25519.PrivateKey) {
	e.t.Helper()
	key := chain.KeyFromSeed("chaintest/" + label)
	a := chain.KeyAddress(key)
	if _, err := e.c().Faucet(e.ctx, a, amount); err != nil {
		e.t.Fatalf("Faucet: %v", err)
	}
	return a, key
}

// zkView is the zkapp contract's get answer.
type zkView struct {
	ZkApp   string                     `json:"zkapp"`
	State   map[string]json.RawMessage `json:"state"`
	Version uint64                     `json:"version"`
	Changed uint64                     `json:"changed"`
	Owner   string                     `json:"owner"`
}

// get returns a zkApp's state as the raw answer and decoded.
func (e *env) get(zk string) (json.RawMessage, zkView) {
	e.t.Helper()
	raw, err := e.c().Call(e.ctx, "zkapp", "get", json.RawMessage(fmt.Sprintf(`{"zkapp":%q}`, zk)))
	if err != nil {
		e.t.Fatalf("Call get %s: %v", zk, err)
	}
	var v zkView
	if err := json.Unmarshal(raw, &v); err != nil {
		e.t.Fatalf("Call get %s answered %s: %v", zk, raw, err)
	}
	return raw, v
}

func (e *env) events(after uint64, limit int) []chain.Event {
	e.t.Helper()
	evs, err := e.c().Events(e.ctx, after, limit)
	if err != nil {
		e.t.Fatalf("Events(%d, %d): %v", after, limit, err)
	}
	return evs
}

func (e *env) mustJSON(v any) string {
	e.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		e.t.Fatalf("marshal: %v", err)
	}
	return string(b)
}

func short[S ~string](s S) string {
	if len(s) > 10 {
		return string(s[:10])
	}
	return string(s)
}

func ptr[T any](v T) *T { return &v }

// txHashes lists a block's transaction hashes in order.
func txHashes(b chain.Block) []chain.Hash {
	out := make([]chain.Hash, 0, len(b.Txs))
	for _, t := range b.Txs {
		out = append(out, t.Hash)
	}
	return out
}

func sameHashes(a, b []chain.Hash) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// sameHeader compares headers field by field (times with Equal, so that a
// header that crossed JSON compares equal).
func sameHeader(a, b chain.BlockHeader) bool {
	return a.Height == b.Height && a.Hash == b.Hash && a.Parent == b.Parent && a.Time.Equal(b.Time) &&
		a.TxCount == b.TxCount && a.MinFee == b.MinFee
}
