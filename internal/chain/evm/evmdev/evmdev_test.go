package evmdev_test

import (
	"context"
	"math/big"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/ordolabs/ordo/internal/chain/evm/contracts"
	"github.com/ordolabs/ordo/internal/chain/evm/evmdev"
)

// start starts a dev chain on a free loopback port (port 0 for both: one
// server serves HTTP and WS) and closes it at the test's end.
func start(t *testing.T, cfg evmdev.Config) *evmdev.Chain {
	t.Helper()
	if cfg.HTTPAddr == "" {
		cfg.HTTPAddr = "127.0.0.1:0"
	}
	if cfg.WSAddr == "" {
		cfg.WSAddr = "localhost:0"
	}
	c, err := evmdev.Start(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return c
}

func dial(t *testing.T, url string) *ethclient.Client {
	t.Helper()
	cl, err := ethclient.DialContext(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// waitFor polls cond every 20ms until it holds, failing the test after d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestStartServesHTTPAndWS(t *testing.T) {
	c := start(t, evmdev.Config{BlockTime: 100 * time.Millisecond, Accounts: 3})
	if !strings.HasPrefix(c.HTTPURL, "http://127.0.0.1:") || strings.HasSuffix(c.HTTPURL, ":0") {
		t.Errorf("HTTP URL %q", c.HTTPURL)
	}
	if !strings.HasPrefix(c.WSURL, "ws://127.0.0.1:") || strings.HasSuffix(c.WSURL, ":0") {
		t.Errorf("WS URL %q", c.WSURL)
	}
	ctx := t.Context()
	for _, url := range []string{c.HTTPURL, c.WSURL} {
		t.Run(url[:strings.Index(url, ":")], func(t *testing.T) {
			cl := dial(t, url)
			id, err := cl.ChainID(ctx)
			if err != nil || id.Uint64() != evmdev.DefaultChainID {
				t.Fatalf("chain id %v, %v; want %d", id, err, evmdev.DefaultChainID)
			}
			// Blocks advance on the timer, with nothing sent.
			h0, err := cl.BlockNumber(ctx)
			if err != nil {
				t.Fatal(err)
			}
			waitFor(t, 10*time.Second, "two more blocks", func() bool {
				h, err := cl.BlockNumber(ctx)
				return err == nil && h >= h0+2
			})
			// Each dev account is funded.
			for i, a := range c.Accounts {
				if a != evmdev.DevAddress(i) {
					t.Errorf("account %d is %s, want DevAddress(%d)", i, a.Hex(), i)
				}
				bal, err := cl.BalanceAt(ctx, a, nil)
				if err != nil {
					t.Fatal(err)
				}
				// Dev account 0 paid for the deployments.
				if bal.Cmp(evmdev.DevBalance) > 0 || (i > 0 && bal.Cmp(evmdev.DevBalance) != 0) || bal.Sign() == 0 {
					t.Errorf("balance of dev account %d: %s", i, bal)
				}
			}
			// The router authorizes every dev account, and its owner is dev 0.
			router := contracts.NewOrdoRouter()
			for _, a := range c.Accounts {
				out, err := cl.CallContract(ctx, ethereum.CallMsg{To: &c.Router, Data: router.PackIsSubmitter(a)}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if ok, err := router.UnpackIsSubmitter(out); err != nil || !ok {
					t.Errorf("isSubmitter(%s) = %v, %v", a.Hex(), ok, err)
				}
			}
			out, err := cl.CallContract(ctx, ethereum.CallMsg{To: &c.Router, Data: router.PackIsSubmitter(common.HexToAddress("0x01"))}, nil)
			if ok, uerr := router.UnpackIsSubmitter(out); err != nil || uerr != nil || ok {
				t.Errorf("isSubmitter(0x01) = %v, %v, %v; want false", ok, err, uerr)
			}
			out, err = cl.CallContract(ctx, ethereum.CallMsg{To: &c.Router, Data: router.PackOwner()}, nil)
			if owner, uerr := router.UnpackOwner(out); err != nil || uerr != nil || owner != c.Accounts[0] {
				t.Errorf("owner = %s, %v, %v", owner.Hex(), err, uerr)
			}
			// Voting trusts the router.
			voting := contracts.NewVoting()
			out, err = cl.CallContract(ctx, ethereum.CallMsg{To: &c.Voting, Data: voting.PackTrustedRouter()}, nil)
			if r, uerr := voting.UnpackTrustedRouter(out); err != nil || uerr != nil || r != c.Router {
				t.Errorf("Voting's router = %s, %v, %v; want %s", r.Hex(), err, uerr, c.Router.Hex())
			}
			// So does Library, the processor's test target.
			lib := contracts.NewLibrary()
			out, err = cl.CallContract(ctx, ethereum.CallMsg{To: &c.Library, Data: lib.PackTrustedRouter()}, nil)
			if r, uerr := lib.UnpackTrustedRouter(out); err != nil || uerr != nil || r != c.Router {
				t.Errorf("Library's router = %s, %v, %v; want %s", r.Hex(), err, uerr, c.Router.Hex())
			}
			// The leader's contracts trust it too; dev 0 is the workflow's
			// admin and every other dev account holds one leader cap.
			wf, reg := contracts.NewWorkflow(), contracts.NewToolRegistry()
			out, err = cl.CallContract(ctx, ethereum.CallMsg{To: &c.Registry, Data: reg.PackTrustedRouter()}, nil)
			if r, uerr := reg.UnpackTrustedRouter(out); err != nil || uerr != nil || r != c.Router {
				t.Errorf("ToolRegistry's router = %s, %v, %v; want %s", r.Hex(), err, uerr, c.Router.Hex())
			}
			out, err = cl.CallContract(ctx, ethereum.CallMsg{To: &c.Workflow, Data: wf.PackAdmin()}, nil)
			if a, uerr := wf.UnpackAdmin(out); err != nil || uerr != nil || a != c.Accounts[0] {
				t.Errorf("the workflow's admin = %s, %v, %v; want dev 0", a.Hex(), err, uerr)
			}
			for i, a := range c.Accounts {
				out, err := cl.CallContract(ctx, ethereum.CallMsg{To: &c.Workflow, Data: wf.PackCaps(a)}, nil)
				if n, uerr := wf.UnpackCaps(out); err != nil || uerr != nil || n.Uint64() != map[bool]uint64{true: 0, false: 1}[i == 0] {
					t.Errorf("caps of dev %d = %v, %v, %v", i, n, err, uerr)
				}
			}
		})
	}
}

func TestNewHeadsOverWS(t *testing.T) {
	c := start(t, evmdev.Config{BlockTime: 100 * time.Millisecond, Accounts: 1})
	cl := dial(t, c.WSURL)
	heads := make(chan *types.Header, 16)
	sub, err := cl.SubscribeNewHead(t.Context(), heads)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	var prev *types.Header
	for range 3 {
		select {
		case h := <-heads:
			if prev != nil && (h.Number.Uint64() != prev.Number.Uint64()+1 || h.ParentHash != prev.Hash()) {
				t.Errorf("head %d (parent %s) after %d (%s)", h.Number, h.ParentHash.Hex(), prev.Number, prev.Hash().Hex())
			}
			prev = h
		case err := <-sub.Err():
			t.Fatal(err)
		case <-time.After(10 * time.Second):
			t.Fatal("no head within 10s")
		}
	}
}

// TestTransactionsOverHTTP sends a dev account's transfer over HTTP and reads
// it back through the calls a node makes: receipts by block, fee history, tip.
func TestTransactionsOverHTTP(t *testing.T) {
	const chainID = 31337
	c := start(t, evmdev.Config{BlockTime: 100 * time.Millisecond, Accounts: 2, ChainID: chainID})
	ctx := t.Context()
	cl := dial(t, c.HTTPURL)
	if id, err := cl.ChainID(ctx); err != nil || id.Uint64() != chainID {
		t.Fatalf("chain id %v, %v; want %d", id, err, chainID)
	}
	tip, err := cl.SuggestGasTipCap(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.FeeHistory(ctx, 2, nil, []float64{50}); err != nil {
		t.Fatalf("eth_feeHistory: %v", err)
	}
	head, err := cl.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	to := c.Accounts[1]
	msg := ethereum.CallMsg{From: c.Accounts[0], To: &to, Value: big.NewInt(1000)}
	gas, err := cl.EstimateGas(ctx, msg)
	if err != nil {
		t.Fatal(err)
	}
	nonce, err := cl.PendingNonceAt(ctx, c.Accounts[0])
	if err != nil {
		t.Fatal(err)
	}
	tx := types.MustSignNewTx(c.Keys[0], types.LatestSignerForChainID(big.NewInt(chainID)), &types.DynamicFeeTx{
		ChainID: big.NewInt(chainID), Nonce: nonce, GasTipCap: tip, Gas: gas, To: &to, Value: big.NewInt(1000),
		GasFeeCap: new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2))),
	})
	if err := cl.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	var r *types.Receipt
	waitFor(t, 10*time.Second, "receipt", func() bool {
		r, err = cl.TransactionReceipt(ctx, tx.Hash())
		return err == nil
	})
	if r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("transfer failed: %+v", r)
	}
	rs, err := cl.BlockReceipts(ctx, rpc.BlockNumberOrHashWithNumber(rpc.BlockNumber(r.BlockNumber.Int64())))
	if err != nil {
		t.Fatalf("eth_getBlockReceipts: %v", err)
	}
	if len(rs) != 1 || rs[0].TxHash != tx.Hash() {
		t.Errorf("block %s's receipts: %d, want the transfer alone", r.BlockNumber, len(rs))
	}
	bal, err := cl.BalanceAt(ctx, to, nil)
	if err != nil || bal.Cmp(new(big.Int).Add(evmdev.DevBalance, big.NewInt(1000))) != 0 {
		t.Errorf("balance of the receiver: %v, %v", bal, err)
	}
}

func TestMinTipKeepsALowTipPending(t *testing.T) {
	c := start(t, evmdev.Config{BlockTime: 50 * time.Millisecond, Accounts: 1, MinTip: big.NewInt(1_000_000)})
	ctx := t.Context()
	cl := dial(t, c.HTTPURL)
	head, err := cl.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	nonce, err := cl.PendingNonceAt(ctx, c.Accounts[0]) // after the deployments
	if err != nil {
		t.Fatal(err)
	}
	to := common.HexToAddress("0x02")
	tx := types.MustSignNewTx(c.Keys[0], types.LatestSignerForChainID(big.NewInt(evmdev.DefaultChainID)), &types.DynamicFeeTx{
		ChainID: big.NewInt(evmdev.DefaultChainID), Nonce: nonce, GasTipCap: big.NewInt(1), Gas: 21000, To: &to,
		GasFeeCap: new(big.Int).Add(big.NewInt(1), new(big.Int).Mul(head.BaseFee, big.NewInt(2))),
	})
	if err := cl.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	h0 := head.Number.Uint64()
	waitFor(t, 10*time.Second, "three blocks", func() bool {
		h, err := cl.BlockNumber(ctx)
		return err == nil && h >= h0+3
	})
	if _, pending, err := cl.TransactionByHash(ctx, tx.Hash()); err != nil || !pending {
		t.Errorf("a 1-wei-tip transaction under a 10^6 wei minimum: pending %v, %v; want pending", pending, err)
	}
}

func TestKeyFiles(t *testing.T) {
	dir := t.TempDir()
	c := start(t, evmdev.Config{Accounts: 2, KeyDir: dir})
	for i, p := range c.KeyFiles {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", p, fi.Mode().Perm())
		}
		k, err := crypto.LoadECDSA(p) // geth's own reader of raw key files
		if err != nil {
			t.Fatal(err)
		}
		if crypto.PubkeyToAddress(k.PublicKey) != c.Accounts[i] {
			t.Errorf("%s holds the key of %s, want %s", p, crypto.PubkeyToAddress(k.PublicKey).Hex(), c.Accounts[i].Hex())
		}
	}
}

func TestTempKeyDirRemovedAtClose(t *testing.T) {
	c, err := evmdev.Start(t.Context(), evmdev.Config{Accounts: 1})
	if err != nil {
		t.Fatal(err)
	}
	p := c.KeyFiles[0]
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("%s after Close: %v, want it removed", p, err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestStartRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		cfg  evmdev.Config
		want string
	}{
		{"public HTTP", evmdev.Config{HTTPAddr: "0.0.0.0:0"}, "not a loopback address"},
		{"all interfaces WS", evmdev.Config{WSAddr: ":0"}, "not a loopback address"},
		{"a host name", evmdev.Config{HTTPAddr: "example.com:0"}, "not a loopback address"},
		{"no port", evmdev.Config{HTTPAddr: "127.0.0.1"}, "missing port"},
		{"short block time", evmdev.Config{BlockTime: 10 * time.Millisecond}, "below the least"},
		{"no accounts", evmdev.Config{Accounts: -1}, "dev accounts"},
		{"zero tip", evmdev.Config{MinTip: big.NewInt(0)}, "minimum tip"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := evmdev.Start(context.Background(), tc.cfg)
			if err == nil {
				_ = c.Close()
				t.Fatalf("Start(%+v) started", tc.cfg)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Start: %v; want %q", err, tc.want)
			}
		})
	}
}

func TestStartPortTaken(t *testing.T) {
	a := start(t, evmdev.Config{Accounts: 1})
	taken := strings.TrimPrefix(a.HTTPURL, "http://")
	c, err := evmdev.Start(t.Context(), evmdev.Config{Accounts: 1, HTTPAddr: taken})
	if err == nil {
		_ = c.Close()
		t.Fatalf("a second chain started on %s", taken)
	}
}

// TestRouterAppliesAnIntent sends an intent through the router as a node
// would (gas estimated on executeStrict, with a margin) and reads its outcome
// from the receipt: the chain's forks must let the router's out-of-gas guard
// hold.
func TestRouterAppliesAnIntent(t *testing.T) {
	c := start(t, evmdev.Config{BlockTime: 50 * time.Millisecond, Accounts: 2})
	ctx := t.Context()
	cl := dial(t, c.HTTPURL)
	router, voting := contracts.NewOrdoRouter(), contracts.NewVoting()
	calls := []contracts.OrdoRouterCall{{Target: c.Voting, Data: voting.PackCreateClaimVotingAccount("acct", "a title")}}
	from := c.Accounts[1]
	gas, err := cl.EstimateGas(ctx, ethereum.CallMsg{From: from, To: &c.Router, Data: router.PackExecuteStrict("tx_1", calls)})
	if err != nil {
		t.Fatal(err)
	}
	head, err := cl.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := big.NewInt(evmdev.DefaultChainID)
	tx := types.MustSignNewTx(c.Keys[1], types.LatestSignerForChainID(id), &types.DynamicFeeTx{
		ChainID: id, Nonce: 0, GasTipCap: big.NewInt(1), Gas: gas * 13 / 10, To: &c.Router,
		GasFeeCap: new(big.Int).Add(big.NewInt(1), new(big.Int).Mul(head.BaseFee, big.NewInt(2))),
		Data:      router.PackExecute("tx_1", calls),
	})
	if err := cl.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	var r *types.Receipt
	waitFor(t, 10*time.Second, "receipt", func() bool {
		r, err = cl.TransactionReceipt(ctx, tx.Hash())
		return err == nil
	})
	if r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("execute reverted (gas %d of %d)", r.GasUsed, tx.Gas())
	}
	// Through Osaka a create costs about 110k gas; the unreleased Amsterdam
	// rules' state gas (which the chain must not run) triples it.
	t.Logf("execute(create) used %d gas (strict estimate %d)", r.GasUsed, gas)
	if r.GasUsed > 200_000 {
		t.Errorf("execute(create) used %d gas: the chain runs forks past Osaka", r.GasUsed)
	}
	applied := 0
	for _, l := range r.Logs {
		if l.Address != c.Router {
			continue
		}
		if e, err := router.UnpackIntentAppliedEvent(l); err == nil {
			applied++
			if e.Uid != crypto.Keccak256Hash([]byte("tx_1")) || e.Submitter != from {
				t.Errorf("IntentApplied uid %x submitter %s", e.Uid, e.Submitter.Hex())
			}
		} else if _, ferr := router.UnpackIntentFailedEvent(l); ferr == nil {
			t.Errorf("the intent failed: %+v", l)
		}
	}
	if applied != 1 {
		t.Fatalf("%d IntentApplied events, want 1", applied)
	}
	// eth_getLogs finds the outcome by the router's address and event.
	logs, err := cl.FilterLogs(ctx, ethereum.FilterQuery{
		FromBlock: big.NewInt(0), ToBlock: r.BlockNumber, Addresses: []common.Address{c.Router},
		Topics: [][]common.Hash{{router.GetABI().Events["IntentApplied"].ID}},
	})
	if err != nil {
		t.Fatalf("eth_getLogs: %v", err)
	}
	if len(logs) != 1 || logs[0].TxHash != tx.Hash() {
		t.Errorf("eth_getLogs found %d IntentApplied logs, want this intent's alone", len(logs))
	}
	// eth_getBlockByNumber returns the block with the transaction.
	blk, err := cl.BlockByNumber(ctx, r.BlockNumber)
	if err != nil {
		t.Fatalf("eth_getBlockByNumber: %v", err)
	}
	if blk.Transaction(tx.Hash()) == nil {
		t.Errorf("block %s lacks the transaction", r.BlockNumber)
	}
	out, err := cl.CallContract(ctx, ethereum.CallMsg{To: &c.Voting, Data: voting.PackClaim("acct")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cl2, err := voting.UnpackClaim(out)
	if err != nil || cl2.Creator != from || cl2.Title != "a title" {
		t.Errorf("claim %+v, %v; want created by %s (ERC-2771 sender)", cl2, err, from.Hex())
	}
}

func callMsg(to common.Address, data []byte) ethereum.CallMsg {
	return ethereum.CallMsg{To: &to, Data: data}
}
