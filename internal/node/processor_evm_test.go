package node_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/ordolabs/ordo/internal/chain/evm/contracts"
	"github.com/ordolabs/ordo/internal/chain/evm/evmdev"
	"github.com/ordolabs/ordo/internal/node"
	"github.com/ordolabs/ordo/internal/processor"
	"github.com/ordolabs/ordo/internal/testkit/evmaudit"
)

// callbacks is a callback receiver that is not ordo: the first body of each
// Idempotency-Key.
type callbacks struct {
	mu  sync.Mutex
	got map[string]processor.CallbackBody
}

func (c *callbacks) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var b processor.CallbackBody
	raw, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(raw, &b)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.got[r.Header.Get("Idempotency-Key")]; !ok {
		c.got[r.Header.Get("Idempotency-Key")] = b
	}
	w.WriteHeader(http.StatusNoContent)
}

func (c *callbacks) snapshot() map[string]processor.CallbackBody {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]processor.CallbackBody, len(c.got))
	for k, v := range c.got {
		out[k] = v
	}
	return out
}

// devSend signs data to `to` from key with the chain's fees and waits for
// its receipt; it fails t unless the transaction succeeded.
func devSend(ctx context.Context, t *testing.T, ec *ethclient.Client, key *ecdsa.PrivateKey, to common.Address, data []byte) *types.Receipt {
	t.Helper()
	from := crypto.PubkeyToAddress(key.PublicKey)
	id, err := ec.ChainID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	nonce, err := ec.PendingNonceAt(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	head, err := ec.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	tip := big.NewInt(1_000_000_000)
	gas, err := ec.EstimateGas(ctx, ethereum.CallMsg{From: from, To: &to, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	tx := types.MustSignNewTx(key, types.LatestSignerForChainID(id), &types.DynamicFeeTx{ChainID: id, Nonce: nonce, GasTipCap: tip,
		GasFeeCap: new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2))), Gas: gas * 2, To: &to, Data: data})
	if err := ec.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	for {
		r, err := ec.TransactionReceipt(ctx, tx.Hash())
		switch {
		case err == nil && r.Status != types.ReceiptStatusSuccessful:
			t.Fatalf("transaction %s reverted", tx.Hash().Hex())
		case err == nil:
			return r
		case !errors.Is(err, ethereum.NotFound):
			t.Fatal(err)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no receipt for %s", tx.Hash().Hex())
		case <-time.After(20 * time.Millisecond): // polling the chain
		}
	}
}

// TestProcessorOnEVM: the processor of a node on an EVM chain (evmdev over
// loopback JSON-RPC, the config of devchain but the evm: section) runs an
// atomic batch through the router's all-or-none calls, retried until its
// failing call's block passes; a non-atomic batch whose second action
// fails every retry; and two actions confirmed by CallbackConfirmation
// events read from the chain's logs, one confirmed by the library itself
// after two soft failures. Each outcome is counted against the chain: the
// router's IntentFailed events, the library's counts.
func TestProcessorOnEVM(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	dev, err := evmdev.Start(ctx, evmdev.Config{HTTPAddr: "127.0.0.1:0", WSAddr: "127.0.0.1:0", BlockTime: 50 * time.Millisecond, Accounts: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	cfg := node.Config{Data: t.TempDir(), DevMode: true, RetryDelay: node.Duration(100 * time.Millisecond)}
	cfg.UseEVMDev(dev, 2)
	cfg.EVM.ReorgDepth = 1
	n, _ := evmNode(ctx, t, cfg)
	api := "http://" + n.Addr
	ec, err := ethclient.DialContext(ctx, dev.HTTPURL)
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	lib := contracts.NewLibrary()

	recv := &callbacks{got: map[string]processor.CallbackBody{}}
	rs := httptest.NewServer(recv)
	defer rs.Close()
	call := func(method, path, body string) []byte {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, method, api+path, bytes.NewBufferString(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
		}
		return b
	}

	head, err := ec.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	until := head + 40 // "later" fails (hard) in blocks below it: about two seconds, past the first attempt under load
	devSend(ctx, t, ec, dev.Keys[0], dev.Library, lib.PackConfigure("later", 0, until, ""))
	devSend(ctx, t, ec, dev.Keys[0], dev.Library, lib.PackConfigure("broken", 1<<63, 0, "down"))
	devSend(ctx, t, ec, dev.Keys[0], dev.Library, lib.PackConfigure("flaky", 2, 0, ""))

	call("POST", "/v1/processors", `{"name":"p","owner":"dev","callbackURL":"`+rs.URL+`"}`)
	for _, b := range []string{
		`{"id":"a1","priority":"high","msgs":[{"contract":"library","method":"act","args":{"method":"ok"}},{"contract":"library","method":"act","args":{"method":"later"}}],
		  "actionsConfig":{"atomic":{"actions":[{},{}],"retryLogic":{"times":{"amount":500},"interval":{"blocks":1}}}}}`,
		`{"id":"n1","priority":"high","msgs":[{"contract":"library","method":"act","args":{"method":"first"}},{"contract":"library","method":"act","args":{"method":"broken"}}],
		  "actionsConfig":{"nonAtomic":{"actions":[{},{"retryLogic":{"times":{"amount":1},"interval":{"blocks":1}}}]}}}`,
		`{"id":"c1","priority":"medium","msgs":[{"contract":"library","method":"act_confirmed","args":{"method":"flaky","execution":"p/c1/0"}}],
		  "actionsConfig":{"nonAtomic":{"actions":[{"retryLogic":{"times":{"amount":2},"interval":{"blocks":1}},"callbackConfirmation":{"contract":"library"}}]}}}`,
		`{"id":"c2","priority":"medium","msgs":[{"contract":"library","method":"act","args":{"method":"confirmed"}}],
		  "actionsConfig":{"nonAtomic":{"actions":[{"callbackConfirmation":{"contract":"library"}}]}}}`,
	} {
		call("POST", "/v1/processors/p/batches", b)
	}

	// Tick until every batch reported; confirm c2's first execution on chain
	// once it started.
	confirmed := false
	for len(recv.snapshot()) < 4 {
		var tr processor.TickResult
		_ = json.Unmarshal(call("POST", "/v1/processors/p/tick", `{}`), &tr)
		if tr.Exec == "p/c2/0/1" && !confirmed {
			devSend(ctx, t, ec, dev.Keys[0], dev.Library, lib.PackConfirm(tr.Exec, true))
			confirmed = true
		}
		select {
		case <-ctx.Done():
			t.Fatalf("callbacks so far: %+v", recv.snapshot())
		case <-time.After(25 * time.Millisecond): // pacing the ticks
		}
	}

	// What the chain says, read over plain JSON-RPC: each router
	// transaction's outcome by the library call it holds, and the library's
	// counts.
	outcomes, problems, err := evmaudit.LibraryOutcomes(ctx, ec, dev.Router, dev.Library)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	failures := func(call string) int { return outcomes[call]["failed"] + outcomes[call]["reverted"] }
	count := func(m string) uint64 {
		out, err := ec.CallContract(ctx, ethereum.CallMsg{To: &dev.Library, Data: lib.PackCount(m)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		c, err := lib.UnpackCount(out)
		if err != nil {
			t.Fatal(err)
		}
		return c.Uint64()
	}
	got := recv.snapshot()
	for _, w := range []struct {
		key      string
		status   processor.Status
		executed int
		// call is the library call of the batch's last unit; the chain holds
		// failures of it and applied transactions of it, executions in all.
		call              string
		failures, applied int // failures -1: at least one
		method            string
		count             uint64
	}{
		// The atomic batch: its "ok" call ran in every attempt, but only the
		// applied one kept it.
		{"p/a1", processor.Executed, 2, "act later", -1, 1, "ok", 1},
		{"p/n1", processor.PartiallyExecuted, 1, "act broken", 2, 0, "broken", 0},
		// Soft failures: three applied transactions, two confirmed false.
		{"p/c1", processor.Executed, 1, "actConfirmed flaky", 0, 3, "flaky", 1},
		{"p/c2", processor.Executed, 1, "act confirmed", 0, 1, "confirmed", 1},
	} {
		b, ok := got[w.key]
		f, a := failures(w.call), outcomes[w.call]["applied"]
		if w.failures < 0 && f > 0 {
			w.failures = f
		}
		if f != w.failures || a != w.applied {
			t.Errorf("%s: the chain holds %d failed and %d applied transactions of %s, want %d and %d", w.key, f, a, w.call, w.failures, w.applied)
		}
		executions := f + a
		if w.key == "p/n1" {
			executions += outcomes["act first"]["applied"] // its first action
		}
		if !ok || b.Outcome.Status != w.status || b.Outcome.Executed != w.executed || b.Executions != executions {
			t.Errorf("callback %s: %+v, executions %d; want %s(%d) after the %d executions the chain holds", w.key, b.Outcome, b.Executions, w.status, w.executed, executions)
		}
		if c := count(w.method); c != w.count {
			t.Errorf("%s: count(%s) = %d on chain, want %d", w.key, w.method, c, w.count)
		}
	}
	if count("later") != 1 || count("first") != 1 {
		t.Errorf("on chain: count(later) %d, count(first) %d; want 1, 1", count("later"), count("first"))
	}
	out, err := ec.CallContract(ctx, ethereum.CallMsg{To: &dev.Library, Data: lib.PackAttempts("p/c1/0")}, nil)
	if a, uerr := lib.UnpackAttempts(out); err != nil || uerr != nil || a.Uint64() != 3 {
		t.Errorf("attempts(p/c1/0) = %v, %v, %v; want 3 (soft failures at 1 and 2)", a, err, uerr)
	}
	t.Logf("callbacks %d; router transactions by library call: %v", len(got), outcomes)
}
