package smm

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/replog"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/sqlite"
	"github.com/ordolabs/ordo/internal/transport"
)

// The harness of the jobs' tests (issue 12, "Tests: each job in isolation
// on virtual time"): N smm.Nodes in one process, each with its own SQLite
// store and ed25519 identity registered in one in-process devchain's
// `nodes`, a fake sequencer (records in the node's store; `call` intents
// sent to the devchain and mined at once), a static registry and one
// virtual clock. The job queue runs, but every job kind's worker is parked
// (it holds its job until the test ends): a test calls the job it tests
// directly and reads the jobs it inserted from the store.

// testConfig is the harness's replication config: small slices, the
// defaults' durations on the virtual clock; RequestTimeout is wall time
// (a request to a node that is down waits it out).
func testConfig() Config {
	return Config{Enabled: true, Secondaries: 2, SliceSize: 2, MonitorEvery: time.Second, UnhealthyAfter: 30 * time.Second,
		SyncPoll: 15 * time.Second, SyncTimeout: 5 * time.Minute, MaxFailedSyncs: 3, MappingEvery: 10 * time.Minute,
		RequestTimeout: time.Second, AckTimeout: 10 * time.Second}
}

// harness is N nodes on one chain, network and clock.
type harness struct {
	t     *testing.T
	ctx   context.Context
	clk   *clock.Virtual
	dc    *devchain.Chain
	net   *memNet
	reg   *staticRegistry
	nodes []*testNode
	chain sync.Mutex // the dev account's nonce: one sender at a time
	from  chain.Address
}

// testNode is one member: its node, store, key and sequencer.
type testNode struct {
	*Node
	id    string
	key   ed25519.PrivateKey
	st    *sqlite.Store
	seq   *fakeSequencer
	allow *allowRecorder
}

// harnessOpts shape a harness.
type harnessOpts struct {
	nodes  int
	config func(*Config)
}

func newHarness(t *testing.T, o harnessOpts) *harness {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	clk := clock.NewVirtual(clock.Epoch)
	dc, err := devchain.New(devchain.Config{Clock: clk, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	accts, err := dc.DevAccounts(ctx)
	if err != nil || len(accts) == 0 {
		t.Fatalf("dev accounts: %v", err)
	}
	h := &harness{t: t, ctx: ctx, clk: clk, dc: dc, net: newMemNet(), reg: &staticRegistry{}, from: accts[0].Address}
	cfg := testConfig()
	if o.config != nil {
		o.config(&cfg)
	}
	var keys []ed25519.PrivateKey
	for i := range o.nodes {
		key := chain.KeyFromSeed(fmt.Sprintf("smm-harness/%d", i))
		id := devchain.NodeIDOf(key.Public().(ed25519.PublicKey))
		reg := devchain.SignNodeRegistration(key, id, strings.Repeat("ab", 32), fmt.Sprintf("node%d.test:7000", i), 1)
		args, _ := json.Marshal(reg)
		if ok, reason := h.send(devchain.NodesContract, devchain.NodesRegister, args, ""); !ok {
			t.Fatalf("register node %d: %s", i, reason)
		}
		keys = append(keys, key)
		h.reg.ids = append(h.reg.ids, transport.NodeID(id))
	}
	// Members in node id order: nodes[0] has the lowest id (ties of the
	// decisions go to the lowest id).
	slices.SortFunc(keys, func(a, b ed25519.PrivateKey) int {
		return strings.Compare(devchain.NodeIDOf(a.Public().(ed25519.PublicKey)), devchain.NodeIDOf(b.Public().(ed25519.PublicKey)))
	})
	var wg sync.WaitGroup
	for i, key := range keys {
		id := devchain.NodeIDOf(key.Public().(ed25519.PublicKey))
		st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "store.db"), sqlite.Options{Synchronous: sqlite.SyncNormal, Now: clk.Now})
		if err != nil {
			t.Fatal(err)
		}
		tn := &testNode{id: id, key: key, st: st, allow: &allowRecorder{}}
		tn.seq = &fakeSequencer{h: h, st: st, prefix: fmt.Sprintf("n%d-", i)}
		var jobIDs atomic.Int64
		n, err := New(NodeConfig{Config: cfg, Key: key, Store: st, Transport: h.net.end(transport.NodeID(id)), Chain: dc,
			Sequencer: tn.seq, Registry: h.reg, Allow: tn.allow.allow, Clock: clk, Servers: 4,
			Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
			NewJobID: func() int64 { return jobIDs.Add(1) }})
		if err != nil {
			t.Fatal(err)
		}
		tn.Node = n
		parked := func(ctx context.Context, _ store.Job) error { <-ctx.Done(); return ctx.Err() }
		for _, k := range []string{KindMonitorState, KindFindSyncRequests, KindFindReplicaSetUpdates, KindRecurringSync, KindManualSync, KindReplicaSetUpdate, KindRefreshMapping, KindProbeNode} {
			n.jobs.Register(k, jobWorker(parked))
		}
		h.net.attach(transport.NodeID(id), n.Handle)
		if err := n.Open(ctx); err != nil {
			t.Fatal(err)
		}
		for range n.cfg.Servers {
			wg.Go(func() { n.serveLoop(ctx) })
		}
		wg.Go(func() { _ = n.jobs.Run(ctx) })
		h.nodes = append(h.nodes, tn)
	}
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		for _, n := range h.nodes {
			_ = n.st.Close()
		}
		_ = dc.Close()
	})
	return h
}

// jobWorker adapts a function to jobq's Worker.
type jobWorker func(ctx context.Context, j store.Job) error

func (f jobWorker) Work(ctx context.Context, j store.Job) error { return f(ctx, j) }

// send sends one call from the dev account with memo, mines, and reports
// whether it succeeded (or its reason).
func (h *harness) send(contract, method string, args json.RawMessage, memo string) (bool, string) {
	h.t.Helper()
	h.chain.Lock()
	defer h.chain.Unlock()
	ctx := h.ctx
	acct, err := h.dc.Account(ctx, h.from)
	if err != nil {
		h.t.Fatal(err)
	}
	fee, err := h.dc.MinFee(ctx)
	if err != nil {
		h.t.Fatal(err)
	}
	hash, err := h.dc.SendTx(ctx, chain.Tx{From: h.from, Nonce: acct.Nonce, Fee: fee, Contract: contract, Method: method, Args: args, Memo: memo})
	if err != nil {
		return false, err.Error()
	}
	if _, ok, err := h.dc.Mine(ctx); err != nil || !ok {
		h.t.Fatalf("mine: %v %v", ok, err)
	}
	s, err := h.dc.TxStatus(ctx, hash)
	if err != nil {
		h.t.Fatal(err)
	}
	if s.State != chain.TxIncluded {
		return false, fmt.Sprintf("not included: %s %s", s.State, s.Reason)
	}
	return s.Success, s.Reason
}

// putSet writes a queue's set on chain, signed by its primary (a first
// set) or by the current one, and has every node read it.
func (h *harness) putSet(queue string, primary *testNode, secondaries ...*testNode) store.ReplicaSet {
	h.t.Helper()
	h.writeSet(queue, primary, secondaries...)
	var out store.ReplicaSet
	for _, n := range h.nodes {
		s, ok, err := n.refreshSet(h.ctx, queue)
		if err != nil || !ok {
			h.t.Fatalf("%s reads the set of %s: %v %v", n.id, queue, ok, err)
		}
		out = s
	}
	return out
}

// writeSet writes a queue's set on chain, as putSet, without any node
// reading it.
func (h *harness) writeSet(queue string, primary *testNode, secondaries ...*testNode) {
	h.t.Helper()
	cur, found, err := h.nodes[0].chainSet(h.ctx, queue)
	if err != nil {
		h.t.Fatal(err)
	}
	signer := primary
	if found {
		signer = h.node(cur.Primary)
	}
	var secs []string
	for _, s := range secondaries {
		secs = append(secs, s.id)
	}
	args, _ := json.Marshal(devchain.SignReplicaSetUpdate(signer.key, signer.id, queue, primary.id, secs, cur.Version))
	if ok, reason := h.send(devchain.ReplicaSetsContract, devchain.ReplicaSetsUpdate, args, ""); !ok {
		h.t.Fatalf("set of %s: %s", queue, reason)
	}
}

// node returns the member with id.
func (h *harness) node(id string) *testNode {
	for _, n := range h.nodes {
		if n.id == id {
			return n
		}
	}
	h.t.Fatalf("no node %s", id)
	return nil
}

// intents commits k intents of queue at n through its sequencer (logged
// when n is the queue's primary) and returns their uids.
func (h *harness) intents(n *testNode, queue string, k int) []string {
	h.t.Helper()
	var uids []string
	for range k {
		res, err := n.seq.Submit(h.ctx, []sequencer.Intake{{Queue: queue, Type: "noop", Data: json.RawMessage(`{}`)}})
		if err != nil {
			h.t.Fatal(err)
		}
		uids = append(uids, res[0].Transaction.UID)
	}
	return uids
}

// log returns a node's whole log of queue.
func (h *harness) log(n *testNode, queue string) []replog.Entry {
	h.t.Helper()
	var all []replog.Entry
	var after uint64
	for {
		es, err := n.st.LogAfter(h.ctx, queue, after, 1000)
		if err != nil {
			h.t.Fatal(err)
		}
		all = append(all, es...)
		if len(es) < 1000 {
			return all
		}
		after = es[len(es)-1].Clock
	}
}

// head returns a node's head of queue.
func (h *harness) head(n *testNode, queue string) replog.Head {
	h.t.Helper()
	hd, err := n.st.LogHead(h.ctx, queue)
	if err != nil {
		h.t.Fatal(err)
	}
	return hd
}

// copyLog gives to the first k entries of from's log of queue, as its
// secondary would hold them.
func (h *harness) copyLog(from, to *testNode, queue string, k int) {
	h.t.Helper()
	es := h.log(from, queue)[:k]
	set, err := to.st.ReplicaSet(h.ctx, queue)
	if err != nil {
		h.t.Fatal(err)
	}
	if _, err := to.st.AppendLog(h.ctx, queue, set.Version, es); err != nil {
		h.t.Fatal(err)
	}
}

// fork replaces to's log of queue with the first k entries of from's and
// extra entries of its own after them: another history.
func (h *harness) fork(from, to *testNode, queue string, k, extra int) {
	h.t.Helper()
	es := slices.Clone(h.log(from, queue)[:k])
	set, err := to.st.ReplicaSet(h.ctx, queue)
	if err != nil {
		h.t.Fatal(err)
	}
	var prev replog.Hash
	if k > 0 {
		prev = es[k-1].Hash
	}
	for i := range extra {
		c := store.Change{Op: store.ChangeIntent, UID: fmt.Sprintf("forked-%d", i), Type: "noop", Data: json.RawMessage(`{}`), At: h.clk.Now()}
		e := replog.Seal(queue, uint64(k+i+1), set.Version, prev, store.EncodeChange(c))
		es = append(es, e)
		prev = e.Hash
	}
	if _, err := to.st.ResetLog(h.ctx, queue, set.Version, es); err != nil {
		h.t.Fatal(err)
	}
}

// sameLog fails unless a and b hold the same log of queue.
func (h *harness) sameLog(a, b *testNode, queue string) {
	h.t.Helper()
	la, lb := h.log(a, queue), h.log(b, queue)
	if len(la) != len(lb) {
		h.t.Fatalf("log of %s: %d entries at %s, %d at %s", queue, len(la), a.id[:8], len(lb), b.id[:8])
	}
	for i := range la {
		if la[i].Hash != lb[i].Hash || la[i].Clock != lb[i].Clock {
			h.t.Fatalf("log of %s differs at clock %d", queue, la[i].Clock)
		}
	}
}

// jobs returns the jobs of kind a node holds (any state), by id.
func (h *harness) jobs(n *testNode, kind string) []store.Job {
	h.t.Helper()
	js, err := n.st.Jobs(h.ctx, store.JobFilter{Kind: kind, Limit: 1000})
	if err != nil {
		h.t.Fatal(err)
	}
	return js
}

// jobArgs decodes the args of a node's jobs of kind.
func jobArgs[A any](h *harness, n *testNode, kind string) []A {
	h.t.Helper()
	var out []A
	for _, j := range h.jobs(n, kind) {
		var a A
		if err := json.Unmarshal(j.Args, &a); err != nil {
			h.t.Fatal(err)
		}
		out = append(out, a)
	}
	return out
}

// chainSet reads a queue's set from the chain.
func (h *harness) chainSet(queue string) store.ReplicaSet {
	h.t.Helper()
	s, ok, err := h.nodes[0].chainSet(h.ctx, queue)
	if err != nil || !ok {
		h.t.Fatalf("set of %s on chain: %v %v", queue, ok, err)
	}
	return s
}

// advanceUntil moves the virtual clock by step until done is closed (wall
// deadline 20s): for a job waiting on timers it has not made yet.
func (h *harness) advanceUntil(done <-chan struct{}, step time.Duration) {
	h.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case <-done:
			return
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			h.t.Fatal("timed out advancing the virtual clock")
		}
		h.clk.Advance(step)
	}
}

// waitFor polls cond on the wall clock until it holds (deadline 10s).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// memNet is an in-memory transport: Send hands the message to the peer's
// handler on a goroutine; a node that is down neither sends nor receives
// (its messages are dropped, as a dead machine's would be).
type memNet struct {
	mu       sync.Mutex
	handlers map[transport.NodeID]transport.Handler
	down     map[transport.NodeID]bool
}

func newMemNet() *memNet {
	return &memNet{handlers: map[transport.NodeID]transport.Handler{}, down: map[transport.NodeID]bool{}}
}

func (m *memNet) attach(id transport.NodeID, h transport.Handler) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.handlers[id] = h
}

// setDown turns a node's link off (true) or on.
func (m *memNet) setDown(id string, down bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.down[transport.NodeID(id)] = down
}

func (m *memNet) end(id transport.NodeID) transport.Transport { return &memEnd{net: m, self: id} }

type memEnd struct {
	net  *memNet
	self transport.NodeID
}

func (e *memEnd) Self() transport.NodeID { return e.self }

func (e *memEnd) Send(ctx context.Context, to transport.NodeID, msg transport.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	e.net.mu.Lock()
	h, dropped := e.net.handlers[to], e.net.down[e.self] || e.net.down[to]
	e.net.mu.Unlock()
	if h == nil {
		return transport.ErrUnknownPeer
	}
	if dropped {
		return nil
	}
	msg.From = e.self
	go h(msg)
	return nil
}

// staticRegistry is the registry: the harness's ids; Refresh fails while
// fail is set.
type staticRegistry struct {
	ids  []transport.NodeID
	fail atomic.Bool
}

func (r *staticRegistry) Refresh(context.Context) error {
	if r.fail.Load() {
		return errors.New("registry: chain unreachable")
	}
	return nil
}

func (r *staticRegistry) IDs() []transport.NodeID { return slices.Clone(r.ids) }

// allowRecorder is a primary's rule for forwarded intents: it records the
// principals it saw and refuses those in deny.
type allowRecorder struct {
	mu   sync.Mutex
	seen []string
	deny map[string]bool
}

func (a *allowRecorder) allow(principal, typ string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seen = append(a.seen, principal+"/"+typ)
	if a.deny[principal] {
		return fmt.Errorf("principal %s may not submit %s", principal, typ)
	}
	return nil
}

func (a *allowRecorder) principals() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.seen)
}

// fakeSequencer is a node's sequencer: Submit commits the intents in the
// node's store (logged when it is the queue's primary); a `call` intent
// is sent to the chain at once (memo its uid), mined, and its record made
// DONE, or FAILED with the chain's reason.
type fakeSequencer struct {
	h      *harness
	st     *sqlite.Store
	prefix string
	next   atomic.Int64
	gmu    sync.Mutex
	closed map[string]bool // queues Gate closed
}

// Gate records a queue closed or opened.
func (s *fakeSequencer) Gate(queue string, closed bool) {
	s.gmu.Lock()
	defer s.gmu.Unlock()
	if s.closed == nil {
		s.closed = map[string]bool{}
	}
	s.closed[queue] = closed
}

// isClosed reports whether Gate last closed queue.
func (s *fakeSequencer) isClosed(queue string) bool {
	s.gmu.Lock()
	defer s.gmu.Unlock()
	return s.closed[queue]
}

func (s *fakeSequencer) Submit(ctx context.Context, in []sequencer.Intake) ([]store.EnqueueResult, error) {
	txs := make([]store.NewTransaction, len(in))
	for i, it := range in {
		txs[i] = store.NewTransaction{UID: fmt.Sprintf("%s%06d", s.prefix, s.next.Add(1)), Queue: it.Queue, Type: it.Type,
			Data: it.Data, Principal: it.Principal, IdempotencyKey: it.IdempotencyKey, At: s.h.clk.Now()}
	}
	res, err := s.st.Enqueue(ctx, txs)
	if err != nil {
		return nil, err
	}
	for i, r := range res {
		if !r.Created || r.Transaction.Type != dispatch.CallType {
			continue
		}
		var c dispatch.Call
		if err := json.Unmarshal(r.Transaction.Data, &c); err != nil {
			return nil, err
		}
		ok, reason := s.h.send(c.Contract, c.Method, c.Args, r.Transaction.UID)
		state, errText := store.Done, ""
		if !ok {
			state, errText = store.Failed, reason
		}
		now := s.h.clk.Now()
		if err := s.st.Apply(ctx, store.Batch{Txs: []store.TxUpdate{{UID: r.Transaction.UID, State: state, Error: errText, At: now}},
			History: []store.HistoryEntry{{UID: r.Transaction.UID, At: now, From: store.Waiting, To: state, Note: "fake sequencer"}}}); err != nil {
			return nil, err
		}
		res[i].Transaction.State = state
	}
	return res, nil
}

// sortedIDs returns ids sorted (a set's secondaries compared as sets).
func sortedIDs(ids []string) []string {
	out := slices.Clone(ids)
	sort.Strings(out)
	return out
}

// mustJSON decodes b into v or fails the test.
func mustJSON(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

// short abbreviates node ids for messages.
func short(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id[:min(len(id), 9)]
	}
	return out
}
