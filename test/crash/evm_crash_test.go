package crash_test

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
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

	"github.com/ordolabs/ordo/client"
	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/procs"
	"github.com/ordolabs/ordo/internal/testkit"
)

// The EVM crash test's load: per queue one create_claim_voting_account call
// of the Voting contract, then evmVotes send_claim_vote calls, all through
// the router (type "call"), posted by evmPosters goroutines while the node
// is killed -9 evmKills times.
const (
	evmQueues  = 12
	evmVotes   = 8 // 12 creates + 96 votes = 108 intents
	evmPosters = 4
	evmKills   = 4
	evmSenders = 4
)

// evmChainRun is a chain process the test runs, with what the node needs.
type evmChainRun struct {
	proc          *proc
	httpURL       string
	wsURL         string
	router        common.Address
	voting        common.Address
	library       common.Address // Library, the processor's test target
	ownerKeyFile  string         // the deployer's key: the router's owner, funded
	senderKeyFile []string       // funded keys the router lets submit
	blockTime     time.Duration

	// workflow and registry are the leader's contracts.
	workflow, registry common.Address
}

// TestEVMCrashOnEvmdev: the node on `ordo evmdev` (go-ethereum's simulated
// chain in its own process), killed -9 under load, audited over JSON-RPC.
func TestEVMCrashOnEvmdev(t *testing.T) {
	runEVMCrash(t, "evmdev", startEvmdev)
}

// TestEVMCrashOnGeth: the same on a real `geth --dev` (built by .ci/run
// with go install …/cmd/geth@v1.17.10), the contracts deployed by `ordo
// evm deploy`.
func TestEVMCrashOnGeth(t *testing.T) {
	runEVMCrash(t, "geth", startGeth)
}

func runEVMCrash(t *testing.T, name string, start func(context.Context, *testing.T, string, string) evmChainRun) {
	if !testkit.Long() {
		t.Skip("SKIPPED without ORDO_LONG=1 (.ci/run sets it): the EVM crash test builds ordo, runs an EVM chain and a node as processes " +
			"and SIGKILLs the node under load (30-90s); run without -short to cover crash recovery on an EVM chain")
	}
	seed := crashSeed(t)
	t.Logf("%s crash seed %d (replay with ORDO_CRASH_SEED=%d)", name, seed, seed)
	ctx, cancel := context.WithTimeout(t.Context(), 240*time.Second)
	defer cancel()
	began := time.Now()
	dir := t.TempDir()
	bin := buildOrdo(t, dir)
	ch := start(ctx, t, bin, dir)
	nodeAddr := freeAddrs(t, 1)[0]
	nodeURL := "http://" + nodeAddr

	cfgPath := filepath.Join(dir, "ordo.yaml")
	var senders strings.Builder
	for _, f := range ch.senderKeyFile {
		fmt.Fprintf(&senders, "  - keyFile: %s\n", f)
	}
	cfg := fmt.Sprintf(`# EVM crash test
retryDelay: 300ms
inclusionTimeoutBlocks: 6
maxRetries: 5
devSenders: 0
senders:
%sevm:
  urls: [%s, %s]
  router: %q
  reorgDepth: 1
  contracts:
    voting: {address: %q, abi: Voting}
intake:
  typeRoles: {call: [submit]}
principals:
  - principal: crash
    tokenSHA256: %s
    roles: [submit, read]
`, senders.String(), ch.wsURL, ch.httpURL, strings.ToLower(ch.router.Hex()), strings.ToLower(ch.voting.Hex()), auth.TokenSHA256(crashToken))
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	node := newProc("node", bin, filepath.Join(dir, "node.log"), "serve", "--config", cfgPath,
		"--listen", nodeAddr, "--data", filepath.Join(dir, "node"))
	t.Cleanup(node.stop)
	logOnFailure(t, name+" crash", seed, node, ch.proc)
	node.up(ctx, t, nodeURL+"/healthz")
	cl := client.New(nodeURL, &http.Client{Timeout: 10 * time.Second}, client.WithToken(crashToken))
	ec, err := ethclient.DialContext(ctx, ch.httpURL)
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()

	// ---- load and kills ----
	rng := rand.New(rand.NewPCG(seed, 0x65766d))
	plans := planEVMLoad()
	var acked atomic.Int64
	loadCtx, stopLoad := context.WithCancel(ctx)
	defer stopLoad()
	var wg sync.WaitGroup
	errs := make(chan error, evmPosters+1)
	var restarts []time.Duration
	inFlightKills := 0
	wg.Go(func() {
		for n := 1; n <= evmKills; n++ {
			pause := time.NewTimer(time.Duration(800+rng.IntN(2500)) * time.Millisecond)
			select {
			case <-loadCtx.Done():
				pause.Stop()
				return
			case <-pause.C:
			}
			if b := bindingStates(loadCtx, cl); b["INCLUSION"]+b["WAITING_INCLUSION"] > 0 {
				inFlightKills++
			}
			d, err := node.killRestart(loadCtx, nodeURL+"/healthz", n, func(error) {})
			if err != nil {
				errs <- fmt.Errorf("kill #%d: %w", n, err)
				stopLoad()
				return
			}
			restarts = append(restarts, d)
		}
	})
	for w := range evmPosters {
		prng := rand.New(rand.NewPCG(seed, uint64(w)+1))
		wg.Go(func() {
			for _, in := range plans[w] {
				if err := post(loadCtx, cl, in); err != nil {
					errs <- err
					stopLoad()
					return
				}
				acked.Add(1)
				pace(loadCtx, time.Duration(30+prng.IntN(90))*time.Millisecond)
			}
		})
	}
	wg.Wait()
	close(errs)
	failOn(t, errs)
	var all []*intent
	for _, p := range plans {
		all = append(all, p...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].idx < all[j].idx })
	t.Logf("load: %d intents acknowledged across %d kills, %d with transactions in flight (restarts %v)", acked.Load(), len(restarts), inFlightKills, restarts)
	if inFlightKills == 0 {
		t.Errorf("no kill landed while a transaction was in flight: the test did not exercise what it is for")
	}
	checkIdempotent(ctx, t, cl, all)
	if err := waitSettled(ctx, cl, node.done(), 120*time.Second); err != nil {
		t.Fatalf("after the load: %v", err)
	}
	// Let any straggling attempt land: a double apply can surface blocks
	// after the record went DONE.
	if err := waitEVMBlocks(ctx, ec, 6, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	records := fetchRecords(ctx, t, cl, all)
	if t.Failed() {
		t.FailNow()
	}
	done, failed, problems := auditEVM(ctx, t, ec, ch, all, records)
	for i, p := range problems {
		if i == 30 {
			t.Errorf("... and %d more violations", len(problems)-30)
			break
		}
		t.Error(p)
	}
	t.Logf("%s crash summary: seed=%d acked=%d done=%d failed=%d kills=%d total=%s", name, seed, len(all), done, failed, len(restarts),
		time.Since(began).Round(time.Millisecond))
}

// planEVMLoad splits the intents among the posters: poster w owns the
// queues q with q%evmPosters == w, posts their creates first (each
// acknowledged before the next post), then their votes round-robin.
func planEVMLoad() [][]*intent {
	plans := make([][]*intent, evmPosters)
	idx := 0
	add := func(w int, q, method string, args map[string]any, key string) {
		data, _ := json.Marshal(map[string]any{"contract": "voting", "method": method, "args": args})
		plans[w] = append(plans[w], &intent{idx: idx, key: key, queue: q, typ: "call", data: data})
		idx++
	}
	for q := range evmQueues {
		add(q%evmPosters, fmt.Sprintf("evm-%d", q), "create_claim_voting_account",
			map[string]any{"account": fmt.Sprintf("claim-%d", q), "title": fmt.Sprintf("claim %d", q)}, fmt.Sprintf("create-%d", q))
	}
	for v := range evmVotes {
		for q := range evmQueues {
			add(q%evmPosters, fmt.Sprintf("evm-%d", q), "send_claim_vote",
				map[string]any{"account": fmt.Sprintf("claim-%d", q), "voter": fmt.Sprintf("voter-%d", v), "vote": v%3 != 0},
				fmt.Sprintf("vote-%d-%d", q, v))
		}
	}
	return plans
}

// The router's outcome events, by topic.
var (
	topicApplied   = crypto.Keccak256Hash([]byte("IntentApplied(bytes32,address,bytes32)"))
	topicDuplicate = crypto.Keccak256Hash([]byte("IntentDuplicate(bytes32,address,uint64)"))
	topicConflict  = crypto.Keccak256Hash([]byte("IntentConflict(bytes32,address,bytes32,uint64)"))
	topicFailed    = crypto.Keccak256Hash([]byte("IntentFailed(bytes32,address,uint256,bytes)"))
)

// auditEVM reads the router's events with plain JSON-RPC (eth_getLogs)
// and checks: every DONE intent applied exactly once, no FAILED or
// unacknowledged one applied, no conflict, the applications of each
// queue in the order the node acknowledged its intents (FIFO), and each
// claim's vote count on the Voting contract equal to its applied votes.
func auditEVM(ctx context.Context, t *testing.T, ec *ethclient.Client, ch evmChainRun, all []*intent, records map[string]record) (done, failed int, problems []string) {
	t.Helper()
	head, err := ec.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	logs, err := ec.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: big.NewInt(0), ToBlock: new(big.Int).SetUint64(head),
		Addresses: []common.Address{ch.router}, Topics: [][]common.Hash{{topicApplied, topicDuplicate, topicConflict, topicFailed}}})
	if err != nil {
		t.Fatal(err)
	}
	applied := map[common.Hash][]types.Log{}
	counts := map[string]int{}
	for _, l := range logs {
		if l.Removed {
			problems = append(problems, fmt.Sprintf("eth_getLogs returned a removed log (block %d)", l.BlockNumber))
		}
		switch l.Topics[0] {
		case topicApplied:
			applied[l.Topics[1]] = append(applied[l.Topics[1]], l)
			counts["applied"]++
		case topicDuplicate:
			counts["duplicate"]++
		case topicConflict:
			counts["conflict"]++
			problems = append(problems, fmt.Sprintf("an IntentConflict for uid %s in block %d: a memo reused with other calls", l.Topics[1].Hex(), l.BlockNumber))
		case topicFailed:
			counts["failed"]++
		}
	}
	byQueue := map[string][]*intent{}
	known := map[common.Hash]bool{}
	votes := map[string]int{}
	for _, in := range all {
		r := records[in.uid]
		uid := crypto.Keccak256Hash([]byte(in.uid))
		known[uid] = true
		n := len(applied[uid])
		switch r.tx.State {
		case client.StateDone:
			done++
			if n != 1 {
				problems = append(problems, fmt.Sprintf("%s (%s, DONE): applied %d times on chain, want exactly 1", in.uid, in.key, n))
				continue
			}
			byQueue[in.queue] = append(byQueue[in.queue], in)
			if strings.HasPrefix(in.key, "vote-") {
				votes[in.queue]++
			}
		case client.StateFailed:
			failed++
			if n != 0 {
				problems = append(problems, fmt.Sprintf("%s (%s, FAILED: %s): applied %d times on chain, want 0", in.uid, in.key, r.tx.Error, n))
			}
		default:
			problems = append(problems, fmt.Sprintf("%s (%s): state %s after settling", in.uid, in.key, r.tx.State))
		}
	}
	for uid, ls := range applied {
		if !known[uid] {
			problems = append(problems, fmt.Sprintf("uid %s applied %d times on chain, but no acknowledged intent has it", uid.Hex(), len(ls)))
		}
	}
	for q, ins := range byQueue {
		sort.Slice(ins, func(i, j int) bool { return ins[i].seq < ins[j].seq })
		pos := func(in *intent) (uint64, uint) {
			l := applied[crypto.Keccak256Hash([]byte(in.uid))][0]
			return l.BlockNumber, l.Index
		}
		for i := 1; i < len(ins); i++ {
			b0, i0 := pos(ins[i-1])
			b1, i1 := pos(ins[i])
			if b1 < b0 || (b1 == b0 && i1 < i0) {
				problems = append(problems, fmt.Sprintf("queue %s: %s (seq %d) applied at %d/%d before %s (seq %d) at %d/%d: FIFO broken",
					q, ins[i].key, ins[i].seq, b1, i1, ins[i-1].key, ins[i-1].seq, b0, i0))
			}
		}
	}
	problems = append(problems, checkVoteCounts(ctx, ec, ch.voting, votes)...)
	t.Logf("router events: %v (%d logs up to block %d)", counts, len(logs), head)
	return done, failed, problems
}

// checkVoteCounts compares each claim's vote count on the Voting contract
// (eth_call of claim(account)) with the votes the audit saw applied.
func checkVoteCounts(ctx context.Context, ec *ethclient.Client, voting common.Address, votes map[string]int) []string {
	var problems []string
	sel := crypto.Keccak256([]byte("claim(string)"))[:4]
	for q, want := range votes {
		account := "claim-" + strings.TrimPrefix(q, "evm-")
		out, err := ec.CallContract(ctx, ethereum.CallMsg{To: &voting, Data: append(slices.Clone(sel), abiString(account)...)}, nil)
		if err != nil {
			problems = append(problems, fmt.Sprintf("claim(%s): %v", account, err))
			continue
		}
		// claim returns (address creator, string title, uint64 yes, uint64 no):
		// the words creator, title's offset, yes, no, then the title
		if len(out) < 128 {
			problems = append(problems, fmt.Sprintf("claim(%s): %d bytes", account, len(out)))
			continue
		}
		yes, no := new(big.Int).SetBytes(out[64:96]), new(big.Int).SetBytes(out[96:128])
		if got := new(big.Int).Add(yes, no); got.Int64() != int64(want) {
			problems = append(problems, fmt.Sprintf("claim %s: %s votes on the contract, %d applied intents", account, got, want))
		}
	}
	return problems
}

// abiString is the ABI encoding of one string argument.
func abiString(s string) []byte {
	out := make([]byte, 64, 64+(len(s)+31)/32*32)
	out[31] = 32
	big.NewInt(int64(len(s))).FillBytes(out[32:64])
	padded := make([]byte, (len(s)+31)/32*32)
	copy(padded, s)
	return append(out, padded...)
}

func waitEVMBlocks(ctx context.Context, ec *ethclient.Client, n uint64, within time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	first, err := ec.BlockNumber(ctx)
	if err != nil {
		return err
	}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if h, err := ec.BlockNumber(ctx); err == nil && h >= first+n {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the chain made no %d blocks after %d: %w", n, first, ctx.Err())
		case <-tick.C:
		}
	}
}

// startEvmdev runs `ordo evmdev` and reads what it printed: its URLs, the
// router and Voting, and the dev accounts' key files (dev account 0 owns
// the router; accounts 1.. are the node's senders).
func startEvmdev(ctx context.Context, t *testing.T, bin, dir string) evmChainRun {
	t.Helper()
	addrs := freeAddrs(t, 2)
	p := newProc("evmdev", bin, filepath.Join(dir, "evmdev.log"), "evmdev", "--http", addrs[0], "--ws", addrs[1],
		"--block-time", "250ms", "--accounts", strconv.Itoa(evmSenders+1), "--data", filepath.Join(dir, "evmkeys"))
	t.Cleanup(p.stop)
	if err := p.start(); err != nil {
		t.Fatal(err)
	}
	ch := evmChainRun{proc: p, httpURL: "http://" + addrs[0], wsURL: "ws://" + addrs[1], blockTime: 250 * time.Millisecond}
	out := waitPrinted(ctx, t, p, "node config:", 60*time.Second)
	ch.router = common.HexToAddress(field(t, out, `(?m)^router\s+(0x[0-9a-fA-F]{40})`))
	ch.voting = common.HexToAddress(field(t, out, `(?m)^voting\s+(0x[0-9a-fA-F]{40})`))
	ch.library = common.HexToAddress(field(t, out, `(?m)^library\s+(0x[0-9a-fA-F]{40})`))
	ch.workflow = common.HexToAddress(field(t, out, `(?m)^workflow\s+(0x[0-9a-fA-F]{40})`))
	ch.registry = common.HexToAddress(field(t, out, `(?m)^registry\s+(0x[0-9a-fA-F]{40})`))
	for _, m := range regexp.MustCompile(`(?m)^\s+(\d+)\s+0x[0-9a-fA-F]{40}\s+(\S+)$`).FindAllStringSubmatch(out, -1) {
		if m[1] != "0" {
			ch.senderKeyFile = append(ch.senderKeyFile, m[2])
		} else {
			ch.ownerKeyFile = m[2]
		}
	}
	if len(ch.senderKeyFile) != evmSenders {
		t.Fatalf("evmdev printed %d sender key files, want %d:\n%s", len(ch.senderKeyFile), evmSenders, out)
	}
	return ch
}

// startGeth runs a real `geth --dev` on loopback, funds evmSenders keys
// from its developer account, and deploys the router (the senders its
// submitters), Voting, Library, Workflow and ToolRegistry with `ordo evm
// deploy`.
func startGeth(ctx context.Context, t *testing.T, bin, dir string) evmChainRun {
	t.Helper()
	geth := procs.GethBinary()
	if geth == "" {
		t.Skip("SKIPPED: no geth binary ($ORDO_GETH, GOPATH/bin/geth or PATH); .ci/run builds one with " +
			"`go install github.com/ethereum/go-ethereum/cmd/geth@v1.17.10`: this test covers ordo on a real go-ethereum node")
	}
	addrs := freeAddrs(t, 2)
	hp, _ := strconv.Atoi(strings.Split(addrs[0], ":")[1])
	wp, _ := strconv.Atoi(strings.Split(addrs[1], ":")[1])
	p := newProc("geth", geth, filepath.Join(dir, "geth.log"), procs.GethDevArgs(filepath.Join(dir, "geth"), hp, wp)...)
	t.Cleanup(p.stop)
	if err := p.start(); err != nil {
		t.Fatal(err)
	}
	ch := evmChainRun{proc: p, httpURL: "http://" + addrs[0], wsURL: "ws://" + addrs[1], blockTime: time.Second}
	ec := dialWhenUp(ctx, t, ch.httpURL, 60*time.Second)
	defer ec.Close()
	dev, _ := crypto.HexToECDSA(procs.GethDevKey)
	devFile := writeKeyFile(t, dir, "geth-dev.key", dev)
	ch.ownerKeyFile = devFile
	var subs []string
	for i := range evmSenders {
		k, err := crypto.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		ch.senderKeyFile = append(ch.senderKeyFile, writeKeyFile(t, dir, fmt.Sprintf("sender-%d.key", i), k))
		a := crypto.PubkeyToAddress(k.PublicKey)
		subs = append(subs, "--submitter", strings.ToLower(a.Hex()))
		fund(ctx, t, ec, dev, a, new(big.Int).Mul(big.NewInt(1e18), big.NewInt(100)))
	}
	args := append([]string{"evm", "deploy", "--url", ch.httpURL, "--key-file", devFile, "--voting", "--library", "--leader"}, subs...)
	dctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	out, err := exec.CommandContext(dctx, bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("ordo evm deploy: %v\n%s", err, out)
	}
	ch.router = common.HexToAddress(field(t, string(out), `router:\s*"(0x[0-9a-fA-F]{40})"`))
	ch.voting = common.HexToAddress(field(t, string(out), `voting:\s*\{address:\s*"(0x[0-9a-fA-F]{40})"`))
	ch.library = common.HexToAddress(field(t, string(out), `library:\s*\{address:\s*"(0x[0-9a-fA-F]{40})"`))
	ch.workflow = common.HexToAddress(field(t, string(out), `workflow:\s*\{address:\s*"(0x[0-9a-fA-F]{40})"`))
	ch.registry = common.HexToAddress(field(t, string(out), `registry:\s*\{address:\s*"(0x[0-9a-fA-F]{40})"`))
	return ch
}

func writeKeyFile(t *testing.T, dir, name string, k *ecdsa.PrivateKey) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(hex.EncodeToString(crypto.FromECDSA(k))+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// fund sends wei from key to to and waits for the receipt.
func fund(ctx context.Context, t *testing.T, ec *ethclient.Client, key *ecdsa.PrivateKey, to common.Address, wei *big.Int) {
	t.Helper()
	if err := procs.FundOnGeth(ctx, ec, key, to, wei); err != nil {
		t.Fatal(err)
	}
}

// dialWhenUp waits until url answers eth_blockNumber.
func dialWhenUp(ctx context.Context, t *testing.T, url string, within time.Duration) *ethclient.Client {
	t.Helper()
	var ec *ethclient.Client
	pollEVM(ctx, t, within, 100*time.Millisecond, func() (bool, string) {
		c, err := ethclient.DialContext(ctx, url)
		if err == nil {
			if _, err = c.BlockNumber(ctx); err == nil {
				ec = c
				return true, ""
			}
			c.Close()
		}
		return false, fmt.Sprintf("%s did not answer eth_blockNumber: %v", url, err)
	})
	return ec
}

// waitPrinted waits until p's log holds marker and returns the log.
func waitPrinted(ctx context.Context, t *testing.T, p *proc, marker string, within time.Duration) string {
	t.Helper()
	pollEVM(ctx, t, within, 50*time.Millisecond, func() (bool, string) {
		select {
		case <-p.done():
			t.Fatalf("%s exited before printing %q:\n%s", p.name, marker, p.tail(40))
		default:
		}
		b, err := os.ReadFile(p.LogPath())
		return err == nil && strings.Contains(string(b), marker), fmt.Sprintf("%s printed no %q:\n%s", p.name, marker, p.tail(40))
	})
	// the lines after the marker are printed with it
	return readAll(p.LogPath())
}

// pollEVM calls cond every interval until it holds; when it has not
// within, t fails with what cond said last.
func pollEVM(ctx context.Context, t *testing.T, within, interval time.Duration, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		ok, why := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s", within, why)
		}
		pause := time.NewTimer(interval)
		select {
		case <-ctx.Done():
			pause.Stop()
			t.Fatal(ctx.Err())
		case <-pause.C:
		}
	}
}

func readAll(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var sb strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sb.WriteString(sc.Text())
		sb.WriteByte('\n')
	}
	return sb.String()
}

func field(t *testing.T, out, re string) string {
	t.Helper()
	m := regexp.MustCompile(re).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no %s in:\n%s", re, out)
	}
	return m[1]
}
