package crash_test

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/testkit"
)

// The leader crash test's knobs.
const (
	lAdminToken = "leader-crash-admin-token-0123456789"

	lBlockTime   = 100 * time.Millisecond
	lToolTimeout = 400 * time.Millisecond
	lStaleAfter  = 6 * time.Second
	lRequesters  = 4
	lMaxRetries  = 3
	lFund        = 1e15
)

// plannedWalk is one request the test emits.
type plannedWalk struct {
	id    string
	tool  string
	bad   bool // the input violates the tool's input schema
	input json.RawMessage
	want  json.RawMessage // the correct output (nil when bad)
}

// planWalks draws n walks: tools, inputs, a share with inputs off schema.
func planWalks(rng *rand.Rand, n int) []*plannedWalk {
	var out []*plannedWalk
	for i := range n {
		w := &plannedWalk{id: fmt.Sprintf("w-%03d", i)}
		x := rng.Float64()
		switch {
		case x < 0.3:
			w.tool = toolOK
		case x < 0.6:
			w.tool = toolFlaky
		default:
			w.tool = toolLiar
		}
		w.bad = rng.Float64() < 0.1
		var in map[string]any
		switch w.tool {
		case toolOK:
			in = map[string]any{"walk": w.id, "text": strings.Repeat("ab", rng.IntN(8))}
			if w.bad {
				in["text"] = rng.IntN(100)
			}
		case toolFlaky:
			in = map[string]any{"walk": w.id, "n": rng.IntN(1000)}
			if w.bad {
				in["n"] = "many"
			}
		case toolLiar:
			in = map[string]any{"walk": w.id, "a": rng.IntN(100), "b": rng.IntN(100)}
			if w.bad {
				delete(in, "b")
			}
		}
		w.input, _ = json.Marshal(in)
		if out, ok := correctOutput(w.tool, w.input); ok && !w.bad {
			w.want = out
		}
		out = append(out, w)
	}
	return out
}

// leaderKill is what the killer saw when it killed the node.
type leaderKill struct {
	n        int
	at       time.Duration
	inFlight int64 // tool invocations being answered
	emitted  int64
	waited   string // what the kill waited for, if anything
	quick    bool
	restart  time.Duration
}

func (k leaderKill) String() string {
	w := ""
	if k.waited != "" {
		w = " (waited for " + k.waited + ")"
	}
	if k.quick {
		w = " (soon after the previous restart)"
	}
	return fmt.Sprintf("kill #%d at %s%s: invocations in flight=%d, requests emitted=%d, restart=%s",
		k.n, k.at.Round(time.Millisecond), w, k.inFlight, k.emitted, k.restart.Round(time.Millisecond))
}

// writeKey writes a seeded ed25519 seed as a key file and returns the
// account's address.
func writeKey(t *testing.T, rng *rand.Rand, path string) chain.Address {
	t.Helper()
	seed := make([]byte, ed25519.SeedSize)
	for i := range seed {
		seed[i] = byte(rng.UintN(256))
	}
	if err := os.WriteFile(path, []byte(hex.EncodeToString(seed)), 0o600); err != nil {
		t.Fatal(err)
	}
	return chain.KeyAddress(ed25519.NewKeyFromSeed(seed))
}

// TestLeaderCrash runs the leader (seed 001) through `ordo serve` against
// `ordo devchain` as processes: a workflow emitting ~150 requests from dev
// accounts to three tools the test serves itself (one always right, one
// slow or failing, one lying about its schema), some with inputs off the
// tool's schema, while the node is SIGKILLed and restarted on the same
// data. At the end every walk has exactly one result on chain, ok exactly
// when its tool's last answer was right, and the node lists every walk
// once, Successful or Dead with a reason.
func TestLeaderCrash(t *testing.T) {
	if !testkit.Long() {
		t.Skip("SKIPPED without ORDO_LONG=1 (.ci/run sets it): the leader crash test builds ordo, runs devchain and a node as processes " +
			"and SIGKILLs the node while tools run (20-60s); run without -short to cover the leader's crash recovery")
	}
	seed := crashSeed(t)
	t.Logf("leader crash seed %d (replay with ORDO_CRASH_SEED=%d)", seed, seed)
	ctx, cancel := context.WithTimeout(t.Context(), 150*time.Second)
	defer cancel()
	began := time.Now()
	rng := rand.New(rand.NewPCG(seed, 0x6c656164))

	dir := t.TempDir()
	bin := buildOrdo(t, dir)
	built := time.Since(began)
	addrs := freeAddrs(t, 2)
	chainAddr, nodeAddr := addrs[0], addrs[1]
	chainURL, nodeURL := "http://"+chainAddr, "http://"+nodeAddr
	chainProc := newProc("devchain", bin, filepath.Join(dir, "devchain.log"), "devchain",
		"--listen", chainAddr, "--data", filepath.Join(dir, "chain"), "--block-time", lBlockTime.String(),
		"--seed", strconv.FormatUint(seed, 10), "--dev-accounts", strconv.Itoa(1+lRequesters))
	farm, err := newToolFarm(seed, 3*lToolTimeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(farm.close)
	t.Cleanup(chainProc.stop)
	chainProc.up(ctx, t, chainURL+"/v1/head")
	dc := devchain.NewClient(chainURL, nil)

	// ---- the leader's accounts, the workflow and the registry ----
	l1 := writeKey(t, rng, filepath.Join(dir, "l1.key"))
	l2 := writeKey(t, rng, filepath.Join(dir, "l2.key"))
	s3 := writeKey(t, rng, filepath.Join(dir, "s3.key"))
	for _, a := range []chain.Address{l1, l2, s3} {
		if _, err := dc.Faucet(ctx, a, lFund); err != nil {
			t.Fatalf("faucet %s: %v", a, err)
		}
	}
	farm.setLeader(string(l1))
	devs, err := dc.DevAccounts(ctx)
	if err != nil || len(devs) < 1+lRequesters {
		t.Fatalf("devchain dev accounts: %d, %v", len(devs), err)
	}
	admin := &devSender{dc: dc, from: devs[0].Address}
	type call struct {
		contract, method string
		args             any
	}
	setup := []call{
		{devchain.WorkflowContract, devchain.WorkflowInit, struct{}{}},
		{devchain.WorkflowContract, devchain.WorkflowGrantLeaderCap, map[string]any{"leader": l1}},
		{devchain.WorkflowContract, devchain.WorkflowGrantLeaderCap, map[string]any{"leader": l1}},
		{devchain.WorkflowContract, devchain.WorkflowGrantLeaderCap, map[string]any{"leader": l2}},
	}
	for _, name := range []string{toolOK, toolFlaky, toolLiar} {
		s := leaderToolSchemas[name]
		setup = append(setup, call{devchain.RegistryContract, "register", map[string]any{"tool": name, "url": farm.url(name),
			"inputSchema": json.RawMessage(s.in), "outputSchema": json.RawMessage(s.out)}})
	}
	var hashes []chain.Hash
	for _, c := range setup {
		h, err := admin.send(ctx, c.contract, c.method, c.args)
		if err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, h)
	}
	for i, h := range hashes {
		st, err := waitIncluded(ctx, dc, h, 20*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if !st.Success {
			t.Fatalf("set-up %s.%s (%s) failed: %s", setup[i].contract, setup[i].method, h, st.Reason)
		}
	}

	// ---- the node ----
	cfgPath := filepath.Join(dir, "ordo.yaml")
	cfg := "# leader crash test\nretryDelay: 200ms\ninclusionTimeoutBlocks: 5\ndevSenders: 0\n" +
		"senders:\n  - keyFile: " + filepath.Join(dir, "l1.key") + "\n  - keyFile: " + filepath.Join(dir, "l2.key") +
		"\n  - keyFile: " + filepath.Join(dir, "s3.key") + "\n" +
		"principals:\n  - principal: admin\n    tokenSHA256: " + auth.TokenSHA256(lAdminToken) + "\n    roles: [admin]\n" +
		"egress:\n  allowLoopback: true\n" + // the tools are served on loopback
		"leader:\n  accounts: [" + string(l1) + ", " + string(l2) + "]\n  toolTimeout: " + lToolTimeout.String() +
		"\n  maxRetries: " + strconv.Itoa(lMaxRetries) + "\n  retryEvery: 200ms\n  sweepAfter: 500ms\n  staleAfter: " + lStaleAfter.String() + "\n"
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	node := newProc("node", bin, filepath.Join(dir, "node.log"), "serve", "--config", cfgPath,
		"--listen", nodeAddr, "--data", filepath.Join(dir, "node"), "--chain", chainURL)
	t.Cleanup(node.stop)
	logOnFailure(t, "leader crash", seed, node, chainProc)
	farm.run.Store(1)
	node.up(ctx, t, nodeURL+"/healthz")
	api := &papi{base: nodeURL, token: lAdminToken, hc: &http.Client{Timeout: 5 * time.Second}}
	var chans []struct {
		Index   int    `json:"index"`
		Account string `json:"account"`
	}
	if err := api.call(ctx, http.MethodGet, "/v1/leader/channels", nil, &chans); err != nil {
		t.Fatalf("GET /v1/leader/channels: %v", err)
	}
	var accts []string
	for _, c := range chans {
		accts = append(accts, c.Account)
	}
	if want := []string{string(l1), string(l1), string(l2)}; strings.Join(accts, ",") != strings.Join(want, ",") {
		t.Fatalf("channels on accounts %v, want %v (L1 holds two caps, L2 one)", accts, want)
	}

	// ---- emission and kills ----
	walks := planWalks(rng, 140+rng.IntN(21))
	loadCtx, stopLoad := context.WithCancel(ctx)
	defer stopLoad()
	loadStart := time.Now()
	errs := make(chan error, 16)
	fail := func(err error) {
		select {
		case errs <- err:
		default:
		}
		stopLoad()
	}
	var nEmitted atomic.Int64
	var wg sync.WaitGroup
	for r := range lRequesters {
		sender := &devSender{dc: dc, from: devs[1+r].Address}
		erng := rand.New(rand.NewPCG(seed, uint64(300+r)))
		wg.Go(func() {
			for i := r; i < len(walks); i += lRequesters {
				w := walks[i]
				_, err := sender.send(loadCtx, devchain.WorkflowContract, devchain.WorkflowRequest,
					map[string]any{"walk": w.id, "tool": w.tool, "input": w.input})
				if err != nil {
					fail(fmt.Errorf("request %s: %w", w.id, err))
					return
				}
				nEmitted.Add(1)
				if !sleepCtx(loadCtx, time.Duration(150+erng.IntN(350))*time.Millisecond) {
					return
				}
			}
		})
	}
	var kills []leaderKill
	killsDone := make(chan struct{})
	wg.Go(func() {
		defer close(killsDone)
		nKills := 5 + rng.IntN(4)
		quick := 1 + rng.IntN(nKills-1)
		for n := range nKills {
			pause := time.Duration(600+rng.IntN(2400)) * time.Millisecond
			if n == quick {
				pause = time.Duration(rng.IntN(150)) * time.Millisecond
			}
			if !sleepCtx(loadCtx, pause) {
				return
			}
			k := leaderKill{n: n + 1, quick: n == quick}
			switch mode := rng.IntN(3); {
			case n == quick:
			case mode == 0:
				// Kill while a tool is answering.
				k.waited = "a tool invocation in flight"
				deadline := time.Now().Add(2 * time.Second)
				for farm.inFlight.Load() == 0 && time.Now().Before(deadline) && sleepCtx(loadCtx, 2*time.Millisecond) {
				}
				if farm.inFlight.Load() == 0 {
					k.waited += ", none came within 2s"
				}
			case mode == 1:
				// Kill while a result transaction is in the sequencer.
				k.waited = "a result in phase sent"
				deadline := time.Now().Add(2 * time.Second)
				found := false
				for !found && time.Now().Before(deadline) && sleepCtx(loadCtx, 5*time.Millisecond) {
					found = resultInFlight(loadCtx, api)
				}
				if !found {
					k.waited += ", none came within 2s"
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

	// ---- the end: no more kills; every walk gets its result ----
	select {
	case <-killsDone:
	case <-ctx.Done():
	}
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
	killsOver := time.Since(loadStart)
	results, waitErr := waitAllResults(ctx, dc, walks, node.done(), 45*time.Second)
	if waitErr != nil {
		t.Fatal(waitErr)
	}
	settled := time.Since(loadStart)

	// ---- the audit ----
	requests, submits, err := chainWorkflowTxs(ctx, dc)
	if err != nil {
		t.Fatalf("reading the blocks: %v", err)
	}
	rep := auditLeaderRun(ctx, t, api, requests, submits, walks, results, farm, []chain.Address{l1, l2})
	t.Logf("leader crash summary: seed=%d walks=%d (bad input %d) kills=%d results{ok=%d failed=%d: %s} events{%s} invocations{%s} walks invoked in 2+ node runs=%d "+
		"submit_result txs{succeeded=%d failed=%d: %s} by{%s} kills-over=%s settled=%s build=%s total=%s",
		seed, len(walks), rep.bad, len(kills), rep.ok, rep.failed, rep.whyFailed, rep.events, rep.invocations, rep.acrossRuns,
		rep.submitOK, rep.submitFailed, rep.failReasons, rep.byLeader, killsOver.Round(time.Millisecond),
		settled.Round(time.Millisecond), built.Round(time.Millisecond), time.Since(began).Round(time.Millisecond))
}

// waitAllResults polls the workflow's walk reads until every walk has a
// result on chain, and returns them by walk.
func waitAllResults(ctx context.Context, dc *devchain.Client, walks []*plannedWalk, exited <-chan struct{}, within time.Duration) (map[string]devchain.Walk, error) {
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	got := map[string]devchain.Walk{}
	var last string
	for {
		var pending []*plannedWalk
		for _, w := range walks {
			if _, ok := got[w.id]; !ok {
				pending = append(pending, w)
			}
		}
		ws, err := parallelMap(ctx, pending, func(ctx context.Context, w *plannedWalk) (devchain.Walk, error) {
			rw, err := readWalk(ctx, dc, w.id)
			if errors.Is(err, chain.ErrNotFound) {
				return devchain.Walk{}, nil // its request is not included yet
			}
			return rw, err
		})
		if err == nil {
			n := 0
			for i, w := range ws {
				if w.Result != nil {
					got[pending[i].id] = w
					n++
				}
			}
			if len(got) == len(walks) {
				return got, nil
			}
			last = fmt.Sprintf("%d of %d walks have a result on chain", len(got), len(walks))
		} else {
			last = err.Error()
		}
		select {
		case <-exited:
			return nil, fmt.Errorf("the node exited on its own before every walk had a result (%s)", last)
		case <-ctx.Done():
			var miss []string
			for _, w := range walks {
				if _, ok := got[w.id]; !ok && len(miss) < 10 {
					miss = append(miss, w.id+" ("+w.tool+")")
				}
			}
			return nil, fmt.Errorf("not every walk has a result on chain within %s: %s; e.g. %s", within, last, strings.Join(miss, ", "))
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// resultInFlight says whether the node lists an Active event whose result
// transaction is in the sequencer (phase sent).
func resultInFlight(ctx context.Context, api *papi) bool {
	var page struct {
		Events []struct {
			Phase string `json:"phase"`
		} `json:"events"`
	}
	if api.call(ctx, http.MethodGet, "/v1/leader/events?status=Active&limit=1000", nil, &page) != nil {
		return false
	}
	for _, e := range page.Events {
		if e.Phase == "sent" {
			return true
		}
	}
	return false
}

// readWalk reads a walk from the workflow.
func readWalk(ctx context.Context, dc *devchain.Client, id string) (devchain.Walk, error) {
	args, _ := json.Marshal(map[string]string{"walk": id})
	raw, err := dc.Call(ctx, devchain.WorkflowContract, "walk", args)
	if err != nil {
		return devchain.Walk{}, fmt.Errorf("workflow.walk %s: %w", id, err)
	}
	var w devchain.Walk
	return w, json.Unmarshal(raw, &w)
}
