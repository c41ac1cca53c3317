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
	until := head + 20 // "later" fails (hard) in blocks below it: about a second
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

	// What the chain says: the router's failed intents by the library's
	// error, and the library's counts.
	failed := map[string]int{}
	logs, err := ec.FilterLogs(ctx, ethereum.FilterQuery{Addresses: []common.Address{dev.Router}, Topics: [][]common.Hash{{topic("IntentFailed(bytes32,address,uint256,bytes)")}}})
	if err != nil {
		t.Fatal(err)
	}
	router := contracts.NewOrdoRouter()
	for _, l := range logs {
		e, err := router.UnpackIntentFailedEvent(&l)
		if err != nil {
			t.Fatal(err)
		}
		switch v, _ := lib.UnpackError(e.Reason); v := v.(type) {
		case *contracts.LibraryNotReady:
			failed[v.Method]++
		case *contracts.LibraryConfiguredFailure:
			failed[v.Method]++
		default:
			t.Errorf("an intent failed with %x", e.Reason)
		}
	}
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
		key        string
		status     processor.Status
		executed   int
		executions int // -1: 1 + the hard failures the chain holds
		method     string
		count      uint64
	}{
		// The atomic batch: its "ok" call ran in every attempt, but only the
		// applied one kept it.
		{"p/a1", processor.Executed, 2, -1, "ok", 1},
		{"p/n1", processor.PartiallyExecuted, 1, 3, "broken", 0},
		{"p/c1", processor.Executed, 1, 3, "flaky", 1},
		{"p/c2", processor.Executed, 1, 1, "confirmed", 1},
	} {
		b, ok := got[w.key]
		if w.executions < 0 {
			w.executions = 1 + failed["later"]
			if failed["later"] == 0 {
				t.Errorf("%s: no attempt failed on chain before block %d", w.key, until)
			}
		}
		if !ok || b.Outcome.Status != w.status || b.Outcome.Executed != w.executed || b.Executions != w.executions {
			t.Errorf("callback %s: %+v, executions %d; want %s(%d) after %d executions", w.key, b.Outcome, b.Executions, w.status, w.executed, w.executions)
		}
		if c := count(w.method); c != w.count {
			t.Errorf("%s: count(%s) = %d on chain, want %d", w.key, w.method, c, w.count)
		}
	}
	if failed["broken"] != 2 || count("later") != 1 || count("first") != 1 {
		t.Errorf("on chain: %v failed intents by method, count(later) %d, count(first) %d; want broken 2, 1, 1", failed, count("later"), count("first"))
	}
	out, err := ec.CallContract(ctx, ethereum.CallMsg{To: &dev.Library, Data: lib.PackAttempts("p/c1/0")}, nil)
	if a, uerr := lib.UnpackAttempts(out); err != nil || uerr != nil || a.Uint64() != 3 {
		t.Errorf("attempts(p/c1/0) = %v, %v, %v; want 3 (soft failures at 1 and 2)", a, err, uerr)
	}
	t.Logf("callbacks %d; failed intents on chain by method %v", len(got), failed)
}
