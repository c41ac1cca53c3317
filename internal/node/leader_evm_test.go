package node_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/ordolabs/ordo/internal/chain/evm/contracts"
	"github.com/ordolabs/ordo/internal/chain/evm/evmdev"
	"github.com/ordolabs/ordo/internal/node"
	"github.com/ordolabs/ordo/internal/testkit/evmaudit"
	"github.com/ordolabs/ordo/internal/tool"
)

// adder is a tool that is not ordo: POST /invoke {"input":{"a","b"}}
// answers {"output":{"sum":a+b}}; it counts its invocations. With a
// verifier it requires a leader's signature (tool.Verifier at the wall
// clock) and counts the refusals.
type adder struct {
	calls, refused atomic.Int64
	verifier       *tool.Verifier
}

func (a *adder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Input struct{ A, B int } `json:"input"`
	}
	body, _ := io.ReadAll(r.Body)
	if r.URL.Path != "/invoke" || json.Unmarshal(body, &req) != nil {
		http.Error(w, `{"error":{"code":"bad_request","message":"POST /invoke {input}"}}`, http.StatusBadRequest)
		return
	}
	if a.verifier != nil {
		if _, err := a.verifier.Verify(r, body, time.Now()); err != nil {
			a.refused.Add(1)
			http.Error(w, `{"error":{"code":"unsigned","message":"a leader's signature is required"}}`, http.StatusUnauthorized)
			return
		}
	}
	a.calls.Add(1)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"output": map[string]int{"sum": req.Input.A + req.Input.B}})
}

// TestLeaderOnEVM: the leader of a node on an EVM chain (evmdev over
// loopback JSON-RPC, the leader's devchain config but the evm: section)
// reads walks requested on chain, runs the tool the registry names (which
// requires the leader's secp256k1 signature, its 0x address listed), and
// reports one result per walk through the router from the account holding
// its cap; a second result, by another cap holder through the router, is
// refused already_reported. Everything is read back over plain JSON-RPC.
func TestLeaderOnEVM(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	dev, err := evmdev.Start(ctx, evmdev.Config{HTTPAddr: "127.0.0.1:0", WSAddr: "127.0.0.1:0", BlockTime: 50 * time.Millisecond, Accounts: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	ec, err := ethclient.DialContext(ctx, dev.HTTPURL)
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	wf, reg, router := contracts.NewWorkflow(), contracts.NewToolRegistry(), contracts.NewOrdoRouter()

	leaderAddr := dev.Accounts[1]
	add := &adder{verifier: tool.NewVerifier(func(l string) bool { return l == evmdev.AddressString(leaderAddr) }, 0)}
	ts := httptest.NewServer(add)
	defer ts.Close()
	devSend(ctx, t, ec, dev.Keys[0], dev.Registry, reg.PackRegister("math.add", ts.URL,
		`{"type":"object","required":["a","b"],"properties":{"a":{"type":"integer"},"b":{"type":"integer"}}}`,
		`{"type":"object","required":["sum"]}`))

	cfg := node.Config{Data: t.TempDir(), DevMode: true, RetryDelay: node.Duration(100 * time.Millisecond)}
	cfg.UseEVMDev(dev, 2)
	cfg.EVM.ReorgDepth = 1
	cfg.Leader.Accounts = []string{evmdev.AddressString(leaderAddr)}
	evmNode(ctx, t, cfg)

	devSend(ctx, t, ec, dev.Keys[0], dev.Workflow, wf.PackRequest("w1", "math.add", `{"a":20,"b":22}`))
	devSend(ctx, t, ec, dev.Keys[0], dev.Workflow, wf.PackRequest("w2", "math.add", `{"a":"twenty"}`))
	devSend(ctx, t, ec, dev.Keys[0], dev.Workflow, wf.PackRequest("w3", "no.such.tool", `{}`))

	walk := func(id string) contracts.WorkflowWalk {
		t.Helper()
		out, err := ec.CallContract(ctx, ethereum.CallMsg{To: &dev.Workflow, Data: wf.PackWalk(id)}, nil)
		if err != nil {
			t.Fatalf("walk %s: %v", id, err)
		}
		w, err := wf.UnpackWalk(out)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	for _, id := range []string{"w1", "w2", "w3"} {
		for !walk(id).Reported {
			select {
			case <-ctx.Done():
				t.Fatalf("no result for %s on chain: %+v", id, walk(id))
			case <-time.After(50 * time.Millisecond): // polling the chain
			}
		}
	}
	for _, c := range []struct {
		id, output string
		ok         bool
		reason     string // a fragment of the failure's message
	}{
		{"w1", `{"sum":42}`, true, ""},
		{"w2", "", false, "input schema"},
		{"w3", "", false, `no tool "no.such.tool" in the registry`},
	} {
		w := walk(c.id)
		if w.Ok != c.ok || w.Output != c.output || !strings.Contains(w.Reason, c.reason) || w.Leader != leaderAddr {
			t.Errorf("walk %s on chain: ok %v output %q error %q leader %s; want ok %v output %q, an error with %q, leader %s",
				c.id, w.Ok, w.Output, w.Reason, w.Leader.Hex(), c.ok, c.output, c.reason, leaderAddr.Hex())
		}
	}
	if n, r := add.calls.Load(), add.refused.Load(); n != 1 || r != 0 {
		t.Errorf("the tool ran %d times and refused %d invocations, want 1 and 0 (w2's input breaks its schema, w3 names no tool)", n, r)
	}

	// A second result for w1 from dev 2, which holds a cap, through the
	// router as a node sends it: refused already_reported.
	r := devSend(ctx, t, ec, dev.Keys[2], dev.Router, router.PackExecute("second-result-w1",
		[]contracts.OrdoRouterCall{{Target: dev.Workflow, Data: wf.PackSubmitResult("w1", true, `{"sum":0}`, "")}}))
	refused := false
	for _, l := range r.Logs {
		if e, err := router.UnpackIntentFailedEvent(l); err == nil {
			reason, _ := abi.UnpackRevert(e.Reason)
			refused = reason == "already_reported"
		}
	}
	if !refused {
		t.Errorf("a second result for w1 was not refused already_reported: %d logs", len(r.Logs))
	}

	// One WalkResult per walk on chain, each from the leader.
	logs, err := ec.FilterLogs(ctx, ethereum.FilterQuery{Addresses: []common.Address{dev.Workflow},
		Topics: [][]common.Hash{{wf.GetABI().Events["WalkResult"].ID}}})
	if err != nil {
		t.Fatal(err)
	}
	results := map[string]int{}
	for _, l := range logs {
		e, err := wf.UnpackWalkResultEvent(&l)
		if err != nil {
			t.Fatal(err)
		}
		results[e.Walk]++
		if e.Leader != leaderAddr {
			t.Errorf("WalkResult of %s from %s, want the leader %s", e.Walk, e.Leader.Hex(), leaderAddr.Hex())
		}
	}
	if len(results) != 3 || results["w1"] != 1 || results["w2"] != 1 || results["w3"] != 1 {
		t.Errorf("WalkResult events by walk %v, want one each for w1, w2, w3", results)
	}
	// Every submitResult in the blocks: one applied per walk, the leader's
	// through the router; the refused second one is dev 2's.
	_, submits, problems, err := evmaudit.WorkflowTxs(ctx, ec, dev.Router, dev.Workflow)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	for _, id := range []string{"w1", "w2", "w3"} {
		applied := 0
		for _, s := range submits[id] {
			switch {
			case s.Success && (s.From != leaderAddr || s.Memo == ""):
				t.Errorf("%s: a result applied from %s (memo %q), want the leader's through the router", id, s.From.Hex(), s.Memo)
			case s.Success:
				applied++
			case s.From == leaderAddr:
				t.Errorf("%s: a result of the leader's failed: %+v", id, s)
			}
		}
		if applied != 1 {
			t.Errorf("%s: %d results applied on chain, want 1: %+v", id, applied, submits[id])
		}
	}
	if n := len(submits["w1"]); n != 2 || submits["w1"][1].Reason != "already_reported" {
		t.Errorf("w1's submitResult transactions %+v, want the leader's and dev 2's refused already_reported", submits["w1"])
	}
	if w := walk("w1"); w.Output != `{"sum":42}` {
		t.Errorf("w1's result changed after a second one: %+v", w)
	}
}
