package node

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/api"
	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit"
)

const startToken = "startup-test-admin-token-0123"

// serveNode builds cfg (with an admin principal and the integration
// settings) and serves it on loopback until the test ends, without waiting
// for its engines; logs go to the returned buffer.
func serveNode(t *testing.T, cfg Config) (*itNode, *testkit.LogBuffer) {
	t.Helper()
	if cfg.Data == "" {
		cfg.Data = t.TempDir()
	}
	cfg.RetryDelay, cfg.InclusionTimeoutBlocks = Duration(itRetryDelay), itInclusionTimeout
	cfg.Principals = append(cfg.Principals, auth.PrincipalConfig{Principal: "ops", Token: startToken, Roles: []auth.Role{auth.RoleAdmin}})
	logs := &testkit.LogBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	n, err := Build(ctx, cfg, Options{Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	if err != nil {
		cancel()
		t.Fatalf("build: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		cancel()
		n.Close()
		t.Fatal(err)
	}
	h := &itNode{t: t, n: n, ctx: ctx, addr: ln.Addr().String(), stopped: make(chan struct{}), dc: n.Devchain}
	go func() {
		h.serveErr = n.Serve(ctx, ln)
		close(h.stopped)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-h.stopped:
			if h.serveErr != nil {
				t.Errorf("serve: %v", h.serveErr)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("serve did not return 10s after its context ended")
		}
		if err := n.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return h, logs
}

// call makes an API call as the admin and returns the status and body.
func (h *itNode) call(method, path, body string) (int, []byte) {
	h.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, "http://"+h.addr+path, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+startToken)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		h.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// health reads /healthz.
func (h *itNode) health() (int, api.HealthResponse) {
	h.t.Helper()
	st, b := h.call(http.MethodGet, "/healthz", "")
	var r api.HealthResponse
	if err := json.Unmarshal(b, &r); err != nil {
		h.t.Fatalf("/healthz: %v: %s", err, b)
	}
	return st, r
}

// intake posts one intent and returns the status and the record.
func (h *itNode) intake(body string) (int, store.Transaction, string) {
	h.t.Helper()
	st, b := h.call(http.MethodPost, "/v1/transactions", body)
	var tx store.Transaction
	_ = json.Unmarshal(b, &tx)
	var e api.Error
	_ = json.Unmarshal(b, &e)
	return st, tx, e.Error.Code
}

// alive fails the test if the node's Serve has returned.
func (h *itNode) alive() {
	h.t.Helper()
	select {
	case <-h.stopped:
		h.t.Fatalf("the node stopped: %v", h.serveErr)
	default:
	}
}

// waitDone waits until the record uid is DONE.
func (h *itNode) waitDone(uid string) {
	h.t.Helper()
	testkit.WaitFor(h.t, 30*time.Second, itPollEvery, uid+" DONE", func() bool {
		tx, err := h.n.Sequencer.Store().Get(h.ctx, uid)
		return err == nil && tx.State == store.Done
	})
}

// TestStartsWithoutItsChain: a node whose chain does not answer at start
// starts: intake is acknowledged, /healthz answers 503 chain_unreachable,
// the engines (the sequencer) wait; once the chain answers they start,
// the dev senders are funded, the intent ends DONE and /healthz is 200.
func TestStartsWithoutItsChain(t *testing.T) {
	_, url, up := downChain(t)
	h, logs := serveNode(t, Config{Chain: url, DevSenders: 2})
	testkit.WaitFor(t, 10*time.Second, itPollEvery, "/healthz 503 chain_unreachable", func() bool {
		st, r := h.health()
		return st == http.StatusServiceUnavailable && r.Status == api.StatusChainUnreachable && len(r.Conditions) == 1
	})
	st, tx, code := h.intake(`{"queue":"no-chain","type":"CREATE_CLAIM_VOTING_ACCOUNT","idempotencyKey":"k1"}`)
	if st != http.StatusCreated {
		t.Fatalf("intake while the chain is down: %d %s", st, code)
	}
	select {
	case <-h.n.Sequencer.Started():
		t.Fatal("the sequencer started without its chain")
	case <-h.n.Ready():
		t.Fatal("the gate opened without the chain")
	default:
	}
	testkit.WaitFor(t, 10*time.Second, itPollEvery, "a log line that says the node waits for its chain", func() bool {
		return len(logs.Records(t, "waiting for the chain: the engines start once it answers")) > 0
	})
	h.alive()

	up.Store(true)
	select {
	case <-h.n.Sequencer.Started():
	case <-time.After(30 * time.Second):
		t.Fatal("the sequencer did not start once the chain answered")
	}
	h.waitDone(tx.UID)
	testkit.WaitFor(t, 10*time.Second, itPollEvery, "/healthz 200", func() bool {
		st, _ := h.health()
		return st == http.StatusOK
	})
}

// downChain runs a devchain served at url, down (each connection drops
// without an answer) until up is set.
func downChain(t *testing.T) (dc *devchain.Chain, url string, up *atomic.Bool) {
	t.Helper()
	dc, err := devchain.New(devchain.Config{BlockTime: itBlockTime, DataDir: t.TempDir(), DevAccounts: 16})
	if err != nil {
		t.Fatal(err)
	}
	up = &atomic.Bool{}
	chainAPI := devchain.NewHandler(dc)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !up.Load() { // down: the connection drops without an answer
			if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
				_ = c.Close()
			}
			return
		}
		chainAPI.ServeHTTP(w, r)
	}))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = dc.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done; _ = dc.Close(); srv.Close() })
	return dc, srv.URL, up
}

// leaderAccount makes dev account i of dc a leader holding one cap
// (granted by the last dev account, the workflow's admin) and returns its
// address and a key file holding its seed, for senders: keyFile.
func leaderAccount(t *testing.T, dc *devchain.Chain, i int) (chain.Address, string) {
	t.Helper()
	ctx := context.Background()
	accts, err := dc.DevAccounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	admin, lead := accts[len(accts)-1].Address, accts[i].Address
	send := func(nonce uint64, method, args string) {
		if _, err := dc.SendTx(ctx, chain.Tx{From: admin, Nonce: nonce, Fee: 1000, Contract: devchain.WorkflowContract, Method: method, Args: json.RawMessage(args)}); err != nil {
			t.Fatalf("workflow %s: %v", method, err)
		}
	}
	send(0, devchain.WorkflowInit, `{}`)
	testkit.WaitFor(t, 10*time.Second, itPollEvery, "the workflow's admin", func() bool {
		raw, err := dc.Call(ctx, devchain.WorkflowContract, "admin", json.RawMessage(`{}`))
		return err == nil && strings.Contains(string(raw), string(admin))
	})
	send(1, devchain.WorkflowGrantLeaderCap, fmt.Sprintf(`{"leader":%q}`, lead))
	testkit.WaitFor(t, 10*time.Second, itPollEvery, "the leader's cap", func() bool {
		raw, err := dc.Call(ctx, devchain.WorkflowContract, "caps", json.RawMessage(fmt.Sprintf(`{"leader":%q}`, lead)))
		return err == nil && string(raw) == `{"caps":1}`
	})
	k, ok := dc.DevKey(lead)
	if !ok {
		t.Fatalf("no dev key for %s", lead)
	}
	file := filepath.Join(t.TempDir(), "leader.key")
	if err := os.WriteFile(file, []byte(hex.EncodeToString(k.Seed())), 0o600); err != nil {
		t.Fatal(err)
	}
	return lead, file
}

// TestStartsWithoutItsChainWithLeader: a node with leader.accounts whose
// chain does not answer at start starts too: intake is acknowledged,
// /healthz answers 503 chain_unreachable, the leader waits; once the chain
// answers, its channels are read from the caps and pinned (leader/0 to
// the cap's account), the leader starts and a walk gets its result,
// submitted by that account (the workflow takes it from no other).
func TestStartsWithoutItsChainWithLeader(t *testing.T) {
	dc, url, up := downChain(t)
	lead, keyFile := leaderAccount(t, dc, 0)
	h, _ := serveNode(t, Config{Chain: url, DevSenders: 2, Senders: []SenderFile{{KeyFile: keyFile}}, Leader: LeaderConfig{Accounts: []string{string(lead)}}})
	testkit.WaitFor(t, 10*time.Second, itPollEvery, "/healthz 503 chain_unreachable", func() bool {
		st, r := h.health()
		return st == http.StatusServiceUnavailable && r.Status == api.StatusChainUnreachable && len(r.Conditions) == 1
	})
	st, tx, code := h.intake(`{"queue":"no-chain","type":"CREATE_CLAIM_VOTING_ACCOUNT","idempotencyKey":"k1"}`)
	if st != http.StatusCreated {
		t.Fatalf("intake while the chain is down: %d %s", st, code)
	}
	select {
	case <-h.n.Leader.Started():
		t.Fatal("the leader started without its chain")
	case <-h.n.Ready():
		t.Fatal("the gate opened without the chain")
	default:
	}
	h.alive()

	accts, err := dc.DevAccounts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dc.SendTx(context.Background(), chain.Tx{From: accts[1].Address, Fee: 1000, Contract: devchain.WorkflowContract, Method: devchain.WorkflowRequest,
		Args: json.RawMessage(`{"walk":"w1","tool":"nosuch","input":{}}`)}); err != nil {
		t.Fatal(err)
	}
	up.Store(true)
	select {
	case <-h.n.Leader.Started():
	case <-time.After(30 * time.Second):
		h.alive()
		t.Fatal("the leader did not start once the chain answered")
	}
	h.waitDone(tx.UID)
	var walk devchain.Walk
	testkit.WaitFor(t, 30*time.Second, itPollEvery, "w1's result", func() bool {
		raw, err := dc.Call(context.Background(), devchain.WorkflowContract, "walk", json.RawMessage(`{"walk":"w1"}`))
		return err == nil && json.Unmarshal(raw, &walk) == nil && walk.Result != nil
	})
	if walk.Result.OK || walk.Result.Leader != lead {
		t.Fatalf("w1's result: %+v, want a failure (no tool nosuch) submitted by the leader %s", *walk.Result, lead)
	}
	testkit.WaitFor(t, 10*time.Second, itPollEvery, "/healthz 200", func() bool {
		st, _ := h.health()
		return st == http.StatusOK
	})
}

// TestLeaderWithoutCapStopsOnceChainAnswers: a node with leader.accounts
// started without its chain stops, once the chain answers, with Build's
// error when the account holds no cap (a config error), and logs why.
func TestLeaderWithoutCapStopsOnceChainAnswers(t *testing.T) {
	dc, url, up := downChain(t)
	accts, err := dc.DevAccounts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	lead := accts[0].Address
	k, _ := dc.DevKey(lead)
	keyFile := filepath.Join(t.TempDir(), "leader.key")
	if err := os.WriteFile(keyFile, []byte(hex.EncodeToString(k.Seed())), 0o600); err != nil {
		t.Fatal(err)
	}
	logs := &testkit.LogBuffer{}
	cfg := Config{Data: t.TempDir(), Chain: url, DevSenders: 1, Senders: []SenderFile{{KeyFile: keyFile}}, Leader: LeaderConfig{Accounts: []string{string(lead)}}}
	n, err := Build(context.Background(), cfg, Options{Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	t.Cleanup(func() { _ = n.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- n.Serve(ctx, ln) }()
	testkit.WaitFor(t, 10*time.Second, itPollEvery, "a log line that says the node waits for its chain", func() bool {
		return len(logs.Records(t, "waiting for the chain: the engines start once it answers")) > 0
	})
	up.Store(true)
	select {
	case err := <-served:
		if err == nil || !strings.Contains(err.Error(), "holds no leader cap") {
			t.Fatalf("serve: %v, want the leader's refusal (no cap)", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the node did not stop once the chain said its leader holds no cap")
	}
	if recs := logs.Records(t, "the leader cannot start: the node stops (leader.accounts: a config error)"); len(recs) != 1 {
		t.Errorf("log of the refusal: %v", recs)
	}
	select {
	case <-n.Ready():
		t.Error("the gate opened for a leader without a cap")
	default:
	}
}

// TestSharedStoreRefusesInProcessChain: a PostgreSQL store with an
// in-process devchain is refused before anything opens.
func TestSharedStoreRefusesInProcessChain(t *testing.T) {
	_, err := Build(context.Background(), Config{Data: t.TempDir(), Store: StoreConfig{URL: "postgres://localhost:1/none"}}, Options{Logger: slog.New(slog.DiscardHandler)})
	if !errors.Is(err, ErrSharedInProcess) {
		t.Fatalf("Build: %v, want ErrSharedInProcess", err)
	}
}

// TestStoreBelongsToOneChain: a data directory whose store recorded one
// chain, started again on another, keeps its engines stopped, logs it and
// answers /healthz 503 chain_identity_mismatch naming both; started on its
// own chain again, it runs.
func TestStoreBelongsToOneChain(t *testing.T) {
	data := t.TempDir()
	dcA, urlA := standaloneChain(t, DevchainConfig{BlockTime: Duration(itBlockTime)})
	dcB, urlB := standaloneChain(t, DevchainConfig{BlockTime: Duration(itBlockTime), Seed: 2})
	idA, _ := dcA.Identity(context.Background())
	idB, _ := dcB.Identity(context.Background())
	var first string
	t.Run("first", func(t *testing.T) {
		h, _ := serveNode(t, Config{Data: data, Chain: urlA, DevSenders: 2})
		<-h.n.Ready()
		_, tx, _ := h.intake(`{"queue":"one-chain","type":"CREATE_CLAIM_VOTING_ACCOUNT"}`)
		h.waitDone(tx.UID)
		first = tx.UID
	})
	if t.Failed() {
		return
	}
	t.Run("other chain", func(t *testing.T) {
		h, logs := serveNode(t, Config{Data: data, Chain: urlB, DevSenders: 2})
		var r api.HealthResponse
		testkit.WaitFor(t, 10*time.Second, itPollEvery, "/healthz 503 chain_identity_mismatch", func() bool {
			var st int
			st, r = h.health()
			return st == http.StatusServiceUnavailable && r.Status == api.StatusChainMismatch
		})
		b, _ := json.Marshal(r.Conditions)
		for _, want := range []string{string(idA.Genesis), string(idB.Genesis)} {
			if !bytes.Contains(b, []byte(want)) {
				t.Errorf("the condition %s does not name %s", b, want)
			}
		}
		if recs := logs.Records(t, "the store belongs to another chain: the engines stay stopped (intake still commits to the store)"); len(recs) != 1 ||
			recs[0]["store"] != idA.String() || recs[0]["chain"] != idB.String() {
			t.Errorf("log of the mismatch: %v", recs)
		}
		_, tx, _ := h.intake(`{"queue":"one-chain","type":"SEND_CLAIM_VOTE","data":{"voter":"v","vote":true}}`)
		select { // the mismatch is for good: startup waits for the end with the gate shut
		case <-h.n.Sequencer.Started():
			t.Fatal("the sequencer started on a chain that is not the store's")
		case <-h.n.Ready():
			t.Fatal("the gate opened on a chain that is not the store's")
		default:
		}
		if got, _ := h.n.Sequencer.Store().Get(h.ctx, tx.UID); got.State != store.Waiting || len(got.Attempts) != 0 {
			t.Fatalf("an intent was dispatched on the wrong chain: %s, %d attempts", got.State, len(got.Attempts))
		}
		h.alive()
	})
	t.Run("own chain again", func(t *testing.T) {
		h, _ := serveNode(t, Config{Data: data, Chain: urlA, DevSenders: 2})
		<-h.n.Ready()
		txs := h.list()
		for _, tx := range txs {
			h.waitDone(tx.UID)
		}
		if len(txs) != 2 || txs[0].UID != first {
			t.Fatalf("records %v, want the first and the one taken while held", txs)
		}
	})
}

// TestFullDisk: a node whose SQLite store runs out of room (SQLITE_FULL:
// the database bounded to the pages it has) stays up: intake answers 503
// storage_full and commits nothing, /healthz answers 503 storage_full;
// once there is room, intake is acknowledged again, /healthz is 200, and
// every intent acknowledged before, during and after ends DONE.
func TestFullDisk(t *testing.T) {
	h, logs := serveNode(t, Config{DevSenders: 2, Devchain: DevchainConfig{BlockTime: Duration(itBlockTime)}})
	testkit.WaitFor(t, 30*time.Second, itPollEvery, "the sequencer starts", func() bool { return isClosed(h.n.Sequencer.Started()) })
	st, ok := h.n.store.(interface {
		SetMaxPages(context.Context, int64) (int64, error)
	})
	if !ok {
		t.Fatalf("the store %T cannot be bounded", h.n.store)
	}
	var acked []string
	ack := func(queue, key, pad string) (int, string) {
		t.Helper()
		body := `{"queue":"` + queue + `","type":"CREATE_CLAIM_VOTING_ACCOUNT","idempotencyKey":"` + key + `","data":{"pad":"` + pad + `"}}`
		status, tx, code := h.intake(body)
		if status == http.StatusCreated || status == http.StatusOK {
			acked = append(acked, tx.UID)
		}
		return status, code
	}
	// Work for the loop: intents it is still dispatching when the store
	// fills, whose records it must write.
	for i := range 200 {
		if status, code := ack("full-before-"+strconv.Itoa(i), "kb"+strconv.Itoa(i), ""); status != http.StatusCreated {
			t.Fatalf("intake: %d %s", status, code)
		}
	}
	if _, err := st.SetMaxPages(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	// Small intents fill what room the pages have, then one is refused.
	var refused bool
	for i := 0; i < 2000 && !refused; i++ {
		status, code := ack("full-during-"+strconv.Itoa(i), "kd"+strconv.Itoa(i), strings.Repeat("p", 512)) // a queue each: one account each
		switch {
		case status == http.StatusServiceUnavailable && code == api.CodeStorageFull:
			refused = true
		case status != http.StatusCreated:
			t.Fatalf("intake while filling: %d %s", status, code)
		}
	}
	if !refused {
		t.Fatal("intake was never refused storage_full")
	}
	const loopFull = "sequencer: the store is full: nothing of the turn was committed; intake answers storage_full; loading again from the store after a wait (free space on the store's disk)"
	testkit.WaitFor(t, 20*time.Second, itPollEvery, "the loop finds the store full", func() bool { return len(logs.Records(t, loopFull)) > 0 })
	testkit.WaitFor(t, 10*time.Second, itPollEvery, "/healthz 503 storage_full", func() bool {
		st, r := h.health()
		return st == http.StatusServiceUnavailable && r.Status == api.StatusStorageFull
	})
	status, code := ack("full-big", "kbig", strings.Repeat("b", 4<<10))
	if status != http.StatusServiceUnavailable || code != api.CodeStorageFull {
		t.Fatalf("a large intent on a full store: %d %s, want 503 storage_full", status, code)
	}
	h.alive()

	if _, err := st.SetMaxPages(t.Context(), 0); err != nil {
		t.Fatal(err)
	}
	if status, code := ack("full-big", "kbig", strings.Repeat("b", 4<<10)); status != http.StatusCreated {
		t.Fatalf("intake once there is room: %d %s", status, code)
	}
	testkit.WaitFor(t, 30*time.Second, itPollEvery, "/healthz 200", func() bool {
		st, _ := h.health()
		return st == http.StatusOK
	})
	for _, uid := range acked {
		deadline := time.Now().Add(30 * time.Second)
		for tx, err := h.n.Sequencer.Store().Get(h.ctx, uid); (err != nil || tx.State != store.Done) && time.Now().Before(deadline); tx, err = h.n.Sequencer.Store().Get(h.ctx, uid) {
			time.Sleep(itPollEvery)
		}
		if tx, err := h.n.Sequencer.Store().Get(h.ctx, uid); err != nil || tx.State != store.Done {
			tx, err := h.n.Sequencer.Store().Get(h.ctx, uid)
			t.Logf("stuck: %+v %v", tx, err)
			t.Log(logs.String())
			t.FailNow()
		}
	}
	h.alive()
	t.Logf("%d intents acknowledged, all DONE; the loop found the store full %d times", len(acked), len(logs.Records(t, loopFull)))
}

// isClosed reports whether c is closed.
func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// TestRideFull: an engine that stops on a full store runs again after a
// wait, as often as it stops so; another error, or the end, is returned.
func TestRideFull(t *testing.T) {
	t.Parallel()
	n := &Node{log: slog.New(slog.DiscardHandler), gate: newChainGate(clock.Real{}, slog.New(slog.DiscardHandler), "")}
	errOther := errors.New("other")
	for _, tc := range []struct {
		name  string
		fails int
		last  error
	}{{"full twice, then another error", 2, errOther}, {"never full", 0, errOther}, {"full, then a clean stop", 1, nil}} {
		runs := 0
		err := n.rideFull("processor", func(context.Context) error {
			runs++
			if runs <= tc.fails {
				return fmt.Errorf("processor: commit: %w", store.ErrStorageFull)
			}
			return tc.last
		})(t.Context())
		if runs != tc.fails+1 || !errors.Is(err, tc.last) || (tc.last == nil && err != nil) {
			t.Errorf("%s: %d runs, %v; want %d runs, %v", tc.name, runs, err, tc.fails+1, tc.last)
		}
	}
}
