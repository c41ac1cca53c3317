package crash_test

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/chain/evm/contracts"
	"github.com/ordolabs/ordo/internal/testkit"
	"github.com/ordolabs/ordo/internal/testkit/evmaudit"
)

// The leader's EVM crash test: fewer walks than on devchain (an EVM block
// takes 250ms on evmdev, 1s on geth --dev) and a longer stale limit.
const (
	levmWalks      = 40
	levmKills      = 4
	levmStaleAfter = 20 * time.Second
)

// TestLeaderCrashOnEvmdev: TestLeaderCrash's run on `ordo evmdev` (a
// process) with the node's devchain config but the evm: section: walks
// requested on chain while the node is killed -9; every walk ends with
// exactly one result on chain, from the leader, ok exactly when its tool's
// last answer was right, and the node lists every walk once. The chain is
// read over plain JSON-RPC (go-ethereum's ethclient, evmaudit).
func TestLeaderCrashOnEvmdev(t *testing.T) {
	runLeaderEVMCrash(t, "evmdev", startEvmdev)
}

// TestLeaderCrashOnGeth: the same on a real `geth --dev`.
func TestLeaderCrashOnGeth(t *testing.T) {
	runLeaderEVMCrash(t, "geth", startGeth)
}

func runLeaderEVMCrash(t *testing.T, name string, start func(context.Context, *testing.T, string, string) evmChainRun) {
	if !testkit.Long() {
		t.Skip("SKIPPED without ORDO_LONG=1 (.ci/run sets it): the leader's EVM crash test builds ordo, runs an EVM chain and a node as processes " +
			"and SIGKILLs the node while tools run (40-120s); set ORDO_LONG=1 to cover the leader's crash recovery on an EVM chain")
	}
	seed := crashSeed(t)
	t.Logf("leader %s crash seed %d (replay with ORDO_CRASH_SEED=%d)", name, seed, seed)
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Second)
	defer cancel()
	began := time.Now()
	rng := rand.New(rand.NewPCG(seed, 0x6c65766d))
	dir := t.TempDir()
	bin := buildOrdo(t, dir)
	ch := start(ctx, t, bin, dir)
	nodeAddr := freeAddrs(t, 1)[0]
	nodeURL := "http://" + nodeAddr
	ec, err := ethclient.DialContext(ctx, ch.httpURL)
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	farm, err := newToolFarm(seed, 3*lToolTimeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(farm.close)

	// ---- caps (L1 two, L2 one) and the tools, from the workflow's admin ----
	owner, err := crypto.LoadECDSA(ch.ownerKeyFile)
	if err != nil {
		t.Fatal(err)
	}
	var leaders [2]common.Address
	for i := range leaders {
		k, err := crypto.LoadECDSA(ch.senderKeyFile[i])
		if err != nil {
			t.Fatal(err)
		}
		leaders[i] = crypto.PubkeyToAddress(k.PublicKey)
	}
	wf, reg := contracts.NewWorkflow(), contracts.NewToolRegistry()
	var grants [][]byte
	for i, want := range []uint64{2, 1} {
		out, err := ec.CallContract(ctx, ethereum.CallMsg{To: &ch.workflow, Data: wf.PackCaps(leaders[i])}, nil)
		if err != nil {
			t.Fatal(err)
		}
		have, err := wf.UnpackCaps(out)
		if err != nil {
			t.Fatal(err)
		}
		for n := have.Uint64(); n < want; n++ { // evmdev granted every dev account one
			grants = append(grants, wf.PackGrantLeaderCap(leaders[i]))
		}
	}
	sendAll(ctx, t, ec, owner, ch.workflow, grants)
	var tools [][]byte
	for _, tn := range []string{toolOK, toolFlaky, toolLiar} {
		s := leaderToolSchemas[tn]
		tools = append(tools, reg.PackRegister(tn, farm.url(tn), s.in, s.out))
	}
	sendAll(ctx, t, ec, owner, ch.registry, tools)

	// ---- the node: the config of devchain's leader crash test but the evm: section ----
	l1, l2 := lowerHex(leaders[0]), lowerHex(leaders[1])
	var senders strings.Builder
	for _, f := range ch.senderKeyFile {
		fmt.Fprintf(&senders, "  - keyFile: %s\n", f)
	}
	cfg := fmt.Sprintf(`# leader EVM crash test
retryDelay: 200ms
inclusionTimeoutBlocks: 20
devSenders: 0
senders:
%sevm:
  urls: [%s, %s]
  router: %q
  reorgDepth: 1
  contracts:
    workflow: {address: %q, abi: Workflow}
    registry: {address: %q, abi: ToolRegistry}
principals:
  - principal: admin
    tokenSHA256: %s
    roles: [admin]
egress:
  allowLoopback: true
leader:
  accounts: [%s, %s]
  toolTimeout: %s
  maxRetries: %d
  retryEvery: 200ms
  sweepAfter: 500ms
  staleAfter: %s
`, senders.String(), ch.wsURL, ch.httpURL, lowerHex(ch.router), lowerHex(ch.workflow), lowerHex(ch.registry),
		auth.TokenSHA256(lAdminToken), l1, l2, lToolTimeout, lMaxRetries, levmStaleAfter)
	cfgPath := filepath.Join(dir, "ordo.yaml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	node := newProc("node", bin, filepath.Join(dir, "node.log"), "serve", "--config", cfgPath,
		"--listen", nodeAddr, "--data", filepath.Join(dir, "node"))
	t.Cleanup(node.stop)
	logOnFailure(t, "leader "+name+" crash", seed, node, ch.proc)
	farm.run.Store(1)
	node.up(ctx, t, nodeURL+"/healthz")
	api := &papi{base: nodeURL, token: lAdminToken, hc: &http.Client{Timeout: 5 * time.Second}}
	var chans []struct {
		Account string `json:"account"`
	}
	if err := api.call(ctx, http.MethodGet, "/v1/leader/channels", nil, &chans); err != nil {
		t.Fatalf("GET /v1/leader/channels: %v", err)
	}
	var accts []string
	for _, c := range chans {
		accts = append(accts, c.Account)
	}
	if want := []string{l1, l1, l2}; strings.Join(accts, ",") != strings.Join(want, ",") {
		t.Fatalf("channels on accounts %v, want %v (L1 holds two caps, L2 one)", accts, want)
	}

	// ---- emission (from the admin, directly to the workflow) and kills ----
	walks := planWalks(rng, levmWalks)
	loadCtx, stopLoad := context.WithCancel(ctx)
	defer stopLoad()
	loadStart := time.Now()
	errs := make(chan error, 4)
	fail := func(err error) {
		select {
		case errs <- err:
		default:
		}
		stopLoad()
	}
	req := newRequester(ctx, t, ec, owner)
	var nEmitted atomic.Int64
	var wg sync.WaitGroup
	erng := rand.New(rand.NewPCG(seed, 0x656d6974))
	wg.Go(func() {
		for _, w := range walks {
			if err := req.send(loadCtx, ch.workflow, wf.PackRequest(w.id, w.tool, string(w.input))); err != nil {
				fail(fmt.Errorf("request %s: %w", w.id, err))
				return
			}
			nEmitted.Add(1)
			if !sleepCtx(loadCtx, time.Duration(150+erng.IntN(350))*time.Millisecond) {
				return
			}
		}
	})
	var kills []leaderKill
	wg.Go(func() {
		for n := range levmKills {
			if !sleepCtx(loadCtx, time.Duration(800+rng.IntN(2400))*time.Millisecond) {
				return
			}
			k := leaderKill{n: n + 1}
			switch rng.IntN(3) {
			case 0:
				k.waited = "a tool invocation in flight"
				deadline := time.Now().Add(3 * time.Second)
				for farm.inFlight.Load() == 0 && time.Now().Before(deadline) && sleepCtx(loadCtx, 2*time.Millisecond) {
				}
				if farm.inFlight.Load() == 0 {
					k.waited += ", none came within 3s"
				}
			case 1:
				k.waited = "a result in phase sent"
				deadline := time.Now().Add(3 * time.Second)
				found := false
				for !found && time.Now().Before(deadline) && sleepCtx(loadCtx, 5*time.Millisecond) {
					found = resultInFlight(loadCtx, api)
				}
				if !found {
					k.waited += ", none came within 3s"
				}
			}
			k.at, k.inFlight, k.emitted = time.Since(loadStart), farm.inFlight.Load(), nEmitted.Load()
			restart, err := node.killRestart(ctx, nodeURL+"/healthz", n+1, func(err error) {
				if err == nil {
					farm.run.Add(1)
				}
			})
			if err != nil {
				fail(err)
				return
			}
			k.restart = restart
			kills = append(kills, k)
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, k := range kills {
		t.Logf("%s", k)
	}
	if t.Failed() {
		t.FailNow()
	}
	req.wait(ctx, t)

	// ---- every walk gets its result; the audit over JSON-RPC ----
	results := waitEVMResults(ctx, t, ec, ch.workflow, walks, node, 120*time.Second)
	settled := time.Since(loadStart)
	if err := waitEVMBlocks(ctx, ec, 4, 60*time.Second); err != nil { // let any straggler land
		t.Fatal(err)
	}
	requests, subs, problems, err := evmaudit.WorkflowTxs(ctx, ec, ch.router, ch.workflow)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	submits := map[string][]chainSubmit{}
	for walk, ss := range subs {
		for _, s := range ss {
			submits[walk] = append(submits[walk], chainSubmit{height: s.Height, from: chain.Address(lowerHex(s.From)), ok: s.OK,
				success: s.Success, reason: s.Reason, memo: s.Memo})
		}
	}
	rep := auditLeaderRun(ctx, t, api, requests, submits, walks, results, farm, []chain.Address{chain.Address(l1), chain.Address(l2)})
	t.Logf("leader %s crash summary: seed=%d walks=%d (bad input %d) kills=%d results{ok=%d failed=%d: %s} events{%s} invocations{%s} walks invoked in 2+ node runs=%d "+
		"submit_result txs{succeeded=%d failed=%d: %s} by{%s} settled=%s total=%s (tool invocations are unsigned on EVM: no ed25519 key)",
		name, seed, len(walks), rep.bad, len(kills), rep.ok, rep.failed, rep.whyFailed, rep.events, rep.invocations, rep.acrossRuns,
		rep.submitOK, rep.submitFailed, rep.failReasons, rep.byLeader, settled.Round(time.Millisecond), time.Since(began).Round(time.Millisecond))
}

func lowerHex(a common.Address) string { return strings.ToLower(a.Hex()) }

// requester sends transactions from one key at consecutive nonces with
// the chain's fees, without waiting for them; wait waits for every receipt.
type requester struct {
	ec     *ethclient.Client
	key    *ecdsa.PrivateKey
	from   common.Address
	id     *big.Int
	nonce  uint64
	hashes []common.Hash
}

func newRequester(ctx context.Context, t *testing.T, ec *ethclient.Client, key *ecdsa.PrivateKey) *requester {
	t.Helper()
	r := &requester{ec: ec, key: key, from: crypto.PubkeyToAddress(key.PublicKey)}
	var err error
	if r.id, err = ec.ChainID(ctx); err != nil {
		t.Fatal(err)
	}
	if r.nonce, err = ec.PendingNonceAt(ctx, r.from); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *requester) send(ctx context.Context, to common.Address, data []byte) error {
	gas, err := r.ec.EstimateGas(ctx, ethereum.CallMsg{From: r.from, To: &to, Data: data})
	if err != nil {
		return fmt.Errorf("estimating: %w", err)
	}
	tip, err := r.ec.SuggestGasTipCap(ctx)
	if err != nil {
		return err
	}
	hd, err := r.ec.HeaderByNumber(ctx, nil)
	if err != nil {
		return err
	}
	tx, err := types.SignNewTx(r.key, types.LatestSignerForChainID(r.id), &types.DynamicFeeTx{ChainID: r.id, Nonce: r.nonce,
		GasTipCap: tip, GasFeeCap: new(big.Int).Add(new(big.Int).Mul(hd.BaseFee, big.NewInt(3)), tip), Gas: gas * 3 / 2, To: &to, Data: data})
	if err != nil {
		return err
	}
	if err := r.ec.SendTransaction(ctx, tx); err != nil {
		return err
	}
	r.nonce++
	r.hashes = append(r.hashes, tx.Hash())
	return nil
}

func (r *requester) wait(ctx context.Context, t *testing.T) {
	t.Helper()
	for _, h := range r.hashes {
		pollEVM(ctx, t, 60*time.Second, 100*time.Millisecond, func() (bool, string) {
			rc, err := r.ec.TransactionReceipt(ctx, h)
			if err != nil {
				return false, fmt.Sprintf("no receipt for request %s", h.Hex())
			}
			if rc.Status != types.ReceiptStatusSuccessful {
				t.Fatalf("request %s reverted", h.Hex())
			}
			return true, ""
		})
	}
}

// waitEVMResults polls the workflow's walk reads over JSON-RPC until every
// walk has a result, and returns them in devchain's form by walk.
func waitEVMResults(ctx context.Context, t *testing.T, ec *ethclient.Client, workflow common.Address, walks []*plannedWalk, node *proc, within time.Duration) map[string]devchain.Walk {
	t.Helper()
	wf := contracts.NewWorkflow()
	got := map[string]devchain.Walk{}
	pollEVM(ctx, t, within, 250*time.Millisecond, func() (bool, string) {
		select {
		case <-node.done():
			t.Fatalf("the node exited on its own before every walk had a result (%d of %d)", len(got), len(walks))
		default:
		}
		var missing []string
		for _, w := range walks {
			if _, ok := got[w.id]; ok {
				continue
			}
			out, err := ec.CallContract(ctx, ethereum.CallMsg{To: &workflow, Data: wf.PackWalk(w.id)}, nil)
			if err != nil { // not requested yet
				missing = append(missing, w.id)
				continue
			}
			r, err := wf.UnpackWalk(out)
			if err != nil {
				t.Fatal(err)
			}
			if !r.Reported {
				missing = append(missing, w.id+" ("+w.tool+")")
				continue
			}
			dw := devchain.Walk{Walk: r.Walk, Tool: r.Tool, Input: []byte(r.Input), Requester: chain.Address(lowerHex(r.Requester)), Height: r.Height,
				Result: &devchain.WalkResultRecord{OK: r.Ok, Error: r.Reason, Leader: chain.Address(lowerHex(r.Leader)), Height: r.ResultHeight}}
			if r.Ok {
				dw.Result.Output = []byte(r.Output)
			}
			got[w.id] = dw
		}
		return len(missing) == 0, fmt.Sprintf("%d of %d walks have a result on chain; e.g. %v", len(got), len(walks), missing[:min(len(missing), 10)])
	})
	return got
}
