package dispatch_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
	"github.com/ordolabs/ordo/internal/store"
)

// fakeWorker is the seed's remote cloud worker: it holds its sender's key,
// builds the zkapp call, signs it and sends it to the chain itself.
type fakeWorker struct {
	key       []byte
	c         chain.Chain
	hangFirst atomic.Bool // the first dispatch never answers
	// answerLate: a dispatch answers only once the chain holds its
	// transaction two blocks deep, so the node learns its hash after the
	// block's receipt went by and finds the inclusion by a status check.
	answerLate atomic.Bool
	// dieFirst: the first dispatch sends, then the worker dies before it
	// answers (its connection is cut): the node never learns the hash.
	// With otherMemo, what it sent was another transaction (its memo not
	// the uid) at the attempt's nonce.
	dieFirst  atomic.Bool
	otherMemo bool
	mu        sync.Mutex
	calls     map[string]int
}

func (w *fakeWorker) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	var body struct {
		TxnData sequencer.RawTxnData `json:"txnData"`
		Sender  sequencer.Sender     `json:"sender"`
		Result  sequencer.TxnResult  `json:"result"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	w.mu.Lock()
	w.calls[r.URL.Path]++
	w.mu.Unlock()
	switch r.URL.Path {
	case "/dispatch":
		if w.hangFirst.CompareAndSwap(true, false) {
			<-r.Context().Done() // the sequencer's timeout ends this call
			return
		}
		die := w.dieFirst.CompareAndSwap(true, false)
		txn := body.TxnData
		if die && w.otherMemo {
			// Another transaction: another zkApp, with another memo.
			txn.Data, txn.UID = json.RawMessage(`{"title":"other","zkapp":"other"}`), "other-"+txn.UID
		}
		d, _ := dispatch.NewZkAppDispatcher(txn.Type, 3, w.c, nil)
		tx, err := d.Build(r.Context(), txn, body.Sender)
		if err != nil {
			_ = json.NewEncoder(rw).Encode(map[string]any{"hash": "", "error": err.Error()})
			return
		}
		tx.Fee += 7 // a worker may pay more than asked: the node records what landed
		tx.Sign(w.key)
		h, err := w.c.SendTx(r.Context(), tx)
		if err != nil {
			// As the example worker answers: the chain's error code with it.
			_ = json.NewEncoder(rw).Encode(map[string]any{"hash": string(h), "error": map[string]any{"message": err.Error(), "code": chain.CodeOf(err)}})
			return
		}
		if die {
			conn, _, err := rw.(http.Hijacker).Hijack()
			if err == nil {
				_ = conn.Close()
			}
			return
		}
		if w.answerLate.Load() {
			w.waitDeep(r.Context(), h, 2)
		}
		_ = json.NewEncoder(rw).Encode(map[string]any{"hash": string(h), "done": nil, "error": nil})
	default:
		_ = json.NewEncoder(rw).Encode(body.Result)
	}
}

// waitDeep waits until the chain's head is depth blocks past the block
// that includes h, or ctx ends.
func (w *fakeWorker) waitDeep(ctx context.Context, h chain.Hash, depth uint64) {
	for ctx.Err() == nil {
		st, err := w.c.TxStatus(ctx, h)
		if err == nil && st.State == chain.TxIncluded {
			if head, err := w.c.Head(ctx); err == nil && head.Height >= st.Height+depth {
				return
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Millisecond): // polling the chain
		}
	}
}

func (w *fakeWorker) count(path string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.calls[path]
}

func TestRemoteWorkerDispatchesAndTimesOut(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env := newTestEnv(ctx, t, 20*time.Millisecond, "remote-worker-test")
	dc, st, key := env.dc, env.st, env.key
	addr := chain.KeyAddress(key)
	w := &fakeWorker{key: key, c: dc, calls: map[string]int{}}
	w.hangFirst.Store(true)
	srv := httptest.NewServer(w)
	defer srv.Close()
	disp := builtinDispatchers(dc)
	n := env.startNode(ctx, t, sequencer.Config{Dispatchers: disp,
		Policies: map[string]sequencer.Policy{sequencer.SendClaimVote: {Delay: 50 * time.Millisecond}, sequencer.CreateClaimVotingAccount: {Delay: 50 * time.Millisecond}},
		Senders:  []sequencer.SenderConfig{{ID: addr, Worker: srv.URL, Remote: dispatch.NewRemoteWorker(srv.URL, 300*time.Millisecond)}}})
	res, err := n.Submit(ctx, []sequencer.Intake{
		{Queue: "claim-r", Type: sequencer.CreateClaimVotingAccount, Data: json.RawMessage(`{"title":"r"}`)},
		{Queue: "claim-r", Type: sequencer.SendClaimVote, Data: json.RawMessage(`{"voter":"a"}`)},
		{Queue: "claim-r", Type: sequencer.SendClaimVote, Data: json.RawMessage(`{"voter":"b"}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		waitDone(ctx, t, st, r.Transaction.UID)
	}
	deadline := time.Now().Add(20 * time.Second)
	first, _ := st.Get(ctx, res[0].Transaction.UID)
	if first.Retries != 1 || len(first.Attempts) != 2 || first.Attempts[0].Outcome != "error" {
		t.Fatalf("first transaction: retries %d, attempts %+v; want one timed-out attempt then success", first.Retries, first.Attempts)
	}
	if first.Attempts[1].Fee <= first.Attempts[0].Fee {
		t.Fatalf("retry fee %d not above %d", first.Attempts[1].Fee, first.Attempts[0].Fee)
	}
	// The worker, not ordo, signed: the chain has the worker's account as sender and the uid as memo.
	for _, r := range res {
		tx, _ := st.Get(ctx, r.Transaction.UID)
		last := tx.Attempts[len(tx.Attempts)-1]
		s, _ := dc.TxStatus(ctx, chain.Hash(last.Hash))
		if s.State != chain.TxIncluded || !s.Success {
			t.Fatalf("%s: chain status %+v", tx.UID, s)
		}
		b, _ := dc.Blocks(ctx, s.Height, s.Height)
		if got := b[0].Txs[s.Index]; got.Fee != last.Fee || got.Nonce != last.Nonce {
			t.Fatalf("%s: attempt records fee %d nonce %d, the chain holds fee %d nonce %d", tx.UID, last.Fee, last.Nonce, got.Fee, got.Nonce)
		}
		if got := b[0].Txs[s.Index]; got.From != addr || got.Memo != tx.UID {
			t.Fatalf("chain tx from %s memo %s, want %s %s", got.From, got.Memo, addr, tx.UID)
		}
	}
	if w.count("/dispatch") != 4 {
		t.Fatalf("dispatch calls %d, want 4 (one timed out)", w.count("/dispatch"))
	}
	for w.count("/onSuccess") < 3 && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
	if w.count("/onSuccess") != 3 {
		t.Fatalf("onSuccess calls %d, want 3", w.count("/onSuccess"))
	}
}

// TestRemoteWorkerLandsBeforeItAnswers: a remote worker's transaction is
// included (at a fee above the one asked) before the worker answers with
// its hash, so the block's receipt goes by unwatched and the node finds
// the inclusion by a status check: the attempt still records the fee and
// nonce the chain holds.
func TestRemoteWorkerLandsBeforeItAnswers(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env := newTestEnv(ctx, t, 20*time.Millisecond, "remote-worker-late")
	dc, st, key := env.dc, env.st, env.key
	addr := chain.KeyAddress(key)
	w := &fakeWorker{key: key, c: dc, calls: map[string]int{}}
	w.answerLate.Store(true)
	srv := httptest.NewServer(w)
	defer srv.Close()
	disp := builtinDispatchers(dc)
	n := env.startNode(ctx, t, sequencer.Config{Dispatchers: disp,
		Senders: []sequencer.SenderConfig{{ID: addr, Worker: srv.URL, Remote: dispatch.NewRemoteWorker(srv.URL, 5*time.Second)}}})
	res, err := n.Submit(ctx, []sequencer.Intake{{Queue: "late", Type: sequencer.CreateClaimVotingAccount, Data: json.RawMessage(`{"title":"late"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	tx := waitDone(ctx, t, st, res[0].Transaction.UID)
	last := tx.Attempts[len(tx.Attempts)-1]
	s, err := dc.TxStatus(ctx, chain.Hash(last.Hash))
	if err != nil || s.State != chain.TxIncluded {
		t.Fatalf("chain status %+v, %v", s, err)
	}
	b, _ := dc.Blocks(ctx, s.Height, s.Height)
	if got := b[0].Txs[s.Index]; got.Fee != last.Fee || got.Nonce != last.Nonce {
		t.Fatalf("attempt records fee %d nonce %d, the chain holds fee %d nonce %d", last.Fee, last.Nonce, got.Fee, got.Nonce)
	}
}

// TestRemoteWorkerDiesAfterSending: a worker sends its transaction and dies
// before it answers, so the node never learns the hash; its retry at the
// same nonce is refused (nonce_too_low). The node looks up what took the
// nonce in the chain's blocks: its own transaction (the memo is the uid)
// makes the first attempt included, DONE, applied once; another one proves
// the attempt cannot land, and a fresh nonce ends it DONE.
func TestRemoteWorkerDiesAfterSending(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		otherMemo bool
		attempts  int // the attempt that landed
	}{
		{"its own transaction took the nonce", false, 1},
		{"another transaction took the nonce", true, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			env := newTestEnv(ctx, t, 20*time.Millisecond, "remote-worker-dies-"+tc.name)
			dc, st, key := env.dc, env.st, env.key
			addr := chain.KeyAddress(key)
			w := &fakeWorker{key: key, c: dc, calls: map[string]int{}, otherMemo: tc.otherMemo}
			w.dieFirst.Store(true)
			srv := httptest.NewServer(w)
			defer srv.Close()
			disp := builtinDispatchers(dc)
			n := env.startNode(ctx, t, sequencer.Config{Dispatchers: disp,
				Policies: map[string]sequencer.Policy{sequencer.CreateClaimVotingAccount: {Delay: 50 * time.Millisecond}},
				Senders:  []sequencer.SenderConfig{{ID: addr, Worker: srv.URL, Remote: dispatch.NewRemoteWorker(srv.URL, 5*time.Second)}}})
			res, err := n.Submit(ctx, []sequencer.Intake{{Queue: "dies", Type: sequencer.CreateClaimVotingAccount, Data: json.RawMessage(`{"title":"dies"}`)}})
			if err != nil {
				t.Fatal(err)
			}
			uid := res[0].Transaction.UID
			tx := waitDone(ctx, t, st, uid)
			var landed *store.Attempt
			for i := range tx.Attempts {
				if tx.Attempts[i].Outcome == store.OutcomeIncluded {
					landed = &tx.Attempts[i]
				}
			}
			if landed == nil || landed.N != tc.attempts || landed.Hash == "" {
				t.Fatalf("attempts %+v, want attempt %d included", tx.Attempts, tc.attempts)
			}
			if tc.otherMemo && (tx.Attempts[0].Outcome != store.OutcomeDropped || landed.Nonce != tx.Attempts[0].Nonce+1) {
				t.Fatalf("attempts %+v: want the first dropped, the landing one at the next nonce", tx.Attempts)
			}
			if problems, err := chain.AuditOnceInOrder(ctx, dc, []string{uid}); err != nil || len(problems) > 0 {
				t.Fatalf("audit: %v %v", problems, err)
			}
		})
	}
}

// builtinDispatchers are the zkApp dispatchers of every built-in type, on c.
func builtinDispatchers(c chain.Chain) map[string]sequencer.Dispatcher {
	disp := map[string]sequencer.Dispatcher{}
	for _, typ := range dispatch.BuiltinTypes() {
		d, _ := dispatch.NewZkAppDispatcher(typ, 3, c, nil)
		disp[typ] = d
	}
	return disp
}

// waitDone polls st until uid is DONE and returns it; FAILED, or 20 s
// without DONE, fails the test.
func waitDone(ctx context.Context, t *testing.T, st store.Store, uid string) store.Transaction {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		tx, err := st.Get(ctx, uid)
		if err != nil {
			t.Fatal(err)
		}
		if tx.State == store.Done {
			return tx
		}
		if tx.State == store.Failed || time.Now().After(deadline) {
			t.Fatalf("%s ended %s (%s): %+v", tx.UID, tx.State, tx.Error, tx.Attempts)
		}
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond): // polling the store
		}
	}
}
