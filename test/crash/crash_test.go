package crash_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
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
	"github.com/ordolabs/ordo/internal/testkit"
)

// The load: one CREATE_CLAIM_VOTING_ACCOUNT per queue, then votesPerQueue
// SEND_CLAIM_VOTEs per queue, posted by numPosters goroutines.
const (
	numQueues     = 24
	votesPerQueue = 24 // 24 creates + 24×24 votes = 600 intents
	numPosters    = 8
	devSenders    = 8

	blockTime              = 100 * time.Millisecond
	retryDelay             = 200 * time.Millisecond
	inclusionTimeoutBlocks = 5

	// numLost intents (CREATEs of queues of their own) are posted on raw
	// connections whose answers are never read; the node is killed once
	// they are committed, and they are posted again after the restart:
	// the "committed, but the answer was lost" case, forced once a run.
	numLost = 4

	createType = "CREATE_CLAIM_VOTING_ACCOUNT"
	voteType   = "SEND_CLAIM_VOTE"
)

// intent is one transaction intent of the load and, once acknowledged, what
// the node answered.
type intent struct {
	idx   int
	key   string
	queue string
	typ   string
	data  json.RawMessage
	voter string // SEND_CLAIM_VOTE only

	uid         string
	seq         int64
	created     bool // the acknowledging answer was 201
	failedPosts int  // posts that failed (node down) before the acknowledgement
}

// devchainFaults are the devchain's fault knobs for the whole run, on top
// of the SIGKILLs: submits rejected, accepted transactions dropped, and
// transactions reverted at inclusion. Records may then end FAILED.
var devchainFaults = []string{"--fault-reject", "0.1", "--fault-drop", "0.05", "--fault-revert", "0.1"}

// kill is what the killer saw when it killed the node.
type kill struct {
	n        int
	after    time.Duration // since the previous restart (or the start)
	at       time.Duration // since the load started
	acked    int64         // intents acknowledged by then
	bindings map[string]int
	waited   bool          // this kill waited for transactions in flight
	restart  time.Duration // from SIGKILL to a healthy node
	// lostAnswers is how many committed intents' answers this kill lost
	// (posted on connections never read, the node killed once they were
	// committed); recovered200 how many of them a re-post after the
	// restart answered 200 with the uid seen before the kill.
	lostAnswers, recovered200 int
}

func (k kill) inFlight() int { return k.bindings["INCLUSION"] + k.bindings["WAITING_INCLUSION"] }

func (k kill) String() string {
	var parts []string
	for s, n := range k.bindings {
		parts = append(parts, fmt.Sprintf("%s=%d", s, n))
	}
	sort.Strings(parts)
	w := ""
	if k.waited {
		w = " (waited for in-flight)"
	}
	if k.lostAnswers > 0 {
		w += fmt.Sprintf(" (lost the answers of %d committed posts; %d re-posts answered 200)", k.lostAnswers, k.recovered200)
	}
	return fmt.Sprintf("kill #%d at %s (%s after the last restart)%s: acked=%d bindings{%s} restart=%s", k.n, k.at.Round(time.Millisecond), k.after, w, k.acked,
		strings.Join(parts, " "), k.restart.Round(time.Millisecond))
}

func crashSeed(t *testing.T) uint64 {
	if s := os.Getenv("ORDO_CRASH_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("ORDO_CRASH_SEED=%q: %v", s, err)
		}
		return v
	}
	return uint64(time.Now().UnixNano()) & (1<<53 - 1)
}

// TestSequencerCrash kills the node process with SIGKILL at random points of
// a load against a standalone devchain that also rejects, drops and reverts
// transactions (devchainFaults), restarts it on the same data, and audits
// the chain: every DONE intent applied exactly once, no FAILED one applied,
// no unknown one applied, FIFO per queue, one change per zkApp per block,
// and, counting every included transaction whether it succeeded or failed,
// never two transactions of one queue in one block and none of a record's
// failing "precondition". One kill comes right after posts were committed
// whose answers were never read: their re-posts must answer 200.
func TestSequencerCrash(t *testing.T) {
	if !testkit.Long() {
		t.Skip("SKIPPED without ORDO_LONG=1 (.ci/run sets it): the sequencer crash test builds ordo, runs devchain and a node as processes " +
			"and SIGKILLs the node under load (10-60s); run without -short to cover crash recovery")
	}
	seed := crashSeed(t)
	t.Logf("crash seed %d (replay with ORDO_CRASH_SEED=%d)", seed, seed)
	ctx, cancel := context.WithTimeout(t.Context(), 170*time.Second)
	defer cancel()
	began := time.Now()

	dir := t.TempDir()
	bin := buildOrdo(t, dir)
	t.Logf("built %s in %s", bin, time.Since(began).Round(time.Millisecond))
	addrs := freeAddrs(t, 2)
	chainAddr, nodeAddr := addrs[0], addrs[1]
	chainURL, nodeURL := "http://"+chainAddr, "http://"+nodeAddr

	chainArgs := append([]string{"devchain",
		"--listen", chainAddr, "--data", filepath.Join(dir, "chain"), "--block-time", blockTime.String(),
		"--seed", strconv.FormatUint(seed, 10)}, devchainFaults...)
	chainProc := newProc("devchain", bin, filepath.Join(dir, "devchain.log"), chainArgs...)
	cfgPath := filepath.Join(dir, "ordo.yaml")
	cfg := fmt.Sprintf("# crash test\nretryDelay: %s\ninclusionTimeoutBlocks: %d\nmaxRetries: 5\n", retryDelay, inclusionTimeoutBlocks) +
		"principals:\n  - principal: crash\n    tokenSHA256: " + auth.TokenSHA256(crashToken) + "\n    roles: [submit, read]\n"
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	node := newProc("node", bin, filepath.Join(dir, "node.log"), "serve", "--config", cfgPath,
		"--listen", nodeAddr, "--data", filepath.Join(dir, "node"), "--chain", chainURL,
		"--dev-senders", strconv.Itoa(devSenders))
	t.Cleanup(chainProc.stop)
	t.Cleanup(node.stop)
	logOnFailure(t, "crash", seed, node, chainProc)

	chainProc.up(ctx, t, chainURL+"/v1/head")
	node.up(ctx, t, nodeURL+"/healthz")
	dc := devchain.NewClient(chainURL, nil)
	cl := client.New(nodeURL, &http.Client{Timeout: 10 * time.Second}, client.WithToken(crashToken))
	fs, err := dc.Faults(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if fs.RejectProb == 0 || fs.DropProb == 0 || fs.RevertProb == 0 {
		t.Fatalf("devchain fault knobs not on: %+v", fs)
	}
	t.Logf("devchain faults: reject=%g drop=%g revert=%g", fs.RejectProb, fs.DropProb, fs.RevertProb)

	// ---- load and kills ----
	rng := rand.New(rand.NewPCG(seed, 0x6f72646f))
	plans := planLoad()
	lost := planLost(plans)
	kp := killPlan{nKills: 4 + rng.IntN(3), lost: lost, nodeAddr: nodeAddr}
	kp.waitKill = rng.IntN(kp.nKills)
	// One kill (not the first: it follows a restart) comes 0-100ms after the
	// node is healthy again, while it is still recovering its in-flight
	// attempts from the chain.
	kp.quickKill = 1 + rng.IntN(kp.nKills-1)
	if kp.quickKill == kp.waitKill {
		kp.quickKill = 1 + (kp.quickKill % (kp.nKills - 1))
	}
	// One other kill loses the answers of committed posts.
	var others []int
	for n := range kp.nKills {
		if n != kp.waitKill && n != kp.quickKill {
			others = append(others, n)
		}
	}
	kp.lostKill = others[rng.IntN(len(others))]
	var acked, reposted, recovered atomic.Int64
	loadCtx, stopLoad := context.WithCancel(ctx)
	defer stopLoad()
	loadStart := time.Now()

	var wg sync.WaitGroup
	errs := make(chan error, numPosters+1)
	var kills []kill
	wg.Go(func() {
		var err error
		kills, err = runKiller(loadCtx, rng, node, nodeURL, cl, kp, &acked, loadStart)
		if err != nil {
			errs <- fmt.Errorf("killer: %w", err)
			stopLoad()
		}
	})
	for w := range numPosters {
		prng := rand.New(rand.NewPCG(seed, uint64(w)+1))
		wg.Go(func() {
			for _, in := range plans[w] {
				if err := post(loadCtx, cl, in); err != nil {
					errs <- err
					stopLoad()
					return
				}
				acked.Add(1)
				if in.failedPosts > 0 {
					reposted.Add(1)
					if !in.created {
						recovered.Add(1)
					}
				}
				// Pace the posts so the load spans several kills.
				pace(loadCtx, time.Duration(20+prng.IntN(60))*time.Millisecond)
			}
		})
	}
	wg.Wait()
	close(errs)
	failOn(t, errs)
	loadTime := time.Since(loadStart)
	for _, k := range kills {
		t.Logf("%s", k)
	}
	all := append([]*intent(nil), lost...)
	for _, p := range plans {
		all = append(all, p...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].idx < all[j].idx })
	lostAnswers, forced200 := 0, 0
	for _, k := range kills {
		lostAnswers += k.lostAnswers
		forced200 += k.recovered200
	}
	t.Logf("load: %d intents acknowledged in %s across %d kills; %d needed a re-post after a kill, %d of those had been committed before it (200); "+
		"%d answers lost on purpose, %d of their re-posts answered 200",
		acked.Load()+int64(forced200), loadTime.Round(time.Millisecond), len(kills), reposted.Load(), recovered.Load(), lostAnswers, forced200)
	if lostAnswers == 0 {
		t.Errorf("no kill lost the answer of a committed post: the run did not exercise the re-post of a committed intent")
	}
	inflightKills := 0
	for _, k := range kills {
		if k.inFlight() > 0 {
			inflightKills++
		}
	}
	if inflightKills == 0 {
		t.Errorf("no kill landed while a transaction was in REVISION (queue in INCLUSION/WAITING_INCLUSION): the test did not exercise what it is for")
	}

	// ---- idempotency: every key again gives the same record ----
	checkIdempotent(ctx, t, cl, all)

	// ---- every acknowledged intent ends DONE or FAILED ----
	if err := waitSettled(ctx, cl, node.done(), 90*time.Second); err != nil {
		diagnoseStuck(ctx, t, cl, dc, all)
		t.Fatalf("after the load: %v", err)
	}
	settled := time.Since(loadStart)

	// Let any straggling attempt land before the audit: a double apply can
	// surface blocks after the record went DONE.
	if err := waitBlocks(ctx, dc, 2*inclusionTimeoutBlocks); err != nil {
		t.Fatal(err)
	}
	records := fetchRecords(ctx, t, cl, all)
	if t.Failed() {
		t.FailNow()
	}
	checkSenders(ctx, t, cl, dc)

	// ---- the audit ----
	a, problems, err := audit(ctx, dc, cl, all, records)
	if err != nil {
		t.Fatal(err)
	}
	retries, retried := 0, 0
	for _, r := range records {
		retries += r.tx.Retries
		if r.tx.Retries > 0 {
			retried++
		}
	}
	if retries == 0 || a.failReasons[devchain.ReasonReverted] == 0 {
		t.Errorf("the fault knobs caused %d retries and %d reverted chain transactions; want both", retries, a.failReasons[devchain.ReasonReverted])
	}
	for i, p := range problems {
		if i == 30 {
			t.Errorf("... and %d more violations", len(problems)-30)
			break
		}
		t.Error(p)
	}
	t.Logf("crash summary: seed=%d acked=%d done=%d failed=%d retries=%d (%d retried) kills=%d (in flight at kill: %d) blocks=%d succeededTxs=%d "+
		"failedChainTxs=%d %s sharedSlots=%d maxTxsPerZkAppBlock=%d twoOfOneQueueInABlock=%d preconditionFailures=%d "+
		"reposted=%d recovered200=%d (natural %d, forced %d of %d lost answers) load=%s settled=%s total=%s",
		seed, len(all), a.done, a.failed, retries, retried, len(kills), inflightKills, a.blocks, a.succeeded,
		a.chainFailed, a.reasons(), a.sharedSlots, a.maxPerSlot, a.queueSlotViolations, a.preconditions,
		reposted.Load(), recovered.Load()+int64(forced200), recovered.Load(), forced200, lostAnswers,
		loadTime.Round(time.Millisecond), settled.Round(time.Millisecond), time.Since(began).Round(time.Millisecond))
}

// planLoad splits the intents among the posters. Poster w owns the queues
// q with q%numPosters == w: it posts their CREATEs first, each acknowledged
// before the next post, then their votes round-robin. So every queue's
// CREATE is acknowledged before any of its votes is posted.
func planLoad() [][]*intent {
	plans := make([][]*intent, numPosters)
	idx := 0
	add := func(w int, in *intent) {
		in.idx = idx
		in.key = fmt.Sprintf("crash-%04d", idx)
		idx++
		plans[w] = append(plans[w], in)
	}
	queue := func(q int) string { return fmt.Sprintf("crash-q%02d", q) }
	for q := range numQueues {
		add(q%numPosters, &intent{queue: queue(q), typ: createType, data: json.RawMessage(fmt.Sprintf(`{"title":"claim %d"}`, q))})
	}
	for range votesPerQueue {
		for q := range numQueues {
			in := &intent{queue: queue(q), typ: voteType}
			add(q%numPosters, in)
			in.voter = fmt.Sprintf("v%d", in.idx)
			in.data = json.RawMessage(fmt.Sprintf(`{"voter":%q}`, in.voter))
		}
	}
	return plans
}

// planLost makes the numLost intents whose answers a kill loses: CREATEs of
// queues no poster uses, numbered after the load's.
func planLost(plans [][]*intent) []*intent {
	idx := 0
	for _, p := range plans {
		idx += len(p)
	}
	var out []*intent
	for i := range numLost {
		out = append(out, &intent{idx: idx + i, key: fmt.Sprintf("crash-lost-%02d", i), queue: fmt.Sprintf("crash-lost-q%02d", i), typ: createType,
			data: json.RawMessage(fmt.Sprintf(`{"title":"lost %d"}`, i))})
	}
	return out
}

// crashToken is the token of the principal the test posts and reads as
// (the node's config lists its SHA-256).
const crashToken = "crash-test-token-0123456789"

// postUnread writes POST /v1/transactions for in on a connection of its own
// and returns the connection unread: the caller kills the node and closes
// it, so the answer is lost whether or not the node had written it.
func postUnread(addr string, in *intent) (net.Conn, error) {
	body, err := json.Marshal(client.Intake{Queue: in.queue, Type: in.typ, Data: in.data, IdempotencyKey: in.key})
	if err != nil {
		return nil, err
	}
	conn, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return nil, err
	}
	req := fmt.Sprintf("POST /v1/transactions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json\r\nAuthorization: Bearer %s\r\nContent-Length: %d\r\n\r\n%s",
		addr, crashToken, len(body), body)
	if err := conn.SetWriteDeadline(time.Now().Add(2 * time.Second)); err != nil {
		conn.Close()
		return nil, err
	}
	if _, err := conn.Write([]byte(req)); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// waitCommitted polls the node's list of each intent's queue until every
// intent's idempotency key is there, and returns the uid each was committed
// with.
func waitCommitted(ctx context.Context, cl *client.Client, ins []*intent, within time.Duration) (map[string]string, error) {
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	uids := map[string]string{}
	for {
		for _, in := range ins {
			if uids[in.key] != "" {
				continue
			}
			txs, _, err := cl.List(ctx, client.ListOptions{Queue: in.queue, Limit: 10})
			if err != nil {
				continue
			}
			for _, tx := range txs {
				if tx.IdempotencyKey == in.key {
					uids[in.key] = tx.UID
				}
			}
		}
		if len(uids) == len(ins) {
			return uids, nil
		}
		select {
		case <-ctx.Done():
			return uids, fmt.Errorf("%d of %d posts committed within %s", len(uids), len(ins), within)
		case <-tick.C:
		}
	}
}

// post sends an intent until the node acknowledges it, re-posting with the
// same idempotency key while the node is down or restarting.
func post(ctx context.Context, cl *client.Client, in *intent) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		tx, created, err := cl.Send(rctx, client.Intake{Queue: in.queue, Type: in.typ, Data: in.data, IdempotencyKey: in.key})
		cancel()
		if err == nil {
			if tx.UID == "" || tx.Queue != in.queue || tx.Type != in.typ || tx.IdempotencyKey != in.key {
				return fmt.Errorf("intent %s: acknowledged with a record that does not match it: uid=%q queue=%q type=%q key=%q",
					in.key, tx.UID, tx.Queue, tx.Type, tx.IdempotencyKey)
			}
			if created && tx.State != client.StateWaiting {
				return fmt.Errorf("intent %s: 201 with state %s, want WAITING", in.key, tx.State)
			}
			in.uid, in.seq, in.created = tx.UID, tx.Seq, created
			return nil
		}
		var ae *client.APIError
		if errors.As(err, &ae) && ae.Status < 500 {
			return fmt.Errorf("intent %s (%s on %s): refused: %w", in.key, in.typ, in.queue, err)
		}
		in.failedPosts++
		select {
		case <-ctx.Done():
			return fmt.Errorf("intent %s: not acknowledged after %d posts: %w (last error: %w)", in.key, in.failedPosts, ctx.Err(), err)
		case <-tick.C:
		}
	}
}

// killPlan says which kills (numbered from 0) do what.
type killPlan struct {
	nKills int
	// waitKill first waits for transactions in flight; quickKill comes
	// 0-100ms after the previous restart; lostKill loses the answers of
	// the lost intents' posts.
	waitKill, quickKill, lostKill int
	lost                          []*intent
	nodeAddr                      string
}

// runKiller SIGKILLs the node kp.nKills times at random intervals (0.3-1.5s
// after it is healthy) and restarts it on the same data and port, each time
// waiting for /healthz. Kill number kp.waitKill (from 0) first waits until
// transactions are in flight (a queue in INCLUSION or WAITING_INCLUSION);
// kill number kp.quickKill comes only 0-100ms after the previous restart.
// Kill number kp.lostKill posts the lost intents on connections it never
// reads, kills the node as soon as they are committed, and after the
// restart posts them again: each must be answered 200 with the uid it was
// committed with.
func runKiller(ctx context.Context, rng *rand.Rand, node *proc, nodeURL string, cl *client.Client, kp killPlan,
	acked *atomic.Int64, start time.Time) ([]kill, error) {
	var kills []kill
	for n := range kp.nKills {
		interval := time.Duration(300+rng.IntN(1200)) * time.Millisecond
		if n == kp.quickKill {
			interval = time.Duration(rng.IntN(100)) * time.Millisecond
		}
		wait := time.NewTimer(interval)
		select {
		case <-ctx.Done():
			wait.Stop()
			return kills, nil
		case <-wait.C:
		}
		k := kill{n: n + 1, after: interval}
		var unread []net.Conn
		var committed map[string]string
		if n == kp.lostKill {
			for _, in := range kp.lost {
				conn, err := postUnread(kp.nodeAddr, in)
				if err != nil {
					closeAll(unread)
					return kills, fmt.Errorf("kill #%d: posting %s unread: %w", n+1, in.key, err)
				}
				unread = append(unread, conn)
			}
			var err error
			committed, err = waitCommitted(ctx, cl, kp.lost, 10*time.Second)
			if err != nil {
				closeAll(unread)
				return kills, fmt.Errorf("kill #%d: %w", n+1, err)
			}
			k.lostAnswers = len(committed)
			k.bindings = bindingStates(ctx, cl)
		} else if n == kp.waitKill {
			k.waited = true
			deadline := time.Now().Add(10 * time.Second)
			tick := time.NewTicker(10 * time.Millisecond)
			for time.Now().Before(deadline) && ctx.Err() == nil {
				k.bindings = bindingStates(ctx, cl)
				if k.inFlight() >= 2 {
					break
				}
				<-tick.C
			}
			tick.Stop()
		} else {
			k.bindings = bindingStates(ctx, cl)
		}
		select {
		case <-node.done():
			return kills, errors.New("the node exited on its own")
		default:
		}
		k.acked = acked.Load()
		k.at = time.Since(start)
		t0 := time.Now()
		err := node.kill()
		closeAll(unread) // whatever the node answered is lost
		if err != nil {
			return kills, err
		}
		if err := node.start(); err != nil {
			return kills, err
		}
		if err := node.waitReady(ctx, nodeURL+"/healthz", 30*time.Second); err != nil {
			return kills, fmt.Errorf("restart after kill #%d: %w", n+1, err)
		}
		k.restart = time.Since(t0)
		if n == kp.lostKill {
			for _, in := range kp.lost {
				in.failedPosts++ // the post whose answer was lost
				if err := post(ctx, cl, in); err != nil {
					return kills, err
				}
				if in.created || in.uid != committed[in.key] {
					return kills, fmt.Errorf("COMMITTED INTENT LOST: %s was committed as %s before kill #%d, and its re-post after the restart answered created=%v uid=%s",
						in.key, committed[in.key], n+1, in.created, in.uid)
				}
				k.recovered200++
			}
		}
		kills = append(kills, k)
	}
	return kills, nil
}

func closeAll(conns []net.Conn) {
	for _, c := range conns {
		c.Close()
	}
}

// bindingStates counts the queues by binding state (empty when the node does
// not answer quickly).
func bindingStates(ctx context.Context, cl *client.Client) map[string]int {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	qs, err := cl.Queues(ctx)
	out := map[string]int{}
	if err != nil {
		return out
	}
	for _, q := range qs {
		out[string(q.State)]++
	}
	return out
}

// checkIdempotent re-posts every intent: each must answer 200 with the uid
// and seq of its acknowledgement.
func checkIdempotent(ctx context.Context, t *testing.T, cl *client.Client, all []*intent) {
	t.Helper()
	var mu sync.Mutex
	var bad []string
	var wg sync.WaitGroup
	ch := make(chan *intent)
	for range numPosters {
		wg.Go(func() {
			for in := range ch {
				tx, created, err := cl.Send(ctx, client.Intake{Queue: in.queue, Type: in.typ, Data: in.data, IdempotencyKey: in.key})
				var msg string
				switch {
				case err != nil:
					msg = fmt.Sprintf("%s: re-post: %v", in.key, err)
				case created || tx.UID != in.uid || tx.Seq != in.seq:
					msg = fmt.Sprintf("%s: re-post answered created=%v uid=%s seq=%d, acknowledged as uid=%s seq=%d", in.key, created, tx.UID, tx.Seq, in.uid, in.seq)
				}
				if msg != "" {
					mu.Lock()
					bad = append(bad, msg)
					mu.Unlock()
				}
			}
		})
	}
	for _, in := range all {
		ch <- in
	}
	close(ch)
	wg.Wait()
	for i, m := range bad {
		if i == 20 {
			t.Errorf("... and %d more idempotency violations", len(bad)-20)
			break
		}
		t.Errorf("idempotency: %s", m)
	}
}

// waitSettled polls until no transaction is WAITING, REVISION or RETRY. It
// gives up at once when the node exits on its own.
func waitSettled(ctx context.Context, cl *client.Client, exited <-chan struct{}, within time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	var last string
	for {
		open := 0
		var detail []string
		ok := true
		for _, s := range []string{client.StateWaiting, client.StateRevision, client.StateRetry} {
			txs, _, err := cl.List(ctx, client.ListOptions{State: s, Limit: 1000})
			if err != nil {
				ok = false
				last = err.Error()
				break
			}
			open += len(txs)
			detail = append(detail, fmt.Sprintf("%s=%d", s, len(txs)))
		}
		if ok {
			if open == 0 {
				return nil
			}
			last = strings.Join(detail, " ")
		}
		select {
		case <-exited:
			return fmt.Errorf("the node exited on its own before every transaction was DONE or FAILED (%s)", last)
		case <-ctx.Done():
			return fmt.Errorf("transactions not DONE or FAILED within %s (%s)", within, last)
		case <-tick.C:
		}
	}
}

// waitBlocks waits until the chain has made n more blocks.
func waitBlocks(ctx context.Context, dc *devchain.Client, n uint64) error {
	hd, err := dc.Head(ctx)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		h, err := dc.Head(ctx)
		if err == nil && h.Height >= hd.Height+n {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("devchain made no %d blocks after height %d: %w", n, hd.Height, ctx.Err())
		case <-tick.C:
		}
	}
}

// record is a transaction as the node reports it, with its history.
type record struct {
	tx      client.Transaction
	history []client.HistoryEntry
}

// fetchRecords reads every acknowledged intent's record.
func fetchRecords(ctx context.Context, t *testing.T, cl *client.Client, all []*intent) map[string]record {
	t.Helper()
	out := make(map[string]record, len(all))
	var mu sync.Mutex
	var wg sync.WaitGroup
	ch := make(chan *intent)
	for range numPosters {
		wg.Go(func() {
			for in := range ch {
				tx, h, err := cl.Get(ctx, in.uid)
				mu.Lock()
				if err != nil {
					t.Errorf("GET /v1/transactions/%s (%s): %v", in.uid, in.key, err)
				} else {
					out[in.uid] = record{tx: tx, history: h}
				}
				mu.Unlock()
			}
		})
	}
	for _, in := range all {
		ch <- in
	}
	close(ch)
	wg.Wait()
	return out
}

// checkSenders compares each sender's next nonce at the node with its
// account on the chain once everything settled: a pending transaction left
// in the mempool could still land.
func checkSenders(ctx context.Context, t *testing.T, cl *client.Client, dc *devchain.Client) {
	t.Helper()
	ss, err := cl.Senders(ctx)
	if err != nil {
		t.Errorf("GET /v1/senders: %v", err)
		return
	}
	for _, s := range ss {
		acct, err := dc.Account(ctx, chainAddress(s.ID))
		if err != nil {
			t.Errorf("devchain account %s: %v", s.ID, err)
			continue
		}
		if acct.PendingNonce != acct.Nonce {
			t.Errorf("sender %s still has transactions pending on the chain after every record settled (chain nonce %d, pending nonce %d): they may still land",
				s.ID, acct.Nonce, acct.PendingNonce)
		}
		if s.Queue != "" {
			t.Errorf("sender %s still bound to queue %s after every record settled", s.ID, s.Queue)
		}
		if s.NextNonce != acct.Nonce {
			t.Logf("note: sender %s: node's next nonce %d, chain nonce %d", s.ID, s.NextNonce, acct.Nonce)
		}
	}
}
