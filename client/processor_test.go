package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/client"
	"github.com/ordolabs/ordo/internal/api/apitest"
	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/chain"
)

// startProcNode starts a node and waits until its processor engine has
// started too (apitest.Start waits for the sequencer only).
func startProcNode(t *testing.T, opts apitest.Options) *apitest.Node {
	t.Helper()
	n, err := apitest.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := n.Close(); err != nil {
			t.Errorf("closing the node: %v", err)
		}
	})
	select {
	case <-n.Proc.Started():
	case <-time.After(30 * time.Second):
		t.Fatal("the processor engine did not start within 30s")
	}
	return n
}

// poll calls f every 10ms until it reports done, failing the test at the
// deadline.
func poll(t *testing.T, ctx context.Context, what string, f func() (bool, error)) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		done, err := f()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if done {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: %v", what, ctx.Err())
		case <-tick.C:
		}
	}
}

// configureLibrary makes library method m fail its next failTimes calls,
// through an unsigned transaction from the last dev account (the node's
// senders are the first ones), and waits until the setting is in force.
func configureLibrary(t *testing.T, ctx context.Context, n *apitest.Node, nonce uint64, m string, failTimes int) {
	t.Helper()
	accts, err := n.Chain.DevAccounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	args := fmt.Sprintf(`{"method":%q,"failTimes":%d}`, m, failTimes)
	if _, err := n.Chain.SendTx(ctx, chain.Tx{From: accts[len(accts)-1].Address, Nonce: nonce, Fee: 1000,
		Contract: "library", Method: "configure", Args: json.RawMessage(args)}); err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, "the library's configure", func() (bool, error) {
		raw, err := n.Chain.Call(ctx, "library", "config", json.RawMessage(fmt.Sprintf(`{"method":%q}`, m)))
		var cfg struct {
			FailTimes int `json:"failTimes"`
		}
		if err == nil {
			err = json.Unmarshal(raw, &cfg)
		}
		return cfg.FailTimes == failTimes, err
	})
}

// tickUntilCallback ticks the processor until a callback of batch id is
// there, and returns it and the ticks that started an execution.
func tickUntilCallback(t *testing.T, ctx context.Context, c *client.Client, proc, id string) (client.Callback, []client.TickResult) {
	t.Helper()
	var started []client.TickResult
	var got client.Callback
	poll(t, ctx, "the callback of "+id, func() (bool, error) {
		r, err := c.Tick(ctx, proc)
		if err != nil {
			return false, err
		}
		if r.Outcome == client.TickStarted {
			started = append(started, r)
		}
		cbs, _, err := c.Callbacks(ctx, proc, 0, 0)
		for _, cb := range cbs {
			if cb.BatchID == id {
				got = cb
				return true, nil
			}
		}
		return false, err
	})
	return got, started
}

func wantAPIError(t *testing.T, what string, err error, status int, code, msg string) {
	t.Helper()
	var ae *client.APIError
	if !errors.As(err, &ae) || ae.Status != status || ae.Code != code || !strings.Contains(ae.Message, msg) {
		t.Errorf("%s: %v; want %d %s containing %q", what, err, status, code, msg)
	}
}

// The processor's calls against a real node: an atomic batch retried
// through two failures, pause and resume, insert and remove at positions,
// a non-atomic action confirmed by its owner, and the errors.
func TestProcessorClient(t *testing.T) {
	n := startProcNode(t, apitest.Options{BlockTime: 20 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := client.New(n.URL, nil)

	p, err := c.CreateProcessor(ctx, client.ProcessorSpec{Name: "p1"})
	if err != nil || p.Name != "p1" || p.Owner != auth.DevPrincipal || p.Lanes != 1 || p.Paused {
		t.Fatalf("CreateProcessor: %+v %v", p, err)
	}
	_, err = c.CreateProcessor(ctx, client.ProcessorSpec{Name: "p1"})
	wantAPIError(t, "CreateProcessor again", err, 409, client.CodeConflict, `processor "p1" exists`)
	_, err = c.CreateProcessor(ctx, client.ProcessorSpec{Name: "p2", AutoTick: time.Millisecond})
	wantAPIError(t, "CreateProcessor with a 1ms auto-tick", err, 422, client.CodeInvalid, "autoTick")
	auto, err := c.CreateProcessor(ctx, client.ProcessorSpec{Name: "p3", Owner: "app", AutoTick: 1500 * time.Millisecond, Lanes: 2, CallbackURL: "http://127.0.0.1:1/cb"})
	if err != nil || auto.AutoTick != 1500*time.Millisecond || auto.Owner != "app" || auto.Lanes != 2 || auto.CallbackURL != "http://127.0.0.1:1/cb" {
		t.Fatalf("CreateProcessor with every field: %+v %v", auto, err)
	}

	// Atomic: "flaky" fails twice; Amount 2 gives three attempts.
	configureLibrary(t, ctx, n, 0, "flaky", 2)
	atomic := client.BatchSpec{ID: "b1", Priority: client.PriorityHigh,
		Msgs: []client.Msg{{Contract: "library", Method: "flaky", Args: json.RawMessage(`{"n":1}`)}, {Contract: "library", Method: "steady"}},
		ActionsConfig: client.ActionsConfig{Atomic: &client.AtomicConfig{Actions: []client.Action{{}, {Contract: "library"}},
			RetryLogic: &client.RetryLogic{Times: client.RetryTimes{Amount: 2}, Interval: client.RetryInterval{Duration: 0}}}}}
	added, err := c.AddBatch(ctx, "p1", atomic)
	if err != nil || added != (client.AddResult{ID: "b1", Priority: client.PriorityHigh, Position: 0}) {
		t.Fatalf("AddBatch: %+v %v", added, err)
	}
	_, err = c.AddBatch(ctx, "p1", atomic)
	wantAPIError(t, "AddBatch with a used id", err, 409, client.CodeConflict, `"b1"`)
	bad := atomic
	bad.ID, bad.Priority = "b2", "urgent"
	_, err = c.AddBatch(ctx, "p1", bad)
	wantAPIError(t, "AddBatch with a bad priority", err, 422, client.CodeInvalid, "priority")
	cb, started := tickUntilCallback(t, ctx, c, "p1", "b1")
	body, err := client.CallbackOutcome(cb)
	if err != nil || body.Outcome.Status != client.StatusExecuted || body.Key != "p1/b1" || body.Executions != 3 || body.LastExecution != started[len(started)-1].Exec || cb.Key != "p1/b1" || cb.State != client.CallbackStored || cb.Seq != 1 {
		t.Fatalf("callback %+v, body %+v, %v", cb, body, err)
	}
	if len(started) != 3 || started[2].Attempt != 3 || started[0].BatchID != "b1" || !strings.HasPrefix(started[0].Exec, "p1/b1/") {
		t.Fatalf("ticks that started: %+v", started)
	}

	if b, err := c.Batch(ctx, "p1", "b1"); err != nil || b.State != client.BatchDone || !strings.Contains(string(b.Body), `"Executed"`) {
		t.Fatalf("Batch b1: %+v %v", b, err)
	}
	_, err = c.Batch(ctx, "p1", "nope")
	wantAPIError(t, "Batch nope", err, 404, client.CodeNotFound, "has no batch")

	// Pause, resume; insert at a position; remove.
	if err := c.Pause(ctx, "p1"); err != nil {
		t.Fatal(err)
	}
	if r, err := c.Tick(ctx, "p1"); err != nil || r.Outcome != client.TickPaused {
		t.Fatalf("Tick while paused: %+v %v", r, err)
	}
	if v, err := c.Processor(ctx, "p1"); err != nil || !v.Processor.Paused || v.Counts.Done != 1 || v.Counts.Callbacks[client.CallbackStored] != 1 {
		t.Fatalf("Processor while paused: %+v %v", v, err)
	}
	if err := c.Resume(ctx, "p1"); err != nil {
		t.Fatal(err)
	}
	one := func(id string, pos *int) client.BatchSpec {
		return client.BatchSpec{ID: id, Priority: client.PriorityMedium, Position: pos, Msgs: []client.Msg{{Contract: "library", Method: "steady"}},
			ActionsConfig: client.ActionsConfig{Atomic: &client.AtomicConfig{Actions: []client.Action{{}}}}}
	}
	zero := 0
	for _, b := range []client.BatchSpec{one("m1", nil), one("m2", nil), one("m0", &zero)} {
		if _, err := c.AddBatch(ctx, "p1", b); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(bs []client.BatchRecord) string {
		var s []string
		for _, b := range bs {
			s = append(s, b.ID)
		}
		return strings.Join(s, ",")
	}
	if bs, err := c.QueueBatches(ctx, "p1", client.PriorityMedium, 0, 0); err != nil || ids(bs) != "m0,m1,m2" || bs[0].State != client.BatchQueued {
		t.Fatalf("QueueBatches: %v %v", ids(bs), err)
	}
	if bs, err := c.QueueBatches(ctx, "p1", client.PriorityMedium, 1, 1); err != nil || ids(bs) != "m1" {
		t.Fatalf("QueueBatches(1, 1): %v %v", ids(bs), err)
	}
	if r, err := c.RemoveBatch(ctx, "p1", client.PriorityMedium, 1); err != nil || r != (client.RemoveResult{ID: "m1", Priority: client.PriorityMedium, Position: 1}) {
		t.Fatalf("RemoveBatch: %+v %v", r, err)
	}
	_, err = c.RemoveBatch(ctx, "p1", client.PriorityMedium, 5)
	wantAPIError(t, "RemoveBatch past the end", err, 404, client.CodeNotFound, "no position 5")
	cbs, next, err := c.Callbacks(ctx, "p1", 1, 10)
	if err != nil || len(cbs) != 1 || cbs[0].BatchID != "m1" || next != 2 {
		t.Fatalf("Callbacks after 1: %+v %d %v", cbs, next, err)
	}
	if body, err := client.CallbackOutcome(cbs[0]); err != nil || body.Outcome.Status != client.StatusRemovedByOwner {
		t.Fatalf("removed: %+v %v", body, err)
	}
	if cbs, next, err := c.Callbacks(ctx, "p1", 2, 0); err != nil || len(cbs) != 0 || next != 2 {
		t.Fatalf("Callbacks after the last: %+v %d %v", cbs, next, err)
	}
	for range 2 { // m0 and m2 are left
		if _, err := c.RemoveBatch(ctx, "p1", client.PriorityMedium, 0); err != nil {
			t.Fatal(err)
		}
	}

	// Non-atomic, with a callback confirmation from the owner.
	na := client.BatchSpec{ID: "n1", Priority: client.PriorityMedium, Msgs: []client.Msg{{Contract: "library", Method: "steady"}},
		ActionsConfig: client.ActionsConfig{NonAtomic: &client.NonAtomicConfig{Actions: []client.Action{{
			RetryLogic:           &client.RetryLogic{Times: client.RetryTimes{Indefinitely: true}, Interval: client.RetryInterval{Blocks: 1}},
			CallbackConfirmation: &client.CallbackConfirmation{Contract: "library"}}}}}}
	if _, err := c.AddBatch(ctx, "p1", na); err != nil {
		t.Fatal(err)
	}
	r, err := c.Tick(ctx, "p1")
	if err != nil || r.Outcome != client.TickStarted || r.BatchID != "n1" || r.Action == nil || *r.Action != 0 || r.Priority != client.PriorityMedium {
		t.Fatalf("Tick of n1: %+v %v", r, err)
	}
	poll(t, ctx, "n1 pending", func() (bool, error) {
		v, err := c.Processor(ctx, "p1")
		return v.Counts.Pending == 1, err
	})
	_, err = c.Confirm(ctx, "p1", "p1/nope/0/1", true)
	wantAPIError(t, "Confirm of an unknown execution", err, 404, client.CodeNotFound, "awaits a confirmation")
	if cr, err := c.Confirm(ctx, "p1", r.Exec, true); err != nil || cr != (client.ConfirmResult{Exec: r.Exec, BatchID: "n1", Success: true}) {
		t.Fatalf("Confirm: %+v %v", cr, err)
	}
	cb, _ = tickUntilCallback(t, ctx, c, "p1", "n1")
	if body, err := client.CallbackOutcome(cb); err != nil || body.Outcome.Status != client.StatusExecuted || body.Outcome.Executed != 1 {
		t.Fatalf("n1: %+v %v", body, err)
	}
	if r, err := c.Tick(ctx, "p1"); err != nil || r.Outcome != client.TickNoMessages {
		t.Fatalf("Tick of an empty processor: %+v %v", r, err)
	}

	_, err = c.Processor(ctx, "nope")
	wantAPIError(t, "Processor nope", err, 404, client.CodeNotFound, `no processor "nope"`)
	_, err = c.Tick(ctx, "nope")
	wantAPIError(t, "Tick nope", err, 404, client.CodeNotFound, `no processor "nope"`)
	_, err = c.QueueBatches(ctx, "p1", "low", 0, 0)
	wantAPIError(t, "QueueBatches low", err, 404, client.CodeNotFound, `the queues are "high" and "medium"`)
}

// Who may do what: an admin creates, the owner (or an admin) changes,
// anyone ticks, reads need read; 401 without a token.
func TestProcessorClientAccess(t *testing.T) {
	toks := map[string]string{"ops": "ops-token-0123456789", "app": "app-token-0123456789", "eve": "eve-token-0123456789"}
	n := startProcNode(t, apitest.Options{Principals: []auth.PrincipalConfig{
		{Principal: "ops", Token: toks["ops"], Roles: []auth.Role{auth.RoleAdmin}},
		{Principal: "app", Token: toks["app"], Roles: []auth.Role{auth.RoleRead}},
		{Principal: "eve", Token: toks["eve"], Roles: []auth.Role{auth.RoleRead}},
	}})
	ctx := context.Background()
	as := func(p string) *client.Client { return client.New(n.URL, nil, client.WithToken(toks[p])) }

	_, err := as("app").CreateProcessor(ctx, client.ProcessorSpec{Name: "p"})
	wantAPIError(t, "create by app", err, 403, client.CodeForbidden, "")
	if _, err := as("ops").CreateProcessor(ctx, client.ProcessorSpec{Name: "p", Owner: "app"}); err != nil {
		t.Fatal(err)
	}
	b := client.BatchSpec{Priority: client.PriorityHigh, Msgs: []client.Msg{{Contract: "library", Method: "m"}},
		ActionsConfig: client.ActionsConfig{Atomic: &client.AtomicConfig{Actions: []client.Action{{}}}}}
	if r, err := as("app").AddBatch(ctx, "p", b); err != nil || r.ID != "auto-1" {
		t.Fatalf("AddBatch by the owner: %+v %v", r, err)
	}
	_, err = as("eve").AddBatch(ctx, "p", b)
	wantAPIError(t, "AddBatch by a stranger", err, 403, client.CodeForbidden, "")
	wantAPIError(t, "Pause by a stranger", as("eve").Pause(ctx, "p"), 403, client.CodeForbidden, "")
	_, err = client.New(n.URL, nil).AddBatch(ctx, "p", b)
	wantAPIError(t, "AddBatch without a token", err, 401, client.CodeUnauthenticated, "")
	if err := as("ops").Pause(ctx, "p"); err != nil {
		t.Fatalf("Pause by an admin: %v", err)
	}
	if r, err := as("eve").Tick(ctx, "p"); err != nil || r.Outcome != client.TickPaused {
		t.Fatalf("Tick by anyone: %+v %v", r, err)
	}
	if v, err := as("eve").Processor(ctx, "p"); err != nil || v.Counts.Queued[client.PriorityHigh] != 1 {
		t.Fatalf("Processor read by eve: %+v %v", v, err)
	}
}

// The paths and bodies the client sends, against a fake server.
func TestProcessorClientRequests(t *testing.T) {
	type req struct{ method, path, query, body string }
	var got []req
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, req{r.Method, r.URL.EscapedPath(), r.URL.RawQuery, string(b)})
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	ctx := context.Background()
	c := client.New(srv.URL, srv.Client())

	_, _ = c.CreateProcessor(ctx, client.ProcessorSpec{Name: "p", AutoTick: 1500 * time.Millisecond})
	_, _ = c.AddBatch(ctx, "a/b", client.BatchSpec{Priority: client.PriorityHigh, Msgs: []client.Msg{{Contract: "c", Method: "m"}},
		ActionsConfig: client.ActionsConfig{NonAtomic: &client.NonAtomicConfig{Actions: []client.Action{{RetryLogic: &client.RetryLogic{
			Times: client.RetryTimes{Indefinitely: true}, Interval: client.RetryInterval{Duration: 30 * time.Second}}}}}}})
	_, _ = c.QueueBatches(ctx, "a/b", client.PriorityMedium, 2, 5)
	_, _, _ = c.Callbacks(ctx, "p", 7, 3)
	_, _ = c.RemoveBatch(ctx, "p", client.PriorityHigh, 4)
	_, _ = c.Confirm(ctx, "p", "p/b/0/1", false)
	_ = c.Resume(ctx, "p")
	want := []req{
		{"POST", "/v1/processors", "", `{"name":"p","owner":"","autoTick":"1.5s"}`},
		{"POST", "/v1/processors/a%2Fb/batches", "", `{"msgs":[{"contract":"c","method":"m"}],"actionsConfig":{"nonAtomic":{"actions":[{"retryLogic":{"times":"indefinitely","interval":{"duration":"30s"}}}]}},"priority":"high"}`},
		{"GET", "/v1/processors/a%2Fb/queues/medium", "limit=5&offset=2", ""},
		{"GET", "/v1/processors/p/callbacks", "after=7&limit=3", ""},
		{"DELETE", "/v1/processors/p/queues/high/4", "", `{}`},
		{"POST", "/v1/processors/p/confirmations", "", `{"executionId":"p/b/0/1","success":false}`},
		{"POST", "/v1/processors/p/resume", "", `{}`},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("requests:\n%v\nwant\n%v", got, want)
	}
}

// RetryTimes and RetryInterval read what they write, and refuse the rest.
func TestRetryLogicJSON(t *testing.T) {
	for _, rl := range []client.RetryLogic{
		{Times: client.RetryTimes{Amount: 3}, Interval: client.RetryInterval{Blocks: 2}},
		{Times: client.RetryTimes{Indefinitely: true}, Interval: client.RetryInterval{Duration: 90 * time.Second}},
	} {
		b, err := json.Marshal(rl)
		var back client.RetryLogic
		if err != nil || json.Unmarshal(b, &back) != nil || back != rl {
			t.Errorf("%+v → %s → %+v (%v)", rl, b, back, err)
		}
	}
	for _, s := range []string{`{"times":"often","interval":{"blocks":1}}`, `{"times":{"amount":1},"interval":{}}`,
		`{"times":{"amount":1},"interval":{"blocks":1,"duration":"1s"}}`, `{"times":{"amount":1},"interval":{"duration":"soon"}}`} {
		var rl client.RetryLogic
		if err := json.Unmarshal([]byte(s), &rl); err == nil {
			t.Errorf("%s accepted: %+v", s, rl)
		}
	}
}
