package sequencer

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/store"
)

// Nonce-ordered pipelining (CoreConfig.Pipelines): the policy's prefix
// matching and validation, a queue of the default 1 unchanged, 4 in flight
// at consecutive nonces on one sender, a nonce gap filled, and a call-once
// revert FAILED at once with the chain's reason.

// typOnce is a type sent at most once (MaxRetries 0), as the processor's and
// the distributed sequencer's call-once.
const typOnce = "call-once"

func pipeConfig(rules ...Pipeline) CoreConfig {
	cfg := testConfig()
	cfg.Policies[typOnce] = Policy{MaxRetries: 0, Delay: delayB}
	cfg.Pipelines = rules
	return cfg
}

func TestInFlightFor(t *testing.T) {
	rules := []Pipeline{{Prefix: "ds/", InFlight: 8}, {Prefix: "ds/hot/", InFlight: 64}, {Prefix: "lead", InFlight: 2}}
	for _, tc := range []struct {
		queue string
		want  int
	}{
		{"zkapp-1", 1},
		{"ds/", 8},
		{"ds/a", 8},
		{"ds/hot/x", 64}, // the longest prefix wins
		{"ds/hot", 8},
		{"leader/0", 2},
		{"DS/a", 1}, // prefixes are case-sensitive
		{"", 1},
	} {
		if got := InFlightFor(rules, tc.queue); got != tc.want {
			t.Errorf("InFlightFor(%q) = %d, want %d", tc.queue, got, tc.want)
		}
	}
	if got := InFlightFor([]Pipeline{{Prefix: "", InFlight: 3}, {Prefix: "a", InFlight: 5}}, "b"); got != 3 {
		t.Errorf("an empty prefix matches every queue: got %d, want 3", got)
	}
	if got := InFlightFor(nil, "q"); got != 1 {
		t.Errorf("no rules: %d, want 1", got)
	}
}

func TestCheckPipelines(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rules []Pipeline
		ok    bool
		msg   string
	}{
		{name: "none", ok: true},
		{name: "bounds", rules: []Pipeline{{Prefix: "a", InFlight: 1}, {Prefix: "b", InFlight: MaxInFlight}}, ok: true},
		{name: "zero", rules: []Pipeline{{Prefix: "a", InFlight: 0}}, msg: "inFlight 0 must be from 1 to 1024"},
		{name: "negative", rules: []Pipeline{{Prefix: "a", InFlight: -2}}, msg: "inFlight -2"},
		{name: "too many", rules: []Pipeline{{Prefix: "a", InFlight: MaxInFlight + 1}}, msg: "inFlight 1025 must be from 1 to 1024"},
		{name: "twice", rules: []Pipeline{{Prefix: "a", InFlight: 2}, {Prefix: "a", InFlight: 3}}, msg: "two rules"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckPipelines(tc.rules)
			if tc.ok != (err == nil) {
				t.Fatalf("CheckPipelines: %v, want ok %v", err, tc.ok)
			}
			if err != nil && (!errors.Is(err, ErrPipeline) || !strings.Contains(err.Error(), tc.msg)) {
				t.Fatalf("error %q: want ErrPipeline and %q", err, tc.msg)
			}
			_, err = NewCore(pipeConfig(tc.rules...), t0, Snapshot{Senders: []store.Sender{acct("s1", 0)}})
			if tc.ok != (err == nil) || err != nil && !errors.Is(err, ErrPipeline) {
				t.Fatalf("NewCore: %v, want ok %v", err, tc.ok)
			}
		})
	}
}

// pipeline dispatches the queue's transactions until none more is asked
// for: each dispatch signed at the nonce it names, with hash "<uid>-<n>";
// it returns the submits, in order.
func (h *harness) pipeline(queue string) []Effect {
	h.t.Helper()
	var subs []Effect
	for len(h.effects(EffectDispatch, queue)) > 0 {
		e := h.take(EffectDispatch, queue)
		h.signed(e, e.Sender.Nonce, fmt.Sprintf("%s-%d", e.UID, e.Attempt))
		s := h.take(EffectSubmit, queue)
		subs = append(subs, s)
	}
	return subs
}

// sent reports every submit sent.
func (h *harness) sent(subs []Effect) {
	h.t.Helper()
	for _, s := range subs {
		h.c.Step(Dispatched(h.now, s.Queue, DispatchResult{UID: s.UID, Attempt: s.Attempt, Nonce: s.Tx.Nonce, Hash: s.Hash}))
		h.step()
	}
}

func TestPipelineDefaultOneInFlight(t *testing.T) {
	h := newHarness(t, pipeConfig(Pipeline{Prefix: "ds/", InFlight: 4}), acct("s1", 7))
	uids := h.enqueue("q1", typA, 3)
	subs := h.pipeline("q1")
	if len(subs) != 1 || subs[0].UID != uids[0] || subs[0].Tx.Nonce != 7 {
		t.Fatalf("a queue no rule names sent %d (%+v), want only %s at nonce 7", len(subs), subs, uids[0])
	}
	h.sent(subs)
	h.newHead(okReceipt(subs[0].Hash))
	h.wantState(uids[0], store.Done)
	if subs = h.pipeline("q1"); len(subs) != 1 || subs[0].UID != uids[1] || subs[0].Tx.Nonce != 8 {
		t.Fatalf("next: %+v, want %s alone at nonce 8", subs, uids[1])
	}
}

func TestPipelineFourInFlight(t *testing.T) {
	h := newHarness(t, pipeConfig(Pipeline{Prefix: "ds/", InFlight: 4}), acct("s1", 10), acct("s2", 0))
	uids := h.enqueue("ds/a", typA, 6)
	subs := h.pipeline("ds/a")
	if len(subs) != 4 {
		t.Fatalf("%d in flight, want 4: %s", len(subs), h.describeOut())
	}
	var receipts []Receipt
	for i, s := range subs {
		if s.UID != uids[i] || s.Tx.Nonce != 10+uint64(i) || string(s.Tx.From) != "s1" {
			t.Fatalf("submit %d: %s from %s at nonce %d, want %s from s1 at %d", i, s.UID, s.Tx.From, s.Tx.Nonce, uids[i], 10+i)
		}
		receipts = append(receipts, okReceipt(s.Hash))
	}
	if q := h.queue("ds/a"); q.TxUID != uids[0] || q.Sender != "s1" {
		t.Fatalf("binding %+v, want %s on s1", q, uids[0])
	}
	if s2 := h.senders["s2"]; s2.Queue != "" {
		t.Fatalf("a second sender was bound to the pipelined queue: %+v", s2)
	}
	h.sent(subs)
	for _, u := range uids[1:4] {
		h.wantState(u, store.Revision)
	}
	// All four land in one block: DONE in queue order, in one step.
	r := h.newHead(receipts...)
	var done []string
	for _, e := range r.Batch.History {
		if e.To == store.Done {
			done = append(done, e.UID)
		}
	}
	if fmt.Sprint(done) != fmt.Sprint(uids[:4]) {
		t.Fatalf("DONE in order %v, want %v", done, uids[:4])
	}
	// The queue, freed, goes on with the last two: on the sender it gets
	// (s2, first in the free list now), at its next nonces.
	subs = h.pipeline("ds/a")
	if len(subs) != 2 || subs[0].Tx.From != "s2" || subs[1].Tx.From != "s2" || subs[0].Tx.Nonce != 0 || subs[1].Tx.Nonce != 1 {
		t.Fatalf("then %+v, want two on s2 at nonces 0 and 1", subs)
	}
}

// A lead's attempt dropped from the mempool while its followers wait above
// its nonce: with no retry left it is re-sent at its nonce (a replacement,
// fee raised) instead of FAILED, and all of them land.
func TestPipelineGapFilled(t *testing.T) {
	h := newHarness(t, pipeConfig(Pipeline{Prefix: "ds/", InFlight: 4}), acct("s1", 0))
	uids := h.enqueue("ds/a", typOnce, 3)
	subs := h.pipeline("ds/a")
	if len(subs) != 3 {
		t.Fatalf("%d in flight, want 3", len(subs))
	}
	h.sent(subs)
	h.heads(3) // the inclusion timeout
	h.answer("ds/a", chain.TxDropped)
	h.wantState(uids[0], store.Retry)
	if n := h.lastHistory(uids[0]).Note; !strings.Contains(n, "re-sent at nonce 0") {
		t.Fatalf("note %q, want the re-send", n)
	}
	h.tick(delayB)
	first := h.attempt(uids[0], 1)
	e := h.take(EffectDispatch, "ds/a")
	if e.Sender.Nonce != 0 || e.Sender.Fee <= first.Fee || e.UID != uids[0] {
		t.Fatalf("re-send %+v: want %s at nonce 0 with a fee above %d", e.Sender, uids[0], first.Fee)
	}
	h.signed(e, 0, uids[0]+"-2")
	sub := h.take(EffectSubmit, "ds/a")
	h.sent([]Effect{sub})
	h.newHead(okReceipt(sub.Hash), okReceipt(subs[1].Hash), okReceipt(subs[2].Hash))
	for _, u := range uids {
		h.wantState(u, store.Done)
	}
	h.wantFree("ds/a", "s1")
}

// A follower whose submit the chain refused leaves a gap in the middle of
// the pipeline: once it leads, it is re-sent at its own nonce.
func TestPipelineFollowerErrorResent(t *testing.T) {
	h := newHarness(t, pipeConfig(Pipeline{Prefix: "ds/", InFlight: 3}), acct("s1", 0))
	uids := h.enqueue("ds/a", typA, 3)
	subs := h.pipeline("ds/a")
	h.sent(subs[:1])
	h.c.Step(Dispatched(h.now, "ds/a", DispatchResult{UID: subs[1].UID, Attempt: 1, Nonce: 1, Hash: subs[1].Hash, Err: errors.New("mempool full")}))
	h.step()
	h.sent(subs[2:])
	h.newHead(okReceipt(subs[0].Hash))
	h.wantState(uids[0], store.Done)
	h.wantState(uids[1], store.Retry)
	h.tick(delayA)
	h.answer("ds/a", chain.TxUnknown) // the refused attempt is settled first
	e := h.take(EffectDispatch, "ds/a")
	if e.UID != uids[1] || e.Sender.Nonce != 1 {
		t.Fatalf("retry %+v of %s, want %s at nonce 1", e.Sender, e.UID, uids[1])
	}
	h.signed(e, 1, uids[1]+"-2")
	sub := h.take(EffectSubmit, "ds/a")
	h.sent([]Effect{sub})
	h.newHead(okReceipt(sub.Hash), okReceipt(subs[2].Hash))
	h.wantState(uids[1], store.Done)
	h.wantState(uids[2], store.Done)
}

// A call-once transaction reverted on chain is FAILED at once, with the
// chain's reason in its record and in OnFailure's result, and no retry;
// its followers, which used the next nonces, go on.
func TestPipelineCallOnceRevert(t *testing.T) {
	h := newHarness(t, pipeConfig(Pipeline{Prefix: "ds/", InFlight: 4}), acct("s1", 0))
	uids := h.enqueue("ds/a", typOnce, 3)
	subs := h.pipeline("ds/a")
	h.sent(subs)
	h.newHead(failReceipt(subs[0].Hash, "reverted: state already spent"), okReceipt(subs[1].Hash), okReceipt(subs[2].Hash))
	// No fee-raising retry, no delay: the receipt is final (the chain
	// declares no reorgs).
	h.wantState(uids[0], store.Failed)
	if tx := h.tx(uids[0]); len(tx.Attempts) != 1 || !strings.Contains(tx.Error, "reverted: state already spent") {
		t.Fatalf("FAILED with %d attempts, error %q: want 1 and the chain's reason", len(tx.Attempts), tx.Error)
	}
	var hook Effect
	for _, e := range h.takeAll(EffectHook, "ds/a") {
		if e.UID == uids[0] {
			hook = e
		}
	}
	if hook.Success || !strings.Contains(string(hook.Result.Error), "state already spent") {
		t.Fatalf("OnFailure %+v: want the reason", hook)
	}
	h.wantState(uids[1], store.Done)
	h.wantState(uids[2], store.Done)
	h.none(EffectDispatch, "ds/a")
}

// The same revert on a queue of the default 1: FAILED at once too.
func TestCallOnceRevertFailsAtOnce(t *testing.T) {
	h := newHarness(t, pipeConfig(), acct("s1", 0))
	uid := h.enqueue("q1", typOnce, 1)[0]
	e := h.take(EffectDispatch, "q1")
	h.signed(e, 0, "h1")
	h.sent([]Effect{h.take(EffectSubmit, "q1")})
	h.newHead(failReceipt("h1", "reverted: intent already confirmed"))
	h.wantState(uid, store.Failed)
	if tx := h.tx(uid); len(tx.Attempts) != 1 || tx.Retries != 0 || !strings.Contains(tx.Error, "intent already confirmed") {
		t.Fatalf("%+v: want one attempt, no retry, the reason", tx)
	}
	h.tick(time.Minute)
	h.none(EffectDispatch, "q1")
}
