package node

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/chain/evm/evmdev"
	"github.com/ordolabs/ordo/internal/distseq/token"
	"github.com/ordolabs/ordo/internal/identity"
	"github.com/ordolabs/ordo/internal/smm"
	"github.com/ordolabs/ordo/internal/store"
)

// committeeConfig shapes a test committee: full nodes (Build + Serve) in
// this process, gRPC with mutual TLS on loopback, one devchain over HTTP
// and one privacy group "g" of every member.
type committeeConfig struct {
	// Nodes is the committee's size.
	Nodes int
	// Threshold is the group's endorsement threshold. Defaults to every
	// member.
	Threshold int
	// RangeSize is the blocks per coordinator range. Defaults to 1000 (no
	// switchover in a short test).
	RangeSize uint64
	// BlockTime is the devchain's. Defaults to 100ms.
	BlockTime time.Duration
	// Coins are the amounts minted to the group. Defaults to three of 100.
	Coins []uint64
	// Registry has the nodes find each other in the chain's nodes registry
	// instead of pinned peers.
	Registry bool
	// Replication, when set, is every member's replication config (it
	// needs Registry).
	Replication *smm.Config
	// Proxied routes each directed pair i->j through its own tcpProxy
	// (node i's peer entry for j names proxy(i->j)), for partitions.
	Proxied bool
	// EVM runs the committee on an in-process evmdev chain (its
	// PrivacyGroup contract) instead of a devchain; member i sends from
	// dev account i+1.
	EVM bool
}

// committee is a running test committee.
type committee struct {
	t     *testing.T
	ctx   context.Context
	cfg   committeeConfig
	dc    *devchain.Chain
	dev   *evmdev.Chain // the chain instead of dc when cfg.EVM
	chain string
	ms    []*member
	logs  *logTail
	wg    sync.WaitGroup
}

// member is one node of a committee and what survives its restarts.
type member struct {
	i    int
	dir  string
	addr string // its gRPC listen address, fixed across restarts
	key  identity.Key
	fp   string
	// sender is its sequencer's dev sender: the From of what it submits.
	sender chain.Address
	// via[j] is its route to member j when proxied.
	via  map[int]*tcpProxy
	api  string // "http://host:port" of its API while up
	node *Node  // nil while down
	stop context.CancelFunc
	done chan struct{}
}

// newCommittee starts a devchain, deploys and mints the group, and starts
// every member; it returns once each has indexed the group. Everything is
// stopped at the test's end.
func newCommittee(t *testing.T, cfg committeeConfig) *committee {
	t.Helper()
	if cfg.RangeSize == 0 {
		cfg.RangeSize = 1000
	}
	if cfg.BlockTime == 0 {
		cfg.BlockTime = 100 * time.Millisecond
	}
	if len(cfg.Coins) == 0 {
		cfg.Coins = []uint64{100, 100, 100}
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &committee{t: t, ctx: ctx, cfg: cfg, logs: &logTail{}}
	closeChain := func() {}
	if cfg.EVM {
		closeChain = h.startEVM()
	} else {
		dc, err := devchain.New(devchain.Config{BlockTime: cfg.BlockTime})
		if err != nil {
			t.Fatal(err)
		}
		h.dc = dc
		srv := httptest.NewServer(devchain.NewHandler(dc))
		h.chain = srv.URL
		h.wg.Go(func() { _ = dc.Run(ctx) })
		closeChain = func() {
			srv.Close()
			dc.Close()
		}
	}
	t.Cleanup(func() {
		for _, m := range h.ms {
			if m.node != nil {
				h.stop(m.i)
			}
		}
		cancel()
		h.wg.Wait()
		closeChain()
		if t.Failed() {
			t.Logf("the nodes' last log lines:\n%s", h.logs.String())
		}
	})

	// The identities, hence the ring (who coordinates which range), come
	// from the seed; the timing of a run does not.
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("ORDO_SEED"); v != "" {
		var err error
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatalf("ORDO_SEED: %v", err)
		}
	}
	t.Logf("seed %d (the committee's identities; replay: ORDO_SEED=%d)", seed, seed)
	var s [32]byte
	binary.LittleEndian.PutUint64(s[:], seed)
	ids := rand.NewChaCha8(s)
	for i := range cfg.Nodes {
		k, err := identity.Generate(ids)
		if err != nil {
			t.Fatal(err)
		}
		cert, err := identity.NewCertificate(k, time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := identity.Save(filepath.Join(dir, "node.key"), filepath.Join(dir, "node.crt"), k, cert); err != nil {
			t.Fatal(err)
		}
		ks, err := devKeys(filepath.Join(dir, "keys.json"), 1)
		if err != nil {
			t.Fatal(err)
		}
		sender := chain.KeyAddress(ks[0])
		if h.dev != nil {
			sender = chain.Address(evmdev.AddressString(h.dev.Accounts[i+1]))
		}
		h.ms = append(h.ms, &member{i: i, dir: dir, addr: freeAddr(t), key: k, fp: identity.FingerprintDER(cert.Certificate[0]),
			sender: sender, via: map[int]*tcpProxy{}})
	}
	if cfg.Proxied {
		for _, m := range h.ms {
			for _, o := range h.ms {
				if o != m {
					m.via[o.i] = newTCPProxy(t, func() string { return o.addr })
				}
			}
		}
	}
	if cfg.EVM {
		h.deployEVM()
	} else {
		h.deploy()
	}
	for i := range h.ms {
		h.start(i)
	}
	waitUntil(t, 20*time.Second, "the group and its coins indexed at every member", func() bool {
		for _, m := range h.ms {
			if _, err := m.node.store.DistseqGroup(ctx, "g"); err != nil {
				return false
			}
			if sts, err := m.node.store.DistseqStates(ctx, "g", true); err != nil || len(sts) < len(h.ms)*len(cfg.Coins) {
				return false
			}
			// On an EVM chain, a node with a registry (replicated queues
			// on) waits for every member's entry too.
			reg := m.node.Distseq.registry
			if (cfg.Registry || h.dev != nil && reg != nil) && reg.Len() < len(h.ms) {
				return false
			}
		}
		return true
	})
	return h
}

// deploy deploys group "g" of every member and mints its coins, from a
// dev account of the chain.
func (h *committee) deploy() {
	t := h.t
	var pm []devchain.PrivacyMember
	for _, m := range h.ms {
		pm = append(pm, devchain.PrivacyMember{ID: string(m.key.ID()), PublicKey: hex.EncodeToString(m.key.Public())})
	}
	deploy := map[string]any{"group": "g", "members": pm}
	if h.cfg.Threshold > 0 {
		deploy["threshold"] = h.cfg.Threshold
	}
	accts, err := h.dc.DevAccounts(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	type call struct {
		method string
		args   any
	}
	calls := []call{{devchain.PrivacyDeploy, deploy}}
	for _, m := range pm { // the coins for the dev principal on each member, one mint each
		var ps []devchain.PrivacyState
		for _, c := range token.Mint("m-"+m.ID+"-", auth.DevPrincipal+"@"+m.ID, h.cfg.Coins...) {
			ps = append(ps, devchain.PrivacyState{ID: c.ID, Owner: c.Owner, Data: json.RawMessage(c.Data)})
		}
		calls = append(calls, call{devchain.PrivacyMint, map[string]any{"group": "g", "states": ps}})
	}
	for i, call := range calls {
		b, _ := json.Marshal(call.args)
		if _, err := h.dc.SendTx(h.ctx, chain.Tx{From: accts[0].Address, Nonce: uint64(i), Fee: 10000,
			Contract: devchain.PrivacyGroupContract, Method: call.method, Args: b}); err != nil {
			t.Fatal(err)
		}
	}
}

// config is member i's node config.
func (h *committee) config(i int) Config {
	m := h.ms[i]
	var peers []DistseqPeer
	for _, o := range h.ms {
		if o == m || h.cfg.Registry {
			continue
		}
		endpoint := o.addr
		if p := m.via[o.i]; p != nil {
			endpoint = p.Addr()
		}
		peers = append(peers, DistseqPeer{ID: string(o.key.ID()), Endpoint: endpoint, Fingerprint: o.fp})
	}
	var repl smm.Config
	if h.cfg.Replication != nil {
		repl = *h.cfg.Replication
	}
	c := Config{Data: m.dir, Chain: h.chain, DevSenders: 1, DevMode: true, Listen: "127.0.0.1:0", Replication: repl,
		Distseq: DistseqConfig{Key: filepath.Join(m.dir, "node.key"), Cert: filepath.Join(m.dir, "node.crt"), Listen: m.addr,
			Peers: peers, RangeSize: h.cfg.RangeSize, PollEvery: Duration(50 * time.Millisecond),
			Registry: h.cfg.Registry, RegistryEvery: Duration(100 * time.Millisecond)}}
	if h.cfg.EVM {
		h.useEVM(&c, i)
	}
	return c
}

// start builds member i from its config and data directory and serves it.
func (h *committee) start(i int) {
	t := h.t
	t.Helper()
	m := h.ms[i]
	log := slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelInfo})).With("member", i)
	n, err := Build(h.ctx, h.config(i), Options{Logger: log})
	if err != nil {
		t.Fatalf("member %d: %v", i, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		_ = n.Close()
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(h.ctx)
	m.node, m.api, m.stop, m.done = n, "http://"+ln.Addr().String(), stop, make(chan struct{})
	done := m.done
	h.wg.Go(func() {
		defer close(done)
		if err := n.Serve(ctx, ln); err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("member %d: serve: %v", i, err)
		}
	})
}

// stop stops member i hard: its Serve cancelled (no hand-off of anything
// it coordinates), then its node closed.
func (h *committee) stop(i int) {
	m := h.ms[i]
	m.stop()
	<-m.done
	if err := m.node.Close(); err != nil {
		h.t.Errorf("member %d: close: %v", i, err)
	}
	m.node, m.api = nil, ""
}

// isolate cuts every proxy touching member i (live connections closed,
// new ones refused); heal undoes it.
func (h *committee) isolate(i int) { h.eachProxy(i, (*tcpProxy).Cut) }
func (h *committee) heal(i int)    { h.eachProxy(i, (*tcpProxy).Heal) }

func (h *committee) eachProxy(i int, f func(*tcpProxy)) {
	for _, m := range h.ms {
		for j, p := range m.via {
			if m.i == i || j == i {
				f(p)
			}
		}
	}
}

// rpc posts one JSON-RPC request to member i's /rpc, as any client would.
func (h *committee) rpc(i int, body string) map[string]json.RawMessage {
	t := h.t
	t.Helper()
	resp, err := http.Post(h.ms[i].api+"/rpc", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// send sends a transfer of amount to member i through ptx_sendTransaction
// under idempotency key key and returns its transaction id.
func (h *committee) send(i int, key string, amount uint64) string {
	h.t.Helper()
	out := h.rpc(i, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"ptx_sendTransaction","params":[{"type":"private","domain":"token",`+
		`"from":"dev","to":"g","data":{"to":"alice","amount":%d},"idempotencyKey":%q}]}`, amount, key))
	var id string
	if err := json.Unmarshal(out["result"], &id); err != nil || id == "" {
		h.t.Fatalf("member %d: ptx_sendTransaction: %s", i, out["error"])
	}
	return id
}

// coordinator is the coordinator of "g" as member i sees it, as a member
// index, or -1.
func (h *committee) coordinator(i int) int {
	id, err := h.ms[i].node.Distseq.Coordinator(h.ctx, "g")
	if err != nil {
		h.t.Fatal(err)
	}
	return h.indexOf(id)
}

func (h *committee) indexOf(id string) int {
	return slices.IndexFunc(h.ms, func(m *member) bool { return string(m.key.ID()) == id })
}

// intent is the chain's record of txID, or false.
func (h *committee) intent(txID string) (devchain.PrivacyIntent, bool) {
	raw, err := h.dc.Call(h.ctx, devchain.PrivacyGroupContract, "intent", json.RawMessage(`{"group":"g","txId":"`+txID+`"}`))
	if err != nil {
		return devchain.PrivacyIntent{}, false
	}
	var in devchain.PrivacyIntent
	if err := json.Unmarshal(raw, &in); err != nil {
		h.t.Fatal(err)
	}
	return in, true
}

// untilConfirmed waits until every intent of sent (txID -> sending
// member) is on chain and its sender's record says Confirmed.
func (h *committee) untilConfirmed(d time.Duration, sent map[string]int) {
	h.t.Helper()
	waitUntil(h.t, d, fmt.Sprintf("%d intents confirmed", len(sent)), func() bool {
		for id, i := range sent {
			if _, ok := h.intent(id); !ok {
				return false
			}
			n := h.ms[i].node
			if n == nil {
				return false
			}
			rec, err := n.store.DistseqIntent(h.ctx, id)
			if err != nil || rec.Status != store.DistseqConfirmed {
				return false
			}
		}
		return true
	})
}

// audit checks the outcome of a run, with every member up: each intent
// of sent confirmed once on chain (one IntentConfirmed event), confirmed
// in its sender's record, no state spent by two confirmed intents, and
// every state each created held, with its data, in every member's store.
func (h *committee) audit(sent map[string]int) {
	t := h.t
	t.Helper()
	h.untilConfirmed(30*time.Second, sent)
	events := map[string]int{}
	spentBy := map[string]string{}
	var after uint64
	for {
		evs, err := h.dc.Events(h.ctx, after, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) == 0 {
			break
		}
		for _, e := range evs {
			after = e.Cursor
			ic, ok, err := devchain.IntentConfirmedOf(e)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				continue
			}
			events[ic.TxID]++
			for _, s := range ic.Spends {
				if prev, ok := spentBy[s]; ok {
					t.Errorf("state %s spent by %s and by %s", s, prev, ic.TxID)
				}
				spentBy[s] = ic.TxID
			}
		}
	}
	for id := range sent {
		if events[id] != 1 {
			t.Errorf("%s confirmed %d times on chain, want once", id, events[id])
		}
	}
	for id, n := range events {
		if _, ok := sent[id]; !ok {
			t.Errorf("%s confirmed %d times on chain, but no one sent it", id, n)
		}
	}
	var created []string
	for id := range sent {
		in, _ := h.intent(id)
		created = append(created, in.Creates...)
	}
	waitUntil(t, 30*time.Second, fmt.Sprintf("the %d created states at every member", len(created)), func() bool {
		for _, m := range h.ms {
			sts, err := m.node.store.DistseqStates(h.ctx, "g", false)
			if err != nil {
				return false
			}
			have := map[string]bool{}
			for _, s := range sts {
				have[s.ID] = len(s.Data) > 0
			}
			for _, c := range created {
				if !have[c] {
					return false
				}
			}
		}
		return true
	})
}

// submitters lists, in chain order, the member whose sender submitted
// each confirm of sent that is on chain (-1 for an account of no member).
func (h *committee) submitters(sent map[string]int) []int {
	t := h.t
	t.Helper()
	type at struct {
		height uint64
		index  int
		member int
	}
	var out []at
	for id := range sent {
		in, ok := h.intent(id)
		if !ok {
			continue
		}
		bs, err := h.dc.Blocks(h.ctx, in.Height, in.Height)
		if err != nil || len(bs) != 1 {
			t.Fatalf("block %d: %v", in.Height, err)
		}
		i := slices.IndexFunc(bs[0].Txs, func(tx chain.BlockTx) bool { return tx.Hash == in.TxHash })
		if i < 0 {
			t.Fatalf("%s: tx %s not in block %d", id, in.TxHash, in.Height)
		}
		from := bs[0].Txs[i].From
		out = append(out, at{in.Height, i, slices.IndexFunc(h.ms, func(m *member) bool { return m.sender == from })})
	}
	slices.SortFunc(out, func(a, b at) int {
		if a.height != b.height {
			return int(a.height) - int(b.height)
		}
		return a.index - b.index
	})
	ms := make([]int, len(out))
	for i, a := range out {
		ms[i] = a.member
	}
	return ms
}

// logTail keeps the last lines the nodes logged, printed when a test
// fails.
type logTail struct {
	mu    sync.Mutex
	lines [][]byte
}

const logTailLines = 400

func (l *logTail) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, bytes.Clone(p))
	if len(l.lines) > 2*logTailLines {
		l.lines = slices.Delete(l.lines, 0, len(l.lines)-logTailLines)
	}
	return len(p), nil
}

func (l *logTail) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(bytes.Join(l.lines[max(0, len(l.lines)-logTailLines):], nil))
}
