package crash_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/chain/evm/contracts"
	"github.com/ordolabs/ordo/internal/processor"
	"github.com/ordolabs/ordo/internal/testkit"
	"github.com/ordolabs/ordo/internal/testkit/evmaudit"
)

// The processor's EVM crash test: one processor, ticked by the node every
// pevmAutoTick, takes pevmBatches of each kind while the node is killed -9
// pevmKills times.
const (
	pevmProc     = "p"
	pevmAutoTick = "100ms"
	pevmBatches  = 4
	pevmKills    = 3
)

// pevmBatch is a planned batch and what its outcome must be.
type pevmBatch struct {
	id     string
	spec   string
	status processor.Status
	// executed is the outcome's count of actions executed.
	executed int
	// calls are the library calls ("act m", "actConfirmed m") of the
	// batch's units; a unit's executions are the router transactions
	// holding its call.
	calls []string
	// soft is the soft failures of an actConfirmed batch (its executions
	// are soft+1 applied transactions).
	soft int
}

// planEVMBatches: atomic batches that succeed ("ok-"), atomic batches
// that always fail ("rej-", two attempts), non-atomic batches whose second
// action always fails ("part-", two attempts of it), and non-atomic
// actions confirmed by the library after 0-2 soft failures ("soft-").
// configure lists the library configure calls they need.
func planEVMBatches() (bs []pevmBatch, configure [][]any) {
	retry := func(n int) string {
		return fmt.Sprintf(`{"times":{"amount":%d},"interval":{"blocks":1}}`, n)
	}
	act := func(m string) string {
		return fmt.Sprintf(`{"contract":"library","method":"act","args":{"method":%q}}`, m)
	}
	for i := range pevmBatches {
		id := fmt.Sprint("ok-", i)
		bs = append(bs, pevmBatch{id: id, status: processor.Executed, executed: 2, calls: []string{"act " + id},
			spec: fmt.Sprintf(`{"id":%q,"priority":"high","msgs":[%s,%s],"actionsConfig":{"atomic":{"actions":[{},{}],"retryLogic":%s}}}`,
				id, act(id), act(id+"-b"), retry(3))})
		id = fmt.Sprint("rej-", i)
		bs = append(bs, pevmBatch{id: id, status: processor.Rejected, calls: []string{"act " + id},
			spec: fmt.Sprintf(`{"id":%q,"priority":"medium","msgs":[%s,%s],"actionsConfig":{"atomic":{"actions":[{},{}],"retryLogic":%s}}}`,
				id, act(id+"-a"), act(id), retry(1))})
		configure = append(configure, []any{id, uint64(1) << 62, uint64(0), "down"})
		id = fmt.Sprint("part-", i)
		bs = append(bs, pevmBatch{id: id, status: processor.PartiallyExecuted, executed: 1, calls: []string{"act " + id + "-a", "act " + id},
			spec: fmt.Sprintf(`{"id":%q,"priority":"high","msgs":[%s,%s],"actionsConfig":{"nonAtomic":{"actions":[{"retryLogic":%s},{"retryLogic":%s}]}}}`,
				id, act(id+"-a"), act(id), retry(3), retry(1))})
		configure = append(configure, []any{id, uint64(1) << 62, uint64(0), "down"})
		id = fmt.Sprint("soft-", i)
		soft := i % 3
		bs = append(bs, pevmBatch{id: id, status: processor.Executed, executed: 1, calls: []string{"actConfirmed " + id}, soft: soft,
			spec: fmt.Sprintf(`{"id":%q,"priority":"medium","msgs":[{"contract":"library","method":"act_confirmed","args":{"method":%q,"execution":%q}}],`+
				`"actionsConfig":{"nonAtomic":{"actions":[{"retryLogic":%s,"callbackConfirmation":{"contract":"library"}}]}}}`,
				id, id, pevmProc+"/"+id+"/0", retry(3))})
		if soft > 0 {
			configure = append(configure, []any{id, uint64(soft), uint64(0), ""})
		}
	}
	return bs, configure
}

// TestProcessorCrashOnEvmdev: the processor on `ordo evmdev` (a process),
// its node killed -9 under load; each batch's outcome, delivered under its
// key, is the one its library calls imply, and the chain (read over plain
// JSON-RPC) holds each execution once.
func TestProcessorCrashOnEvmdev(t *testing.T) {
	runProcessorEVMCrash(t, "evmdev", startEvmdev)
}

// TestProcessorCrashOnGeth: the same on a real `geth --dev`.
func TestProcessorCrashOnGeth(t *testing.T) {
	runProcessorEVMCrash(t, "geth", startGeth)
}

func runProcessorEVMCrash(t *testing.T, name string, start func(context.Context, *testing.T, string, string) evmChainRun) {
	if !testkit.Long() {
		t.Skip("SKIPPED without ORDO_LONG=1 (.ci/run sets it): the processor's EVM crash test builds ordo, runs an EVM chain and a node as processes " +
			"and SIGKILLs the node under load (40-120s); run without -short to cover the processor's callbacks across crashes on an EVM chain")
	}
	seed := crashSeed(t)
	t.Logf("processor %s crash seed %d (replay with ORDO_CRASH_SEED=%d)", name, seed, seed)
	ctx, cancel := context.WithTimeout(t.Context(), 240*time.Second)
	defer cancel()
	began := time.Now()
	rng := rand.New(rand.NewPCG(seed, 0x70657663))
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

	// ---- the library's failures, configured from the router's owner ----
	plan, configure := planEVMBatches()
	owner, err := crypto.LoadECDSA(ch.ownerKeyFile)
	if err != nil {
		t.Fatal(err)
	}
	lib := contracts.NewLibrary()
	var datas [][]byte
	for _, c := range configure {
		datas = append(datas, lib.PackConfigure(c[0].(string), c[1].(uint64), c[2].(uint64), c[3].(string)))
	}
	sendAll(ctx, t, ec, owner, ch.library, datas)

	// ---- the node: the config of devchain's crash test but the evm: section ----
	var senders strings.Builder
	for _, f := range ch.senderKeyFile {
		fmt.Fprintf(&senders, "  - keyFile: %s\n", f)
	}
	cfg := fmt.Sprintf(`# processor EVM crash test
retryDelay: 200ms
inclusionTimeoutBlocks: 20
devSenders: 0
senders:
%sevm:
  urls: [%s, %s]
  router: %q
  reorgDepth: 1
  contracts:
    library: {address: %q, abi: Library}
principals:
  - principal: admin
    tokenSHA256: %s
    roles: [admin]
  - principal: app
    tokenSHA256: %s
    roles: [read]
egress:
  allowLoopback: true
processor:
  backoffMin: 50ms
  backoffMax: 400ms
  deliveryTimeout: 1s
  checkEvery: 1s
`, senders.String(), ch.wsURL, ch.httpURL, strings.ToLower(ch.router.Hex()), strings.ToLower(ch.library.Hex()),
		auth.TokenSHA256(pAdminToken), auth.TokenSHA256(pAppToken))
	cfgPath := filepath.Join(dir, "ordo.yaml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	node := newProc("node", bin, filepath.Join(dir, "node.log"), "serve", "--config", cfgPath,
		"--listen", nodeAddr, "--data", filepath.Join(dir, "node"))
	t.Cleanup(node.stop)
	logOnFailure(t, "processor "+name+" crash", seed, node, ch.proc)
	recv, err := newReceiver(seed)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(recv.close)
	node.up(ctx, t, nodeURL+"/healthz")
	hc := &http.Client{Timeout: 5 * time.Second}
	admin := &papi{base: nodeURL, token: pAdminToken, hc: hc}
	app := &papi{base: nodeURL, token: pAppToken, hc: hc}
	if err := admin.create(ctx, processor.CreateSpec{Name: pevmProc, Owner: "app", CallbackURL: recv.url, AutoTick: pevmAutoTick}); err != nil {
		t.Fatal(err)
	}

	// ---- load and kills ----
	loadCtx, stopLoad := context.WithCancel(ctx)
	defer stopLoad()
	errs := make(chan error, 2)
	var wg sync.WaitGroup
	var restarts []time.Duration
	inFlightKills := 0
	wg.Go(func() {
		for n := 1; n <= pevmKills; n++ {
			if !sleepCtx(loadCtx, time.Duration(700+rng.IntN(1800))*time.Millisecond) {
				return
			}
			if v, err := app.get(loadCtx, pevmProc); err == nil && v.Counts.Executing+v.Counts.Pending > 0 {
				inFlightKills++
			}
			d, err := node.killRestart(loadCtx, nodeURL+"/healthz", n, func(error) { recv.kill() })
			if err != nil {
				errs <- fmt.Errorf("kill #%d: %w", n, err)
				stopLoad()
				return
			}
			restarts = append(restarts, d)
		}
	})
	order := rng.Perm(len(plan))
	wg.Go(func() {
		for _, i := range order {
			if err := addRaw(loadCtx, app, plan[i].spec); err != nil {
				errs <- fmt.Errorf("add %s: %w", plan[i].id, err)
				stopLoad()
				return
			}
			if !sleepCtx(loadCtx, time.Duration(50+rng.IntN(150))*time.Millisecond) {
				return
			}
		}
	})
	wg.Wait()
	close(errs)
	failOn(t, errs)
	recv.stopHolding()
	if inFlightKills == 0 {
		t.Errorf("no kill landed while an execution was in flight or pending: the test did not exercise what it is for")
	}

	// ---- every batch delivered: a 2xx under its key ----
	pollEVM(ctx, t, 120*time.Second, 200*time.Millisecond, func() (bool, string) {
		byKey, _, _, _ := recv.snapshot()
		var missing []string
		for _, b := range plan {
			if !delivered(byKey[pevmProc+"/"+b.id]) {
				missing = append(missing, b.id)
			}
		}
		return len(missing) == 0, fmt.Sprintf("no 2xx delivery yet for %v", missing)
	})
	if err := waitEVMBlocks(ctx, ec, 4, 30*time.Second); err != nil { // let any straggler land
		t.Fatal(err)
	}

	// ---- the audit: the receiver, the chain over JSON-RPC ----
	outcomes, problems, err := evmaudit.LibraryOutcomes(ctx, ec, ch.router, ch.library)
	if err != nil {
		t.Fatal(err)
	}
	byKey, total, fails, held := recv.snapshot()
	count := func(data []byte, unpack func([]byte) (*big.Int, error)) uint64 {
		out, err := ec.CallContract(ctx, ethereum.CallMsg{To: &ch.library, Data: data}, nil)
		if err != nil {
			t.Fatal(err)
		}
		n, err := unpack(out)
		if err != nil {
			t.Fatal(err)
		}
		return n.Uint64()
	}
	for _, b := range plan {
		key := pevmProc + "/" + b.id
		var first *processor.CallbackBody
		for _, d := range byKey[key] {
			if first == nil {
				first = &d.body
			} else if d.body.Outcome != first.Outcome || d.body.Executions != first.Executions {
				problems = append(problems, fmt.Sprintf("%s: delivered %+v and %+v under one key", key, *first, d.body))
			}
		}
		if first == nil {
			continue // the poll above failed the test
		}
		executions := 0
		for _, c := range b.calls {
			o := outcomes[c]
			executions += o["applied"] + o["failed"] + o["reverted"]
		}
		last := outcomes[b.calls[len(b.calls)-1]]
		var want []string
		switch {
		case first.Outcome.Status != b.status || first.Outcome.Executed != b.executed:
			want = append(want, fmt.Sprintf("outcome %+v, want %s(%d)", first.Outcome, b.status, b.executed))
		case first.Executions != executions:
			want = append(want, fmt.Sprintf("%d executions reported, the chain holds %d (%v)", first.Executions, executions, outcomes))
		case b.status == processor.Rejected || b.status == processor.PartiallyExecuted:
			if f := last["failed"] + last["reverted"]; f != 2 || last["applied"] != 0 {
				want = append(want, fmt.Sprintf("the chain holds %d failures and %d applications of %s, want 2 and 0", f, last["applied"], b.calls[len(b.calls)-1]))
			}
		case strings.HasPrefix(b.id, "soft-"):
			a := count(lib.PackAttempts(pevmProc+"/"+b.id+"/0"), lib.UnpackAttempts)
			if last["applied"] != b.soft+1 || a != uint64(b.soft+1) {
				want = append(want, fmt.Sprintf("the chain holds %d applications of %s and attempts %d, want %d", last["applied"], b.calls[0], a, b.soft+1))
			}
		default:
			if last["applied"] != 1 {
				want = append(want, fmt.Sprintf("applied %d times on chain, want 1", last["applied"]))
			}
		}
		for _, w := range want {
			problems = append(problems, key+": "+w)
		}
	}
	for _, p := range problems {
		t.Error(p)
	}
	t.Logf("processor %s crash summary: seed=%d batches=%d kills=%d (%d with executions in flight) restarts=%v deliveries=%d (answered 500: %d, held: %d) total=%s",
		name, seed, len(plan), len(restarts), inFlightKills, restarts, total, fails, held, time.Since(began).Round(time.Millisecond))
}

// delivered reports whether one of ds was answered 2xx.
func delivered(ds []delivery) bool {
	for _, d := range ds {
		if d.status/100 == 2 {
			return true
		}
	}
	return false
}

// addRaw adds a batch given as JSON, again after a transport error or a
// 503 (the node killed or starting); a 409 is a batch added before.
func addRaw(ctx context.Context, a *papi, spec string) error {
	for {
		err := a.call(ctx, http.MethodPost, procPath(pevmProc, "batches"), json.RawMessage(spec), nil)
		switch st := statusOf(err); {
		case err == nil, st == http.StatusConflict:
			return nil
		case st != 0 && st != http.StatusServiceUnavailable:
			return err
		}
		if !sleepCtx(ctx, 100*time.Millisecond) {
			return ctx.Err()
		}
	}
}

// sendAll sends each data to `to` from key at consecutive nonces, with the
// chain's fees and estimates, and waits for every receipt to succeed.
func sendAll(ctx context.Context, t *testing.T, ec *ethclient.Client, key *ecdsa.PrivateKey, to common.Address, datas [][]byte) {
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
	tip, err := ec.SuggestGasTipCap(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hd, err := ec.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	feeCap := new(big.Int).Add(new(big.Int).Mul(hd.BaseFee, big.NewInt(2)), tip)
	var hashes []common.Hash
	for i, data := range datas {
		gas, err := ec.EstimateGas(ctx, ethereum.CallMsg{From: from, To: &to, Data: data})
		if err != nil {
			t.Fatal(err)
		}
		tx, err := types.SignNewTx(key, types.LatestSignerForChainID(id), &types.DynamicFeeTx{ChainID: id, Nonce: nonce + uint64(i),
			GasTipCap: tip, GasFeeCap: feeCap, Gas: gas * 3 / 2, To: &to, Data: data})
		if err != nil {
			t.Fatal(err)
		}
		if err := ec.SendTransaction(ctx, tx); err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, tx.Hash())
	}
	for _, h := range hashes {
		pollEVM(ctx, t, 60*time.Second, 100*time.Millisecond, func() (bool, string) {
			r, err := ec.TransactionReceipt(ctx, h)
			if err != nil {
				return false, fmt.Sprintf("no receipt for %s", h.Hex())
			}
			if r.Status != types.ReceiptStatusSuccessful {
				t.Fatalf("%s reverted", h.Hex())
			}
			return true, ""
		})
	}
}
