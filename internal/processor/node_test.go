package processor_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/httpjson"
	"github.com/ordolabs/ordo/internal/processor"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/sqlite"
	"github.com/ordolabs/ordo/internal/testkit"
)

// receiver is a callback receiver that is not ordo: it records each
// Idempotency-Key with its body and refuses every key's first delivery.
type receiver struct {
	mu    sync.Mutex
	seen  map[string]int
	first map[string]processor.CallbackBody
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var b processor.CallbackBody
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &b)
	key := r.Header.Get("Idempotency-Key")
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.seen[key]++
	if rc.seen[key] == 1 {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	if _, ok := rc.first[key]; !ok {
		rc.first[key] = b
	}
	w.WriteHeader(http.StatusNoContent)
}

func (rc *receiver) outcomes() map[string]processor.CallbackBody {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := map[string]processor.CallbackBody{}
	for k, v := range rc.first {
		out[k] = v
	}
	return out
}

// env is a devchain (blocks every 30ms), a SQLite store, a sequencer with
// the processor's call type, a processor node and its API behind tokens.
type env struct {
	dc   *devchain.Chain
	st   *sqlite.Store
	key  []byte
	api  *httptest.Server
	recv *receiver
	// trace is the processor's trace file; ran is closed when its Run
	// returned.
	trace string
	ran   chan struct{}
	reg   *prometheus.Registry
}

// configKey configures library methods, apart from the sequencer's sender.
var configKey = chain.KeyFromSeed("processor-node-test-config")

var tokens = map[string]string{"admin": "admin-token-0123456789", "alice": "alice-token-0123456789", "bob": "bob-token-0123456789"}

// runDevchain starts a devchain of 30 ms blocks until ctx ends, and a
// quiet logger.
func runDevchain(ctx context.Context, t *testing.T) (*devchain.Chain, *slog.Logger) {
	t.Helper()
	dc, err := devchain.New(devchain.Config{BlockTime: 30 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dc.Close() })
	go func() { _ = dc.Run(ctx) }()
	return dc, slog.New(slog.NewTextHandler(io.Discard, nil))
}

func newEnv(ctx context.Context, t *testing.T) *env {
	t.Helper()
	dc, quiet := runDevchain(ctx, t)
	key := chain.KeyFromSeed("processor-node-test")
	for _, k := range [][]byte{key, configKey} {
		if _, err := dc.Faucet(ctx, chain.KeyAddress(k), 1e12); err != nil {
			t.Fatal(err)
		}
	}
	st, err := sqlite.Open(ctx, t.TempDir()+"/ordo.db", sqlite.Options{Synchronous: "NORMAL"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	var pn *processor.Node
	seq, err := sequencer.NewNode(sequencer.Config{Store: st, Chain: dc, PollInterval: 20 * time.Millisecond, Logger: quiet,
		Dispatchers: map[string]sequencer.Dispatcher{processor.SubmitType: dispatch.NewCallDispatcher(0, dc, nil)},
		Senders:     []sequencer.SenderConfig{{ID: chain.KeyAddress(key), Key: key}},
		OnFinish:    func(uid string, s store.TxState, _ uint64) { pn.Finished(uid, s) }})
	if err != nil {
		t.Fatal(err)
	}
	tracePath := t.TempDir() + "/processor.trace"
	tf, err := os.Create(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tf.Close() })
	reg := prometheus.NewRegistry()
	pn, err = processor.New(processor.Config{Store: st, Sequencer: seq, Records: st, Chain: dc, Logger: quiet, PollInterval: 20 * time.Millisecond, Trace: tf,
		Metrics: processor.NewMetrics(reg),
		Core:    processor.CoreConfig{BackoffMin: 20 * time.Millisecond, BackoffMax: 100 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pn.Open(ctx); err != nil {
		t.Fatal(err)
	}
	go func() { _ = seq.Run(ctx) }()
	ran := make(chan struct{})
	go func() { defer close(ran); _ = pn.Run(ctx) }()
	<-seq.Started()
	<-pn.Started()
	var ps []auth.PrincipalConfig
	for name, tok := range tokens {
		roles := []auth.Role{auth.RoleRead}
		if name == "admin" {
			roles = []auth.Role{auth.RoleAdmin}
		}
		ps = append(ps, auth.PrincipalConfig{Principal: name, Token: tok, Roles: roles})
	}
	a, err := auth.New(auth.Config{Principals: ps})
	if err != nil {
		t.Fatal(err)
	}
	rt := auth.NewRouter(a, httpjson.Options{Logger: quiet, Name: "api"})
	pn.Register(rt)
	api := httptest.NewServer(rt)
	t.Cleanup(api.Close)
	recv := &receiver{seen: map[string]int{}, first: map[string]processor.CallbackBody{}}
	rs := httptest.NewServer(recv)
	t.Cleanup(rs.Close)
	e := &env{dc: dc, st: st, key: key, api: api, recv: recv, trace: tracePath, ran: ran, reg: reg}
	e.call(t, "admin", "POST", "/v1/processors", `{"name":"p","owner":"alice","callbackURL":"`+rs.URL+`"}`, http.StatusOK)
	return e
}

// call sends a request as who ("" for no token) and checks its status.
func (e *env) call(t *testing.T, who, method, path, body string, want int) []byte {
	t.Helper()
	req, _ := http.NewRequest(method, e.api.URL+path, bytes.NewBufferString(body))
	req.Header.Set("Content-Type", "application/json")
	if who != "" {
		req.Header.Set("Authorization", "Bearer "+tokens[who])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("%s %s as %q: %d %s, want %d", method, path, who, resp.StatusCode, b, want)
	}
	return b
}

// configure sets a library method's behaviour on chain and waits for it.
func (e *env) configure(ctx context.Context, t *testing.T, args string) {
	t.Helper()
	acct, err := e.dc.Account(ctx, chain.KeyAddress(configKey))
	if err != nil {
		t.Fatal(err)
	}
	fee, _ := e.dc.MinFee(ctx)
	tx := chain.Tx{From: chain.KeyAddress(configKey), Nonce: acct.PendingNonce, Fee: fee, Contract: "library", Method: "configure", Args: json.RawMessage(args)}
	tx.Sign(configKey)
	h, err := e.dc.SendTx(ctx, tx)
	if err != nil {
		t.Fatal(err)
	}
	for {
		st, err := e.dc.TxStatus(ctx, h)
		if err == nil && st.State == chain.TxIncluded {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("configure %s: not included", args)
		}
		time.Sleep(10 * time.Millisecond) // polling the chain
	}
}

// TestProcessorEndToEnd: batches of each kind against failing library
// methods, through the API as the owner, another principal and a
// stranger; ticks by anyone; callbacks counted at a receiver that is not
// ordo, each outcome under one key.
func TestProcessorEndToEnd(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	e := runEndToEnd(ctx, t)
	cancel()
	<-e.ran
	f, err := os.Open(e.trace)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := processor.Replay(f)
	if err != nil || st.Readys == 0 {
		t.Fatalf("replay of the processor's trace: %+v, %v", st, err)
	}
	t.Logf("replayed %d inputs, %d Readys; digest %s", st.Inputs, st.Readys, st.Digest)
}

func runEndToEnd(ctx context.Context, t *testing.T) *env {
	e := newEnv(ctx, t)
	e.configure(ctx, t, `{"method":"flaky","failTimes":2}`)
	e.configure(ctx, t, `{"method":"broken","failTimes":1000}`)

	atomic := `{"id":"a1","priority":"medium","msgs":[{"contract":"library","method":"flaky"},{"contract":"library","method":"ok"}],
		"actionsConfig":{"atomic":{"actions":[{},{}],"retryLogic":{"times":{"amount":2},"interval":{"blocks":1}}}}}`
	nonAtomic := `{"id":"n1","priority":"high","msgs":[{"contract":"library","method":"ok"},{"contract":"library","method":"broken"}],
		"actionsConfig":{"nonAtomic":{"actions":[{},{"retryLogic":{"times":{"amount":1},"interval":{"duration":"10ms"}}}]}}}`
	e.call(t, "", "POST", "/v1/processors/p/batches", atomic, http.StatusUnauthorized)
	e.call(t, "bob", "POST", "/v1/processors/p/batches", atomic, http.StatusForbidden)
	e.call(t, "alice", "POST", "/v1/processors/p/batches", `{"priority":"high"}`, http.StatusUnprocessableEntity)
	e.call(t, "alice", "POST", "/v1/processors/p/batches", atomic, http.StatusOK)
	e.call(t, "alice", "POST", "/v1/processors/p/batches", nonAtomic, http.StatusOK)
	e.call(t, "alice", "POST", "/v1/processors/p/batches", atomic, http.StatusConflict)

	// The first tick takes High.
	var tr processor.TickResult
	_ = json.Unmarshal(e.call(t, "", "POST", "/v1/processors/p/tick", `{}`, http.StatusOK), &tr)
	if tr.Outcome != processor.TickStarted || tr.BatchID != "n1" {
		t.Fatalf("first tick: %+v", tr)
	}
	for len(e.recv.outcomes()) < 2 {
		if ctx.Err() != nil {
			t.Fatalf("outcomes so far: %+v", e.recv.outcomes())
		}
		e.call(t, "", "POST", "/v1/processors/p/tick", `{}`, http.StatusOK)
		time.Sleep(15 * time.Millisecond) // pacing the ticks
	}
	got := e.recv.outcomes()
	want := map[string]processor.Outcome{
		"p/a1": {Status: processor.Executed, Executed: 2},
		"p/n1": {Status: processor.PartiallyExecuted, Executed: 1},
	}
	for key, o := range want {
		b, ok := got[key]
		if !ok || b.Outcome.Status != o.Status || b.Outcome.Executed != o.Executed {
			t.Errorf("callback %s: %+v, want %+v", key, b.Outcome, o)
		}
	}
	var page processor.CallbacksPage
	_ = json.Unmarshal(e.call(t, "alice", "GET", "/v1/processors/p/callbacks", "", http.StatusOK), &page)
	if len(page.Callbacks) != 2 {
		t.Fatalf("callbacks: %+v", page)
	}
	e.call(t, "", "GET", "/v1/processors/p/callbacks", "", http.StatusUnauthorized)
	var b struct {
		State string `json:"state"`
		Body  struct {
			Tries   int                `json:"tries"`
			Started int                `json:"started"`
			Outcome *processor.Outcome `json:"outcome"`
		} `json:"body"`
	}
	_ = json.Unmarshal(e.call(t, "bob", "GET", "/v1/processors/p/batches/a1", "", http.StatusOK), &b)
	if b.State != "done" || b.Body.Started != 3 || b.Body.Outcome == nil || b.Body.Outcome.Status != processor.Executed {
		t.Errorf("batch a1: %+v, want done after 3 executions", b)
	}
	e.call(t, "bob", "GET", "/v1/processors/p/batches/nope", "", http.StatusNotFound)
	for _, m := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"ordo_processor_outcomes_total", []string{"status", "Executed"}, 1},
		{"ordo_processor_outcomes_total", []string{"status", "PartiallyExecuted"}, 1},
		{"ordo_processor_executions_total", nil, 6}, // a1: 3 attempts; n1: 1 + 2
		{"ordo_processor_deliveries_total", []string{"result", "delivered"}, 2},
		{"ordo_processor_deliveries_total", []string{"result", "failed"}, 2},
	} {
		if got := testkit.Metric(t, e.reg, m.name, m.labels...); got != m.want {
			t.Errorf("%s%v = %v, want %v", m.name, m.labels, got, m.want)
		}
	}
	return e
}
