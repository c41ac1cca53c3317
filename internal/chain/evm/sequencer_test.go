package evm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/sqlite"
)

// seqRig is the sequencer, with its call dispatcher, on the harness's
// chain; the test mines blocks itself (Commit) so that it decides what
// the pool holds when.
type seqRig struct {
	h    *harness
	st   *sqlite.Store
	seq  *sequencer.Node
	stop func()
}

func newSeqRig(t *testing.T, h *harness) *seqRig {
	t.Helper()
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "ordo.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	keys := map[string]chain.Key{string(addr(h.node1)): h.node1}
	seq, err := sequencer.NewNode(sequencer.Config{Store: st, Chain: h.b,
		Dispatchers:      map[string]sequencer.Dispatcher{dispatch.CallType: dispatch.NewCallDispatcher(5, h.b, func(id string) chain.Key { return keys[id] })},
		Senders:          []sequencer.SenderConfig{{ID: addr(h.node1), Key: h.node1}},
		Policies:         map[string]sequencer.Policy{dispatch.CallType: {MaxRetries: 5, Delay: 10 * time.Millisecond}},
		Fees:             sequencer.FeePolicy{Initial: 2 * gwei, BumpPercent: 10, MinStep: 1, Max: 1000 * gwei},
		InclusionTimeout: 3, PollInterval: 10 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- seq.Run(ctx) }()
	var once sync.Once
	r := &seqRig{h: h, st: st, seq: seq, stop: func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("sequencer: %v", err)
			}
		})
	}}
	t.Cleanup(r.stop)
	select {
	case <-seq.Started():
	case <-time.After(10 * time.Second):
		t.Fatal("the sequencer did not start")
	}
	return r
}

// votes submits n votes on claim (opened first), one queue.
func (r *seqRig) votes(t *testing.T, claim string, n int) []string {
	t.Helper()
	call := func(method string, args map[string]any) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"contract": "voting", "method": method, "args": args})
		return b
	}
	in := []sequencer.Intake{{Queue: claim, Type: dispatch.CallType, Data: call("create_claim_voting_account", map[string]any{"account": claim, "title": "t"})}}
	for i := range n {
		in = append(in, sequencer.Intake{Queue: claim, Type: dispatch.CallType, Data: call("send_claim_vote", map[string]any{"account": claim, "voter": fmt.Sprint(i), "vote": true})})
	}
	res, err := r.seq.Submit(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	var uids []string
	for _, x := range res {
		uids = append(uids, x.Transaction.UID)
	}
	return uids
}

// until mines a block every 20ms until cond holds (at most 2 minutes).
func (r *seqRig) until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 2 minutes", what)
		}
		r.h.sim.Commit()
		time.Sleep(20 * time.Millisecond) // a block time: the node sees each head
	}
}

// seqHead is the newest head the sequencer's store has seen a receipt at
// (the attempts' heights).
func (r *seqRig) seqHead() uint64 {
	var h uint64
	txs, _ := r.st.List(context.Background(), store.Filter{Limit: 1000})
	for _, tx := range txs {
		for _, a := range tx.Attempts {
			h = max(h, a.Height)
		}
	}
	return h
}

func (r *seqRig) state(t *testing.T, uid string) store.Transaction {
	t.Helper()
	tx, err := r.st.Get(t.Context(), uid)
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// appliedOnce checks that every uid ended DONE and the router applied it
// exactly once (its IntentApplied events, keyed by keccak(uid)).
func (r *seqRig) appliedOnce(t *testing.T, uids []string) {
	t.Helper()
	evs, err := r.h.b.Events(t.Context(), 0, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, e := range evs {
		if e.Name != "IntentApplied" {
			continue
		}
		var d struct {
			UID string `json:"uid"`
		}
		if err := json.Unmarshal(e.Data, &d); err != nil {
			t.Fatal(err)
		}
		n[d.UID]++
	}
	for _, u := range uids {
		if tx := r.state(t, u); tx.State != store.Done {
			t.Errorf("%s: %s %q, want DONE", u, tx.State, tx.Error)
		}
		if got := n[crypto.Keccak256Hash([]byte(u)).Hex()]; got != 1 {
			t.Errorf("%s applied %d times, want once", u, got)
		}
	}
}

// TestSequencerRefillsALostNonce: an attempt lost from the pool (the
// simulated chain's Rollback drops every pending transaction) leaves its
// nonce unused; the sequencer's status check finds it unknown and sends
// again at that nonce, so the queue's later intents, which wait on it,
// land too, each exactly once.
func TestSequencerRefillsALostNonce(t *testing.T) {
	h := newHarness(t)
	r := newSeqRig(t, h)
	uids := r.votes(t, "lost", 3)
	// wait until the first attempt is in the pool, then lose it
	from := common.HexToAddress(string(addr(h.node1)))
	deadline := time.Now().Add(30 * time.Second)
	for {
		if n, err := h.sim.Client().PendingNonceAt(t.Context(), from); err == nil && n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no attempt reached the pool")
		}
		time.Sleep(5 * time.Millisecond)
	}
	h.sim.Rollback()
	if n, _ := h.sim.Client().PendingNonceAt(t.Context(), from); n != 0 {
		t.Fatalf("the pool still holds the attempt (pending nonce %d)", n)
	}
	r.until(t, "every intent DONE", func() bool {
		for _, u := range uids {
			if r.state(t, u).State != store.Done {
				return false
			}
		}
		return true
	})
	r.appliedOnce(t, uids)
	first := r.state(t, uids[0])
	if len(first.Attempts) < 2 || first.Attempts[1].Nonce != first.Attempts[0].Nonce {
		t.Fatalf("the lost attempt was not sent again at its nonce: %+v", first.Attempts)
	}
}

// TestSequencerOnAReorg: a reorg (the simulated chain's Fork) takes back
// the block that included an attempt; the sequencer waits for
// confirmations (reorg depth 2 + 1), follows the attempt into the new
// branch, and every intent ends DONE applied exactly once.
func TestSequencerOnAReorg(t *testing.T) {
	h := newHarness(t)
	r := newSeqRig(t, h)
	uids := r.votes(t, "reorg", 2)
	from := common.HexToAddress(string(addr(h.node1)))
	for deadline := time.Now().Add(30 * time.Second); ; {
		if n, err := h.sim.Client().PendingNonceAt(t.Context(), from); err == nil && n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no attempt reached the pool")
		}
		time.Sleep(5 * time.Millisecond)
	}
	parent, err := h.sim.Client().HeaderByNumber(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	h.sim.Commit() // includes the first attempt
	head := parent.Number.Uint64() + 1
	for deadline := time.Now().Add(10 * time.Second); r.seqHead() < head; {
		if time.Now().After(deadline) {
			t.Fatal("the sequencer did not see the including block")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := h.sim.Fork(parent.Hash()); err != nil {
		t.Fatal(err)
	}
	r.until(t, "every intent DONE", func() bool {
		for _, u := range uids {
			if r.state(t, u).State != store.Done {
				return false
			}
		}
		return true
	})
	r.appliedOnce(t, uids)
	t.Logf("the first intent's attempts: %+v", r.state(t, uids[0]).Attempts)
}

// TestSequencerCancelsANonce: on an EVM chain, an operator's cancel of a
// pending attempt's nonce replaces it in the pool with a zero-value
// transfer to the sender itself (chain.NoopTx); once mined, the intent
// ends FAILED and the router applied nothing.
func TestSequencerCancelsANonce(t *testing.T) {
	h := newHarness(t)
	r := newSeqRig(t, h)
	uid := r.votes(t, "cancel", 0)[0]
	from := common.HexToAddress(string(addr(h.node1)))
	for deadline := time.Now().Add(30 * time.Second); ; {
		tx := r.state(t, uid)
		if len(tx.Attempts) > 0 && tx.Attempts[0].Outcome == store.OutcomeSent {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no attempt sent")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := r.seq.CancelNonce(t.Context(), string(addr(h.node1)), 0, store.CancelFail); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); len(r.state(t, uid).Attempts) < 2 || r.state(t, uid).Attempts[1].Outcome != store.OutcomeSent; {
		if time.Now().After(deadline) {
			t.Fatalf("no no-op sent: %+v", r.state(t, uid).Attempts)
		}
		time.Sleep(5 * time.Millisecond)
	}
	r.until(t, "the intent FAILED", func() bool { return r.state(t, uid).State == store.Failed })
	if n, _ := h.sim.Client().NonceAt(t.Context(), from, nil); n != 1 {
		t.Fatalf("the sender's nonce is %d, want 1 (the no-op took nonce 0)", n)
	}
	evs, err := h.b.Events(t.Context(), 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if e.Name == "IntentApplied" {
			t.Fatalf("the router applied something: %+v", e)
		}
	}
	if tx := r.state(t, uid); !strings.Contains(tx.Error, "cancelled by the operator") {
		t.Fatalf("FAILED with %q", tx.Error)
	}
}
