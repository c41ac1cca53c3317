package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/node"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit"
)

var quiet = slog.New(slog.DiscardHandler)

// The worker builds each type's transaction exactly as the node's built-in
// dispatcher does.
func TestBuildMatchesTheBuiltInDispatcher(t *testing.T) {
	s := Sender{AccountID: string(chain.KeyAddress(chain.KeyFromSeed("w"))), Queue: "claim-1", Retries: 2, Nonce: 7, Fee: 1210}
	datas := []string{``, `{}`, `null`, `{"title":"t","n":1.50}`, `{"zkapp":"other","v":[1,2]}`, `{"zkapp":null}`, `[1,2]`, `"s"`, `{"zkapp":5}`}
	for _, typ := range dispatch.BuiltinTypes() {
		d, err := dispatch.NewZkAppDispatcher(typ, 3, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, data := range datas {
			txn := TxnData{UID: "tx_1", Type: typ, Data: json.RawMessage(data)}
			got, gotErr := Build(txn, s)
			want, wantErr := d.Build(context.Background(), sequencer.RawTxnData{UID: txn.UID, Type: typ, Data: txn.Data},
				sequencer.Sender{AccountID: s.AccountID, Queue: s.Queue, Retries: s.Retries, Nonce: s.Nonce, Fee: s.Fee})
			if (gotErr != nil) != (wantErr != nil) {
				t.Errorf("%s %s: error %v, the built-in's %v", typ, data, gotErr, wantErr)
				continue
			}
			if gotErr == nil && (got.Hash() != want.Hash() || got.Memo != "tx_1" || got.Nonce != 7 || got.Fee != 1210) {
				t.Errorf("%s %s: %+v (args %s), the built-in's %+v (args %s)", typ, data, got, got.Args, want, want.Args)
			}
		}
	}
	if _, err := Build(TxnData{UID: "tx_1", Type: "MINT_NFT"}, s); err == nil {
		t.Error("a type the worker has no call for was built")
	}
}

// workerEnv is a worker over an in-process devchain on a virtual clock.
type workerEnv struct {
	chain *devchain.Chain
	w     *Worker
	key   ed25519.PrivateKey
}

func newWorkerEnv(t *testing.T, funded bool) *workerEnv {
	t.Helper()
	c, err := devchain.New(devchain.Config{Clock: clock.NewVirtual(clock.Epoch)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	key := chain.KeyFromSeed(t.Name())
	if funded {
		if _, err := c.Faucet(context.Background(), chain.KeyAddress(key), 1e14); err != nil {
			t.Fatal(err)
		}
	}
	return &workerEnv{chain: c, w: NewWorker(key, c, quiet), key: key}
}

func (e *workerEnv) dispatchReq(uid, typ, data string, nonce, fee uint64) Request {
	return Request{TxnData: TxnData{UID: uid, Type: typ, Data: json.RawMessage(data)},
		Sender: Sender{AccountID: string(e.w.Address()), Queue: "q-" + uid, Nonce: nonce, Fee: fee}}
}

func errorOf(t *testing.T, r TxnResult) WorkerError {
	t.Helper()
	var e WorkerError
	if len(r.Error) > 0 {
		if err := json.Unmarshal(r.Error, &e); err != nil {
			t.Fatalf("error %s: %v", r.Error, err)
		}
	}
	return e
}

// What each dispatch answers: a hash, or an error that is permanent when no
// retry can change it.
func TestDispatchAnswers(t *testing.T) {
	const deploy = "CREATE_CLAIM_VOTING_ACCOUNT"
	tests := []struct {
		name      string
		funded    bool
		req       func(e *workerEnv) Request
		hash      bool   // the answer carries a hash
		code      string // the error's code; "" with message means an error without one
		message   string // a part of the error's message; "" means no error
		permanent bool
	}{
		{"sent", true, func(e *workerEnv) Request { return e.dispatchReq("tx_a", deploy, `{"title":"t"}`, 0, 1000) }, true, "", "", false},
		{"another sender's transaction", true, func(e *workerEnv) Request {
			r := e.dispatchReq("tx_b", deploy, `{}`, 0, 1000)
			r.Sender.AccountID = strings.Repeat("ab", 32)
			return r
		}, false, "", "holds the key of", true},
		{"a type it has no call for", true, func(e *workerEnv) Request { return e.dispatchReq("tx_c", "MINT_NFT", `{}`, 0, 1000) }, false, "", "no call for type", true},
		{"data it cannot build", true, func(e *workerEnv) Request { return e.dispatchReq("tx_d", deploy, `[1]`, 0, 1000) }, false, "", "data must be a JSON object", true},
		{"a fee under the chain's minimum", true, func(e *workerEnv) Request { return e.dispatchReq("tx_e", deploy, `{}`, 0, 1) }, true, chain.ErrFeeTooLow.Code, "fee", false},
		{"no funds", false, func(e *workerEnv) Request { return e.dispatchReq("tx_f", deploy, `{}`, 0, 1000) }, true, chain.ErrInsufficientFunds.Code, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newWorkerEnv(t, tt.funded)
			r := e.w.Dispatch(context.Background(), tt.req(e))
			if (r.Hash != "") != tt.hash {
				t.Errorf("hash %q, want one: %v", r.Hash, tt.hash)
			}
			we := errorOf(t, r)
			wantErr := tt.message != "" || tt.code != ""
			if (len(r.Error) > 0) != wantErr || !strings.Contains(we.Message, tt.message) || we.Code != tt.code || we.Permanent != tt.permanent {
				t.Fatalf("answer %+v (error %s), want code %q, message with %q, permanent %v", r, r.Error, tt.code, tt.message, tt.permanent)
			}
			if r.Hash != "" && !wantErr {
				st, err := e.chain.TxStatus(context.Background(), chain.Hash(r.Hash))
				if err != nil || st.State != chain.TxPending {
					t.Fatalf("the answered hash is %+v (%v), want pending", st, err)
				}
			}
		})
	}
}

// A repeated dispatch (same uid, nonce and fee) answers the hash already
// sent without sending again; a retry with the same nonce and a higher fee
// replaces it, and only one of them lands.
func TestDispatchAgainAndReplace(t *testing.T) {
	e := newWorkerEnv(t, true)
	ctx := context.Background()
	req := e.dispatchReq("tx_r", "CREATE_CLAIM_VOTING_ACCOUNT", `{"title":"t"}`, 0, 1000)
	first := e.w.Dispatch(ctx, req)
	again := e.w.Dispatch(ctx, req)
	if first.Hash == "" || again.Hash != first.Hash || len(first.Error) > 0 || len(again.Error) > 0 {
		t.Fatalf("dispatch %+v, again %+v: want the same hash, no error", first, again)
	}
	if n := e.chain.Stats().Mempool; n != 1 {
		t.Fatalf("%d pending after a repeated dispatch, want 1", n)
	}
	req.Sender.Fee, req.Sender.Retries = 1100, 1
	retry := e.w.Dispatch(ctx, req)
	if retry.Hash == "" || retry.Hash == first.Hash || len(retry.Error) > 0 {
		t.Fatalf("retry %+v: want a new hash, no error", retry)
	}
	if _, ok, err := e.chain.Mine(ctx); !ok || err != nil {
		t.Fatalf("mine: %v %v", ok, err)
	}
	for h, want := range map[string]chain.TxState{first.Hash: chain.TxDropped, retry.Hash: chain.TxIncluded} {
		st, err := e.chain.TxStatus(ctx, chain.Hash(h))
		if err != nil || st.State != want {
			t.Errorf("%s: %+v %v, want %s", h, st, err, want)
		}
	}
	// Once it landed, the same dispatch again answers its hash, without an
	// error: the node then sees it included.
	if r := e.w.Dispatch(ctx, req); r.Hash != retry.Hash || len(r.Error) > 0 {
		t.Fatalf("dispatch of a landed attempt: %+v", r)
	}
}

// The HTTP face: every call answers 200 with a TxnResult; a body it cannot
// read is 400.
func TestHandler(t *testing.T) {
	e := newWorkerEnv(t, true)
	srv := httptest.NewServer(e.w.Handler())
	t.Cleanup(srv.Close)
	post := func(path, body string) (int, TxnResult) {
		resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var r TxnResult
		_ = json.NewDecoder(resp.Body).Decode(&r)
		return resp.StatusCode, r
	}
	req, _ := json.Marshal(e.dispatchReq("tx_h", "CREATE_CLAIM_VOTING_ACCOUNT", `{}`, 0, 1000))
	status, r := post("/dispatch", string(req))
	if status != 200 || r.Hash == "" || len(r.Error) > 0 {
		t.Fatalf("dispatch: %d %+v", status, r)
	}
	if _, _, err := e.chain.Mine(context.Background()); err != nil {
		t.Fatal(err)
	}
	hook, _ := json.Marshal(Request{TxnData: TxnData{UID: "tx_h", Type: "CREATE_CLAIM_VOTING_ACCOUNT", Data: json.RawMessage(`{}`)},
		Sender: Sender{AccountID: string(e.w.Address()), Queue: "q-tx_h"}, Result: &TxnResult{Hash: r.Hash}})
	if status, done := post("/onSuccess", string(hook)); status != 200 || done.Hash != r.Hash || !strings.Contains(string(done.Done), `"kind":"claim"`) {
		t.Fatalf("onSuccess: %d %+v (done %s)", status, done, done.Done)
	}
	failed, _ := json.Marshal(Request{TxnData: TxnData{UID: "tx_x", Type: "SEND_CLAIM_VOTE"}, Sender: Sender{Queue: "q"},
		Result: &TxnResult{Hash: r.Hash, Error: json.RawMessage(`{"reason":"failed after 3 retries"}`)}})
	if status, got := post("/onFailure", string(failed)); status != 200 || got.Hash != r.Hash || len(got.Error) > 0 {
		t.Fatalf("onFailure: %d %+v", status, got)
	}
	for _, body := range []string{`{`, `[]`, `{"txnData":1}`} {
		if status, _ := post("/dispatch", body); status != http.StatusBadRequest {
			t.Errorf("dispatch %s: %d, want 400", body, status)
		}
	}
	// A type's worker: /build answers the unsigned transaction, or a
	// permanent error.
	for _, tt := range []struct {
		typ, data string
		permanent bool
	}{{"SEND_CLAIM_VOTE", `{"v":1}`, false}, {"MINT_NFT", `{}`, true}, {"CREATE_CLAIM_VOTING_ACCOUNT", `[1]`, true}} {
		body, _ := json.Marshal(e.dispatchReq("tx_b", tt.typ, tt.data, 3, 1500))
		resp, err := http.Post(srv.URL+"/build", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var a BuildAnswer
		err = json.NewDecoder(resp.Body).Decode(&a)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("build %s: %d %v", tt.typ, resp.StatusCode, err)
		}
		if tt.permanent {
			var we WorkerError
			if a.Tx != nil || json.Unmarshal(a.Error, &we) != nil || !we.Permanent {
				t.Errorf("build %s %s: %+v (error %s), want a permanent error", tt.typ, tt.data, a, a.Error)
			}
			continue
		}
		if a.Tx == nil || len(a.Error) > 0 || a.Tx.Memo != "tx_b" || a.Tx.Nonce != 3 || a.Tx.Fee != 1500 || a.Tx.Signature != "" {
			t.Errorf("build %s: %+v (error %s), want the unsigned transaction", tt.typ, a.Tx, a.Error)
		}
	}
	resp, err := http.Get(srv.URL + "/dispatch")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /dispatch: %d", resp.StatusCode)
	}
}

// calls counts the node's calls to a worker, by path, and keeps the bodies
// of onFailure.
type calls struct {
	mu        sync.Mutex
	n         map[string]int
	onFailure []Request
}

func (c *calls) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		c.n[r.URL.Path]++
		if r.URL.Path == "/onFailure" {
			var req Request
			_ = json.Unmarshal(b, &req)
			c.onFailure = append(c.onFailure, req)
		}
		c.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(b))
		h.ServeHTTP(w, r)
	})
}

func (c *calls) count(path string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[path]
}

// The example worker behind a node whose only sender it is, against a
// devchain over HTTP: the voting flow ends DONE, each intent applied once
// on chain by the worker's account; a type the worker has no call for ends
// FAILED at once (its error is permanent), and onFailure hears why.
func TestWorkerBehindANode(t *testing.T) {
	if !testkit.Long() {
		t.Skip("runs a devchain, the worker and a node for a few seconds")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dc, chainURL := startChain(t, ctx)
	key := chain.KeyFromSeed("example worker")
	client := devchain.NewClient(chainURL, nil)
	w := NewWorker(key, client, quiet)
	if err := fund(ctx, client, w.Address(), 1e14); err != nil {
		t.Fatal(err)
	}
	seen := &calls{n: map[string]int{}}
	workerSrv := httptest.NewServer(seen.wrap(w.Handler()))
	t.Cleanup(workerSrv.Close)

	n := startNode(t, ctx, node.Config{
		Chain:        chainURL,
		Senders:      []node.SenderFile{{Worker: workerSrv.URL, Address: string(w.Address())}},
		AllowedTypes: append(dispatch.BuiltinTypes(), "MINT_NFT"),
	})
	var intents []sequencer.Intake
	add := func(q, typ, data string) {
		intents = append(intents, sequencer.Intake{Queue: q, Type: typ, Data: json.RawMessage(data)})
	}
	for _, q := range []string{"claim-a", "claim-b"} {
		add(q, sequencer.CreateClaimVotingAccount, `{"title":"`+q+`"}`)
		add(q, sequencer.SendClaimVote, `{"voter":"v1","vote":true}`)
		add(q, sequencer.SendClaimVote, `{"voter":"v2","vote":false}`)
	}
	add("nft", "MINT_NFT", `{"id":1}`)
	recs := n.run(ctx, intents)
	// Each DONE applied once on chain, by the worker's account; the FAILED
	// one never sent and not retried.
	applied := appliedOnChain(t, ctx, dc, func(tx chain.BlockTx) {
		if tx.From != w.Address() {
			t.Errorf("%s landed from %s, not the worker's %s", tx.Memo, tx.From, w.Address())
		}
	})
	var failedUID string
	for _, r := range recs {
		switch {
		case r.Type == "MINT_NFT":
			failedUID = r.UID
			if r.State != store.Failed || r.Retries != 0 || len(r.Attempts) != 1 || !strings.Contains(r.Error, "no call for type") {
				t.Errorf("the intent the worker cannot build: %s, retries %d, %d attempts, error %q; want FAILED at once", r.State, r.Retries, len(r.Attempts), r.Error)
			}
		case r.State != store.Done || applied[r.UID] != 1:
			t.Errorf("%s (%s): %s, applied %d times on chain", r.UID, r.Type, r.State, applied[r.UID])
		}
	}
	// The hooks: onSuccess for each DONE (its zkApp state is the record's
	// result), onFailure for the FAILED one, with the reason.
	deadline := time.Now().Add(10 * time.Second)
	for seen.count("/onSuccess") < len(intents)-1 || seen.count("/onFailure") < 1 {
		if time.Now().After(deadline) {
			t.Fatalf("hooks: %d onSuccess, %d onFailure", seen.count("/onSuccess"), seen.count("/onFailure"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := seen.count("/dispatch"); got != len(intents) {
		t.Errorf("%d dispatches for %d intents (no faults: one each)", got, len(intents))
	}
	seen.mu.Lock()
	f := seen.onFailure[0]
	seen.mu.Unlock()
	if f.TxnData.UID != failedUID || !strings.Contains(string(f.Result.Error), "no call for type") {
		t.Errorf("onFailure got %+v (error %s); want the FAILED intent with its reason", f.TxnData, f.Result.Error)
	}
	// What the hooks answered is each record's result: the zkApp's state
	// for a DONE one; no hook error for either.
	for _, r := range n.hooked(ctx) {
		var res struct {
			Done      json.RawMessage `json:"done"`
			HookError string          `json:"hookError"`
		}
		if err := json.Unmarshal(r.Result, &res); err != nil || res.HookError != "" {
			t.Errorf("%s (%s) result %s: %v", r.UID, r.State, r.Result, err)
		}
		if r.State == store.Done && !strings.Contains(string(res.Done), `"state"`) {
			t.Errorf("%s: done %s, want the zkApp's state", r.UID, res.Done)
		}
	}
}

// startChain runs a devchain with 50ms blocks behind an HTTP server until
// the test ends.
func startChain(t *testing.T, ctx context.Context) (*devchain.Chain, string) {
	t.Helper()
	dc, err := devchain.New(devchain.Config{BlockTime: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dc.Close() })
	chainCtx, stopChain := context.WithCancel(ctx)
	chainDone := make(chan struct{})
	go func() { defer close(chainDone); _ = dc.Run(chainCtx) }()
	t.Cleanup(func() { stopChain(); <-chainDone })
	srv := httptest.NewServer(devchain.NewHandler(dc))
	t.Cleanup(func() { dc.EndSubscriptions(); srv.Close() })
	return dc, srv.URL
}

// testNode is a node in this process, with what it finished.
type testNode struct {
	*node.Local
	t        *testing.T
	finished atomic.Int64
}

func startNode(t *testing.T, ctx context.Context, cfg node.Config) *testNode {
	t.Helper()
	cfg.RetryDelay = node.Duration(100 * time.Millisecond)
	tn := &testNode{t: t}
	l, err := node.StartLocal(ctx, cfg, node.Options{Logger: quiet, OnFinish: func(string, store.TxState, uint64) { tn.finished.Add(1) }}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tn.Local = l
	t.Cleanup(func() {
		if err := l.Stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	return tn
}

// run submits intents, waits until each has ended and returns the records.
func (n *testNode) run(ctx context.Context, intents []sequencer.Intake) []store.Transaction {
	n.t.Helper()
	if _, err := n.Sequencer.Submit(ctx, intents); err != nil {
		n.t.Fatal(err)
	}
	for n.finished.Load() < int64(len(intents)) {
		select {
		case <-ctx.Done():
			n.t.Fatalf("%d of %d intents ended in time", n.finished.Load(), len(intents))
		case err := <-n.Stopped():
			n.t.Fatalf("node stopped: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	recs, err := n.Sequencer.Store().List(ctx, store.Filter{Limit: 1000})
	if err != nil {
		n.t.Fatal(err)
	}
	return recs
}

// hooked waits until every record has its hook's result and returns them.
func (n *testNode) hooked(ctx context.Context) []store.Transaction {
	n.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		recs, err := n.Sequencer.Store().List(ctx, store.Filter{Limit: 1000})
		if err != nil {
			n.t.Fatal(err)
		}
		if !slices.ContainsFunc(recs, func(r store.Transaction) bool { return len(r.Result) == 0 }) {
			return recs
		}
		if time.Now().After(deadline) {
			n.t.Fatal("hook results not recorded within 10s")
		}
	}
}

// appliedOnChain counts the successful transactions on chain by memo,
// calling each for each.
func appliedOnChain(t *testing.T, ctx context.Context, dc *devchain.Chain, each func(chain.BlockTx)) map[string]int {
	t.Helper()
	hd, err := dc.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	applied := map[string]int{}
	if err := chain.EachBlock(ctx, dc, 1, hd.Height, func(b chain.Block) error {
		for _, tx := range b.Txs {
			if tx.Status == chain.OutcomeSucceeded {
				applied[tx.Memo]++
				each(tx)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return applied
}

// The example worker as a type's worker (types.X.worker): it builds that
// type's transactions (POST /build), the node's own senders sign them; the
// other types use the built-in dispatcher.
func TestWorkerAsATypesWorker(t *testing.T) {
	if !testkit.Long() {
		t.Skip("runs a devchain, the worker and a node for a few seconds")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dc, chainURL := startChain(t, ctx)
	w := NewWorker(chain.KeyFromSeed("unused: a type's worker signs nothing"), devchain.NewClient(chainURL, nil), quiet)
	seen := &calls{n: map[string]int{}}
	workerSrv := httptest.NewServer(seen.wrap(w.Handler()))
	t.Cleanup(workerSrv.Close)
	n := startNode(t, ctx, node.Config{
		Chain:      chainURL,
		DevSenders: 2,
		Types:      map[string]node.TypeConfig{sequencer.SendClaimVote: {Worker: workerSrv.URL}},
	})
	var intents []sequencer.Intake
	votes := 0
	for _, q := range []string{"claim-a", "claim-b"} {
		intents = append(intents, sequencer.Intake{Queue: q, Type: sequencer.CreateClaimVotingAccount, Data: json.RawMessage(`{}`)})
		for v := range 2 {
			intents = append(intents, sequencer.Intake{Queue: q, Type: sequencer.SendClaimVote, Data: json.RawMessage(`{"voter":"v` + string(rune('0'+v)) + `"}`)})
			votes++
		}
	}
	recs := n.run(ctx, intents)
	applied := appliedOnChain(t, ctx, dc, func(tx chain.BlockTx) {
		if tx.From == w.Address() {
			t.Errorf("%s landed from the worker's address: a type's worker signs nothing", tx.Memo)
		}
	})
	for _, r := range recs {
		if r.State != store.Done || applied[r.UID] != 1 {
			t.Errorf("%s (%s): %s, applied %d times", r.UID, r.Type, r.State, applied[r.UID])
		}
	}
	if got := seen.count("/build"); got != votes {
		t.Errorf("%d builds for %d votes", got, votes)
	}
	if got := seen.count("/dispatch"); got != 0 {
		t.Errorf("%d dispatches to a type's worker", got)
	}
	for _, r := range n.hooked(ctx) {
		if r.Type == sequencer.SendClaimVote && !strings.Contains(string(r.Result), `"votes"`) {
			t.Errorf("%s: result %s, want the zkApp's state from the worker's onSuccess", r.UID, r.Result)
		}
	}
}
