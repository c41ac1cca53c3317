package crash_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ordolabs/ordo/client"
	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/processor"
	"github.com/ordolabs/ordo/internal/testkit"
)

// The processor crash test's principals: an admin, the owner of both
// processors ("app") and another principal ("other"); a stranger has no
// token.
const (
	pAdminToken = "proc-crash-admin-token-0123456789"
	pAppToken   = "proc-crash-app-token-0123456789"
	pOtherToken = "proc-crash-other-token-0123456789"

	pBlockTime  = 100 * time.Millisecond
	pDevSenders = 10
	pTickers    = 4
)

// procKill is what the killer saw when it killed the node.
type procKill struct {
	n             int
	at            time.Duration
	ticksInFlight int64
	heldAnswers   int64
	outcomes      int
	waitedHeld    bool
	waitedTick    bool
	quick         bool
	restart       time.Duration
}

func (k procKill) String() string {
	w := ""
	if k.waitedHeld {
		w = " (waited for a held delivery)"
	}
	if k.quick {
		w = " (soon after the previous restart)"
	}
	if k.waitedTick {
		w = " (waited for a tick in flight)"
	}
	return fmt.Sprintf("kill #%d at %s%s: ticks in flight=%d, deliveries held by the receiver=%d, outcomes so far=%d, restart=%s",
		k.n, k.at.Round(time.Millisecond), w, k.ticksInFlight, k.heldAnswers, k.outcomes, k.restart.Round(time.Millisecond))
}

// TestProcessorCrash runs the processor (seed 002) through the node's API
// against `ordo devchain` as processes: batches of each kind against
// library methods set to fail, ticked from several goroutines by other
// principals and strangers, callbacks to a webhook receiver of the test
// that fails and holds answers, while the node is SIGKILLed and restarted
// on the same data. At the end each batch has exactly one outcome, the
// one its configured failures imply, delivered under one key; and the
// chain shows no execution twice and no unit over its attempts.
func TestProcessorCrash(t *testing.T) {
	if !testkit.Long() {
		t.Skip("SKIPPED without ORDO_LONG=1 (.ci/run sets it): the processor crash test builds ordo, runs devchain and a node as processes " +
			"and SIGKILLs the node under load (20-60s); run without -short to cover the processor's crash recovery")
	}
	seed := crashSeed(t)
	t.Logf("processor crash seed %d (replay with ORDO_CRASH_SEED=%d)", seed, seed)
	ctx, cancel := context.WithTimeout(t.Context(), 150*time.Second)
	defer cancel()
	began := time.Now()
	rng := rand.New(rand.NewPCG(seed, 0x70726f63))

	dir := t.TempDir()
	bin := buildOrdo(t, dir)
	addrs := freeAddrs(t, 2)
	chainAddr, nodeAddr := addrs[0], addrs[1]
	chainURL, nodeURL := "http://"+chainAddr, "http://"+nodeAddr
	chainProc := newProc("devchain", bin, filepath.Join(dir, "devchain.log"), "devchain",
		"--listen", chainAddr, "--data", filepath.Join(dir, "chain"), "--block-time", pBlockTime.String(),
		"--seed", strconv.FormatUint(seed, 10))
	cfgPath := filepath.Join(dir, "ordo.yaml")
	cfg := "# processor crash test\nretryDelay: 200ms\ninclusionTimeoutBlocks: 5\nprincipals:\n" +
		"  - principal: admin\n    tokenSHA256: " + auth.TokenSHA256(pAdminToken) + "\n    roles: [admin]\n" +
		"  - principal: app\n    tokenSHA256: " + auth.TokenSHA256(pAppToken) + "\n    roles: [read]\n" +
		"  - principal: other\n    tokenSHA256: " + auth.TokenSHA256(pOtherToken) + "\n    roles: [read]\n" +
		"egress:\n  allowLoopback: true\n" + // the callback receiver is on loopback
		"processor:\n  backoffMin: 50ms\n  backoffMax: 400ms\n  deliveryTimeout: 1s\n  checkEvery: 1s\n"
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	node := newProc("node", bin, filepath.Join(dir, "node.log"), "serve", "--config", cfgPath,
		"--listen", nodeAddr, "--data", filepath.Join(dir, "node"), "--chain", chainURL,
		"--dev-senders", strconv.Itoa(pDevSenders))
	recv, err := newReceiver(seed)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(recv.close)
	t.Cleanup(chainProc.stop)
	t.Cleanup(node.stop)
	logOnFailure(t, "processor crash", seed, node, chainProc)
	chainProc.up(ctx, t, chainURL+"/v1/head")
	dc := devchain.NewClient(chainURL, nil)

	// ---- the plan, and the library's failures configured on the chain ----
	plan := planBatches(rng)
	removable := planRemovable()
	probe := planSimple("probe", kindAuthzProbe)
	all := append(append(append([]*plannedBatch(nil), plan...), removable...), probe)
	dev, err := newDevSender(ctx, dc)
	if err != nil {
		t.Fatal(err)
	}
	for _, calls := range configureCalls(all) {
		h, err := dev.send(ctx, devchain.MulticallContract, devchain.MulticallMethod, map[string]any{"calls": calls})
		if err != nil {
			t.Fatal(err)
		}
		st, err := waitIncluded(ctx, dc, h, 20*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if !st.Success {
			t.Fatalf("library configure multicall %s failed: %s", h, st.Reason)
		}
	}

	node.up(ctx, t, nodeURL+"/healthz")
	hc := &http.Client{Timeout: 5 * time.Second}
	admin := &papi{base: nodeURL, token: pAdminToken, hc: hc}
	owner := &papi{base: nodeURL, token: pAppToken, hc: hc}
	other := &papi{base: nodeURL, token: pOtherToken, hc: hc}
	stranger := &papi{base: nodeURL, hc: hc}
	for _, s := range []processor.CreateSpec{
		{Name: procManual, Owner: "app", CallbackURL: recv.url, Lanes: procLanes},
		{Name: procAuto, Owner: "app", CallbackURL: recv.url, Lanes: procLanes, AutoTick: procAutoTick},
	} {
		if err := other.create(ctx, s); statusOf(err) != http.StatusForbidden {
			t.Fatalf("POST /v1/processors as other (no admin role): %v, want 403", err)
		}
		if err := admin.create(ctx, s); err != nil {
			t.Fatalf("POST /v1/processors %s as admin: %v", s.Name, err)
		}
	}
	checkAccess(ctx, t, owner, other, stranger, probe)
	if t.Failed() {
		t.FailNow()
	}

	// ---- load, ticks, confirmations, removals and kills ----
	st := &procRun{owner: owner, dev: dev, all: all, ended: map[string]callbackRow{}}
	loadCtx, stopLoad := context.WithCancel(ctx)
	defer stopLoad()
	tickCtx, stopTicks := context.WithCancel(ctx)
	defer stopTicks()
	loadStart := time.Now()
	errs := make(chan error, 16)
	fail := func(err error) {
		select {
		case errs <- err:
		default:
		}
		stopLoad()
		stopTicks()
	}
	var wg, tickWG sync.WaitGroup
	var ticksInFlight atomic.Int64
	tickCounts := &sync.Map{}
	for w := range pTickers {
		as := []*papi{other, other, stranger, other}[w]
		proc := procManual
		if w == pTickers-1 {
			proc = procAuto
		}
		trng := rand.New(rand.NewPCG(seed, uint64(100+w)))
		tickWG.Go(func() { runTicker(tickCtx, as, proc, trng, &ticksInFlight, tickCounts) })
	}
	adds := map[string][]*plannedBatch{}
	for _, b := range plan {
		adds[b.proc] = append(adds[b.proc], b)
	}
	for _, proc := range []string{procManual, procAuto} {
		arng := rand.New(rand.NewPCG(seed, uint64(len(proc))+200+uint64(proc[1])))
		wg.Go(func() {
			for i, b := range adds[proc] {
				if proc == procManual && i == len(adds[proc])/2 {
					// Midway, while the kills go on: pause, add, remove, resume.
					if err := st.removals(loadCtx, removable); err != nil {
						fail(err)
						return
					}
				}
				if err := addBatch(loadCtx, owner, b); err != nil {
					fail(err)
					return
				}
				if !sleepCtx(loadCtx, time.Duration(40+arng.IntN(80))*time.Millisecond) {
					return
				}
			}
		})
	}
	wg.Go(func() { st.poll(loadCtx) })
	wg.Go(func() { st.confirmByOwner(loadCtx) })
	wg.Go(func() { st.confirmByChain(loadCtx) })
	var kills []procKill
	killsDone := make(chan struct{})
	wg.Go(func() {
		defer close(killsDone)
		// One of the first two kills waits for a delivery the receiver
		// holds; another waits for a tick in flight.
		// One kill (after the first restart) comes 0-100ms after the node
		// is healthy again, while it recovers.
		nKills := 6 + rng.IntN(3)
		heldKill := rng.IntN(2)
		tickKill := 2 + rng.IntN(nKills-2)
		quickKill := 1 + rng.IntN(nKills-1)
		for n := range nKills {
			pause := time.Duration(150+rng.IntN(650)) * time.Millisecond
			if n == quickKill {
				pause = time.Duration(rng.IntN(100)) * time.Millisecond
			}
			if !sleepCtx(loadCtx, pause) {
				return
			}
			k := procKill{n: n + 1, quick: n == quickKill}
			switch n {
			case heldKill:
				k.waitedHeld = true
				deadline := time.Now().Add(5 * time.Second)
				for recv.heldNow.Load() == 0 && time.Now().Before(deadline) && sleepCtx(loadCtx, 2*time.Millisecond) {
				}
			case tickKill:
				k.waitedTick = true
				deadline := time.Now().Add(2 * time.Second)
				for ticksInFlight.Load() == 0 && time.Now().Before(deadline) && loadCtx.Err() == nil {
					runtime.Gosched()
				}
			}
			k.at, k.ticksInFlight, k.heldAnswers, k.outcomes = time.Since(loadStart), ticksInFlight.Load(), recv.heldNow.Load(), st.outcomes()
			// Held answers go to a dead connection.
			restart, err := node.killRestart(ctx, nodeURL+"/healthz", n+1, func(error) { recv.kill() })
			if err != nil {
				fail(err)
				return
			}
			k.restart = restart
			kills = append(kills, k)
		}
	})

	// ---- the end: no more kills; every batch ends and its callback is delivered ----
	select {
	case <-killsDone:
	case <-ctx.Done():
	}
	recv.stopHolding()
	killsOver := time.Since(loadStart)
	waitErr := st.waitAllDelivered(loadCtx, recv, node.done(), 60*time.Second)
	stopLoad()
	stopTicks()
	wg.Wait()
	tickWG.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if waitErr != nil {
		t.Error(waitErr)
	} else {
		for _, v := range st.vanished() {
			t.Error(v)
		}
	}
	for _, k := range kills {
		t.Logf("%s", k)
	}
	var tc []string
	tickCounts.Range(func(k, v any) bool {
		tc = append(tc, fmt.Sprintf("%s=%d", k, v.(*atomic.Int64).Load()))
		return true
	})
	sort.Strings(tc)
	t.Logf("ticks: %s", strings.Join(tc, " "))
	if t.Failed() {
		t.FailNow()
	}
	settled := time.Since(loadStart)

	if rows, err := st.readCallbacks(ctx); err == nil {
		logLastCallbacks(t, rows)
	}

	// ---- the checks ----
	cl := client.New(nodeURL, hc, client.WithToken(pAppToken))
	rep := checkProcessorRun(ctx, t, owner, cl, dc, dev, recv, all)
	byKey, total, fails, held := recv.snapshot()
	dupKeys := 0
	for _, ds := range byKey {
		if len(ds) > 1 {
			dupKeys++
		}
	}
	t.Logf("processor crash summary: seed=%d batches=%d outcomes{%s} kills=%d deliveries=%d (answered 500: %d, held: %d) keysDelivered=%d (%d more than once) "+
		"chainTxs=%d executions=%d (failed on chain %d) maxAttemptsSeen=%d kills-over=%s settled=%s total=%s",
		seed, len(all), rep.outcomes(), len(kills), total, fails, held, rep.keys, dupKeys, rep.chainTxs, rep.execs, rep.execFailed, rep.maxAttempt,
		killsOver.Round(time.Millisecond), settled.Round(time.Millisecond), time.Since(began).Round(time.Millisecond))
}

// checkAccess checks that another principal gets 403 and a stranger 401 on
// the mutating processor routes, and that neither changed anything; then
// the owner adds the refused batch.
func checkAccess(ctx context.Context, t *testing.T, owner, other, stranger *papi, probe *plannedBatch) {
	t.Helper()
	before, err := owner.get(ctx, procManual)
	if err != nil {
		t.Fatalf("GET processor as owner: %v", err)
	}
	type try struct {
		route string
		fn    func(a *papi) error
	}
	tries := []try{
		{"POST …/batches", func(a *papi) error { _, err := a.add(ctx, procManual, probe.spec); return err }},
		{"POST …/pause", func(a *papi) error { return a.pause(ctx, procManual, false) }},
		{"POST …/resume", func(a *papi) error { return a.pause(ctx, procManual, true) }},
		{"DELETE …/queues/medium/0", func(a *papi) error { _, err := a.remove(ctx, procManual, processor.Medium, 0); return err }},
		{"POST …/confirmations", func(a *papi) error { return a.confirm(ctx, procManual, probe.proc+"/"+probe.id+"/0/1", true) }},
	}
	for _, tr := range tries {
		if got := statusOf(tr.fn(other)); got != http.StatusForbidden {
			t.Errorf("%s as other: status %d, want 403", tr.route, got)
		}
		if got := statusOf(tr.fn(stranger)); got != http.StatusUnauthorized {
			t.Errorf("%s with no token: status %d, want 401", tr.route, got)
		}
	}
	if _, err := stranger.get(ctx, procManual); statusOf(err) != http.StatusUnauthorized {
		t.Errorf("GET processor with no token: %v, want 401 (reads need read)", err)
	}
	after, err := owner.get(ctx, procManual)
	if err != nil {
		t.Fatalf("GET processor as owner: %v", err)
	}
	b0, a0 := before.Processor, after.Processor
	if a0.Paused != b0.Paused || a0.NextID != b0.NextID || a0.NextCallback != b0.NextCallback || !reflect.DeepEqual(after.Counts, before.Counts) {
		t.Errorf("refused calls changed the processor: before %+v %+v, after %+v %+v", b0, before.Counts, a0, after.Counts)
	}
	if _, err := owner.add(ctx, procManual, probe.spec); err != nil {
		t.Errorf("the owner's add of %s, refused to other and to a stranger: %v (want accepted: nothing was queued)", probe.id, err)
	}
}

// addBatch adds b as its owner until the node acknowledges it; after a
// failed try (the node down) a 409 means an earlier try was committed.
func addBatch(ctx context.Context, owner *papi, b *plannedBatch) error {
	tries := 0
	for {
		tries++
		_, err := owner.add(ctx, b.proc, b.spec)
		switch s := statusOf(err); {
		case err == nil:
			return nil
		case s == http.StatusConflict && tries > 1:
			return nil
		case s != 0 && s < 500:
			return fmt.Errorf("adding batch %s (try %d): %w", b.key(), tries, err)
		}
		if !sleepCtx(ctx, 50*time.Millisecond) {
			return fmt.Errorf("adding batch %s: %w", b.key(), ctx.Err())
		}
	}
}

// runTicker ticks proc as a until ctx ends, counting what the ticks did.
func runTicker(ctx context.Context, a *papi, proc string, rng *rand.Rand, inFlight *atomic.Int64, counts *sync.Map) {
	for ctx.Err() == nil {
		inFlight.Add(1)
		r, err := a.tick(ctx, proc)
		inFlight.Add(-1)
		out := r.Outcome
		pause := time.Duration(5+rng.IntN(20)) * time.Millisecond
		switch {
		case err != nil && statusOf(err) != 0:
			out = "HTTP " + strconv.Itoa(statusOf(err))
			pause = 50 * time.Millisecond
		case err != nil:
			out, pause = "node down", 50*time.Millisecond
		case out == processor.TickStarted:
			pause = time.Duration(rng.IntN(5)) * time.Millisecond
		}
		v, _ := counts.LoadOrStore(proc+":"+out, new(atomic.Int64))
		v.(*atomic.Int64).Add(1)
		if !sleepCtx(ctx, pause) {
			return
		}
	}
}

// sleepCtx waits d or until ctx ends; it reports whether ctx is still on.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// logLastCallbacks logs the last outcomes and the last deliveries: what
// the run waited on at its end.
func logLastCallbacks(t *testing.T, rows []callbackRow) {
	t.Helper()
	if len(rows) == 0 {
		return
	}
	byCreated := append([]callbackRow(nil), rows...)
	sort.Slice(byCreated, func(i, j int) bool { return byCreated[i].CreatedAt.Before(byCreated[j].CreatedAt) })
	byDelivered := append([]callbackRow(nil), rows...)
	sort.Slice(byDelivered, func(i, j int) bool { return byDelivered[i].DeliveredAt.Before(byDelivered[j].DeliveredAt) })
	first := byCreated[0].CreatedAt
	var parts []string
	for _, c := range byCreated[max(0, len(rows)-3):] {
		parts = append(parts, fmt.Sprintf("%s %s at +%s", c.Key, c.Body.Outcome.Status, c.CreatedAt.Sub(first).Round(time.Millisecond)))
	}
	var dparts []string
	for _, c := range byDelivered[max(0, len(rows)-3):] {
		dparts = append(dparts, fmt.Sprintf("%s at +%s after %d attempts (ended +%s)", c.Key, c.DeliveredAt.Sub(first).Round(time.Millisecond), c.Attempts,
			c.CreatedAt.Sub(first).Round(time.Millisecond)))
	}
	t.Logf("last outcomes: %s; last deliveries: %s", strings.Join(parts, ", "), strings.Join(dparts, ", "))
}
