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

// TestCoreDispatchErrorRetry: a dispatch error -> RETRY (binding RETRY ->
// DELAY until now+Delay) -> nothing before the delay ends -> status checks of
// earlier attempts with hashes -> a replacement with the same nonce and a
// higher fee.
func TestCoreDispatchErrorRetry(t *testing.T) {
	for _, tc := range []struct {
		name  string
		hash  string         // hash the failed dispatch reported
		check chain.TxState  // the check's answer, when there is a hash
		then  func(*harness) // what a pending earlier attempt leads to
	}{
		{name: "no hash"},
		{name: "hash unknown", hash: "h1", check: chain.TxUnknown},
		{name: "hash dropped", hash: "h1", check: chain.TxDropped},
		{name: "hash pending", hash: "h1", check: chain.TxPending},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, testConfig(), acct("s1", 7))
			uid := h.enqueue("q1", typA, 1)[0]
			e1 := h.take(EffectDispatch, "q1")
			h.dispatched(e1, tc.hash, errors.New("worker: connection reset"))

			h.wantState(uid, store.Retry)
			if he := h.lastHistory(uid); he.From != store.Waiting || he.To != store.Retry || he.Binding != store.RetryBinding {
				t.Fatalf("history %+v, want WAITING->RETRY with binding RETRY", he)
			}
			until := t0.Add(delayA)
			if q := h.wantBinding("q1", store.Delay); !q.DelayUntil.Equal(until) || q.Sender != "s1" {
				t.Fatalf("queue %+v, want DELAY until %v bound to s1", q, until)
			}
			tx := h.tx(uid)
			if tx.Retries != 1 || !strings.Contains(tx.Error, "connection reset") {
				t.Fatalf("retries %d error %q", tx.Retries, tx.Error)
			}
			if a := h.attempt(uid, 1); a.Outcome != store.OutcomeError || a.Error == "" || a.Hash != tc.hash {
				t.Fatalf("attempt 1 %+v", a)
			}
			if dl := h.c.NextDeadline(); !dl.Equal(until) {
				t.Fatalf("NextDeadline %v, want %v", dl, until)
			}

			h.idle(h.tick(delayA - time.Nanosecond))
			h.none(EffectDispatch, "")
			h.tick(time.Nanosecond)
			if tc.hash != "" {
				h.none(EffectDispatch, "q1")
				if c := h.take(EffectCheck, "q1"); c.Attempt != 1 || c.Hash != tc.hash {
					t.Fatalf("check %+v", c)
				} else {
					h.checked(c, status(c.Hash, tc.check), nil)
				}
			}
			e2 := h.take(EffectDispatch, "q1")
			if e2.Attempt != 2 || e2.Sender.Nonce != 7 || e2.Sender.Fee != 1100 || e2.Sender.Retries != 1 || e2.SyncNonce {
				t.Fatalf("re-dispatch %+v, want attempt 2 nonce 7 fee 1100 retries 1", e2)
			}
			// While the dispatch is out, the ended delay is no deadline to
			// wake for, and ticks do nothing.
			if dl := h.c.NextDeadline(); !dl.IsZero() && !dl.After(h.now) {
				t.Fatalf("NextDeadline %v is already due while the re-dispatch is outstanding: a driver would spin", dl)
			}
			h.idle(h.tick(time.Hour))

			h.dispatched(e2, "h2", nil)
			h.wantState(uid, store.Revision)
			if he := h.lastHistory(uid); he.From != store.Retry || he.To != store.Revision || he.Binding != store.Inclusion {
				t.Fatalf("history %+v", he)
			}
			h.newHead(okReceipt("h2"))
			h.wantState(uid, store.Done)
			h.wantFree("q1", "s1")
			if n := h.senders["s1"].NextNonce; n != 8 {
				t.Fatalf("NextNonce %d, want 8", n)
			}
		})
	}
}

// TestCoreFeeBump: every retry raises the fee by at least BumpPercent and
// MinStep, capped at Max; the first attempt pays max(Initial, chain minimum).
func TestCoreFeeBump(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fees   FeePolicy
		minFee uint64
		want   []uint64
	}{
		{"percent", FeePolicy{Initial: 1000, BumpPercent: 10, MinStep: 100, Max: 1e6}, 0, []uint64{1000, 1100, 1210, 1331, 1465, 1612}},
		{"min step", FeePolicy{Initial: 500, BumpPercent: 10, MinStep: 100, Max: 1e6}, 0, []uint64{500, 600, 700, 800, 900, 1000, 1100, 1210}},
		{"capped", FeePolicy{Initial: 1000, BumpPercent: 10, MinStep: 100, Max: 1250}, 0, []uint64{1000, 1100, 1210, 1250, 1250}},
		{"chain minimum", FeePolicy{Initial: 1000, BumpPercent: 10, MinStep: 100, Max: 1e6}, 3000, []uint64{3000, 3300, 3630}},
		{"big percent", FeePolicy{Initial: 1000, BumpPercent: 50, MinStep: 1, Max: 1e6}, 0, []uint64{1000, 1500, 2250}},
		{"defaults", FeePolicy{}, 0, []uint64{1000, 1100, 1210}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.Fees = tc.fees
			cfg.Policies[typA] = Policy{MaxRetries: 20, Delay: time.Second}
			h := newHarness(t, cfg, acct("s1", 3))
			h.minFee = tc.minFee
			h.newHead()
			uid := h.enqueue("q1", typA, 1)[0]
			for i, want := range tc.want {
				e := h.take(EffectDispatch, "q1")
				if e.Sender.Fee != want || e.Sender.Nonce != 3 || e.Attempt != i+1 {
					t.Fatalf("attempt %d: fee %d nonce %d, want fee %d nonce 3", e.Attempt, e.Sender.Fee, e.Sender.Nonce, want)
				}
				if i > 0 {
					prev := tc.want[i-1]
					f := tc.fees
					f.SetDefaults()
					// The chain's replacement rule (devchain): fee*10 >= prev*11.
					if want < f.Max && (want*10 < prev*11 || want*100 < prev*(100+f.BumpPercent) || want < prev+f.MinStep) {
						t.Fatalf("table error: %d after %d", want, prev)
					}
				}
				h.dispatched(e, "", errors.New("replacement_underpriced"))
				if i < len(tc.want)-1 {
					h.tick(time.Second)
				}
			}
			if got := len(h.tx(uid).Attempts); got != len(tc.want) {
				t.Fatalf("%d attempts", got)
			}
		})
	}
}

// TestCoreInclusionTimeout: the head passes the deadline -> a status check ->
// what the chain says decides: pending is a timeout (RETRY, the nonce is
// reused by a higher-fee replacement), included ends it, dropped/unknown
// retry with the same nonce, a failed inclusion retries with a new one.
func TestCoreInclusionTimeout(t *testing.T) {
	for _, tc := range []struct {
		name      string
		st        chain.TxStatus
		state     store.TxState
		outcome   store.Outcome
		note      string
		nextNonce uint64 // nonce of the next attempt
	}{
		{"pending", status("h1", chain.TxPending), store.Retry, store.OutcomeTimeout, "not included within 3 blocks", 7},
		{"dropped", status("h1", chain.TxDropped), store.Retry, store.OutcomeDropped, "dropped", 7},
		{"unknown", status("h1", chain.TxUnknown), store.Retry, store.OutcomeUnknown, "dropped", 7},
		{"included failed", includedFailed("h1", "out of gas"), store.Retry, store.OutcomeFailed, "out of gas", 8},
		{"included", status("h1", chain.TxIncluded), store.Done, store.OutcomeIncluded, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, testConfig(), acct("s1", 7))
			uid := h.enqueue("q1", typA, 1)[0]
			h.ok("q1", "h1") // deadline 103
			h.newHead()
			h.newHead()
			h.none(EffectCheck, "q1")
			h.newHead() // 103
			c := h.take(EffectCheck, "q1")
			if c.Hash != "h1" || c.Attempt != 1 {
				t.Fatalf("check %+v", c)
			}
			h.wantState(uid, store.Revision)
			h.checked(c, tc.st, nil)
			h.wantState(uid, tc.state)
			if a := h.attempt(uid, 1); a.Outcome != tc.outcome {
				t.Fatalf("attempt outcome %q, want %q", a.Outcome, tc.outcome)
			}
			if tc.state == store.Done {
				h.wantFree("q1", "s1")
				h.take(EffectHook, "q1")
				h.none(EffectDispatch, "")
				return
			}
			if he := h.lastHistory(uid); !strings.Contains(he.Note, tc.note) || he.From != store.Revision {
				t.Fatalf("history %+v, want note %q", he, tc.note)
			}
			h.wantBinding("q1", store.Delay)
			h.tick(delayA)
			if tc.outcome == store.OutcomeTimeout || tc.outcome == store.OutcomeUnknown {
				// Still landable: asked again before the replacement.
				h.answer("q1", chain.TxPending)
			}
			e := h.take(EffectDispatch, "q1")
			if e.Sender.Nonce != tc.nextNonce || e.Sender.Fee != 1100 {
				t.Fatalf("next attempt nonce %d fee %d, want nonce %d fee 1100", e.Sender.Nonce, e.Sender.Fee, tc.nextNonce)
			}
			h.dispatched(e, "h2", nil)
			if q := h.wantBinding("q1", store.WaitingInclusion); q.Deadline != h.head+3 {
				t.Fatalf("deadline %d, want %d", q.Deadline, h.head+3)
			}
			h.newHead(okReceipt("h2"))
			h.wantState(uid, store.Done)
		})
	}
}

// TestCoreCheckFindsEarlierAttempt: before a re-dispatch (or FAILED) the chain
// is asked about every earlier attempt; one that landed ends the transaction
// DONE with no further dispatch.
func TestCoreCheckFindsEarlierAttempt(t *testing.T) {
	t.Run("after timeout", func(t *testing.T) {
		h := newHarness(t, testConfig(), acct("s1", 7))
		uid := h.enqueue("q1", typA, 1)[0]
		h.ok("q1", "h1")
		h.heads(3)
		h.answer("q1", chain.TxPending) // timeout -> RETRY
		h.tick(delayA)
		h.answer("q1", chain.TxIncluded)
		h.wantState(uid, store.Done)
		h.none(EffectDispatch, "")
		if n := len(h.tx(uid).Attempts); n != 1 {
			t.Fatalf("%d attempts", n)
		}
		if hook := h.take(EffectHook, "q1"); !hook.Success || hook.Result.Hash != "h1" {
			t.Fatalf("hook %+v", hook)
		}
		if n := h.senders["s1"].NextNonce; n != 8 {
			t.Fatalf("NextNonce %d", n)
		}
	})
	t.Run("dispatch error with hash", func(t *testing.T) {
		h := newHarness(t, testConfig(), acct("s1", 7))
		uid := h.enqueue("q1", typA, 1)[0]
		h.dispatched(h.take(EffectDispatch, "q1"), "h1", errors.New("read timeout"))
		h.tick(delayA)
		h.answer("q1", chain.TxIncluded)
		h.wantState(uid, store.Done)
		h.none(EffectDispatch, "")
	})
	t.Run("first of two attempts", func(t *testing.T) {
		h := newHarness(t, testConfig(), acct("s1", 7))
		uid := h.enqueue("q1", typA, 1)[0]
		h.ok("q1", "h1")
		h.heads(3)
		h.answer("q1", chain.TxPending)
		h.tick(delayA)
		h.answer("q1", chain.TxPending)
		h.ok("q1", "h2") // the replacement, same nonce
		h.heads(3)
		cs := h.takeAll(EffectCheck, "q1")
		if len(cs) != 2 {
			t.Fatalf("%d checks at the second timeout, want both attempts", len(cs))
		}
		for _, c := range cs {
			h.checked(c, status(c.Hash, chain.TxPending), nil)
		}
		h.wantState(uid, store.Retry)
		h.tick(delayA)
		cs = h.takeAll(EffectCheck, "q1")
		if len(cs) != 2 {
			t.Fatalf("%d checks before the third attempt", len(cs))
		}
		// Answers arrive in any order; nothing is decided before the last.
		h.checked(cs[1], status(cs[1].Hash, chain.TxDropped), nil)
		h.none(EffectDispatch, "")
		h.checked(cs[0], status(cs[0].Hash, chain.TxIncluded), nil)
		h.wantState(uid, store.Done)
		h.none(EffectDispatch, "")
		if a := h.attempt(uid, 2); a.Outcome != store.OutcomeDropped {
			t.Fatalf("attempt 2 %+v", a)
		}
	})
	t.Run("receipt during delay", func(t *testing.T) {
		h := newHarness(t, testConfig(), acct("s1", 7))
		uid := h.enqueue("q1", typA, 1)[0]
		h.ok("q1", "h1")
		h.heads(3)
		h.answer("q1", chain.TxPending)
		h.newHead(okReceipt("h1"))
		h.wantState(uid, store.Done)
		h.wantFree("q1", "s1")
		h.idle(h.tick(delayA))
	})
	t.Run("receipt during re-dispatch", func(t *testing.T) {
		h := newHarness(t, testConfig(), acct("s1", 7))
		uid := h.enqueue("q1", typA, 1)[0]
		h.ok("q1", "h1")
		h.heads(3)
		h.answer("q1", chain.TxPending)
		h.tick(delayA)
		h.answer("q1", chain.TxPending)
		e := h.take(EffectDispatch, "q1")
		h.newHead(okReceipt("h1"))
		h.wantState(uid, store.Done)
		h.idle(h.dispatched(e, "h2", nil)) // the late result is ignored
		if n := len(h.tx(uid).Attempts); n != 2 || h.attempt(uid, 2).Nonce != 7 {
			t.Fatalf("attempts %+v", h.tx(uid).Attempts)
		}
	})
}

// TestCoreMaxRetries: past MaxRetries the transaction is FAILED, its hook
// runs with Success=false and its sender is freed; but never while an
// attempt is pending on chain: then the binding waits (WAITING_INCLUSION)
// until the chain settles it.
func TestCoreMaxRetries(t *testing.T) {
	t.Run("dispatch errors", func(t *testing.T) {
		h := newHarness(t, testConfig(), acct("s1", 7))
		uid := h.enqueue("q1", typA, 1)[0] // MaxRetries 3: 4 attempts
		for i := 1; i <= 4; i++ {
			h.wantState(uid, map[bool]store.TxState{true: store.Waiting, false: store.Retry}[i == 1])
			e := h.take(EffectDispatch, "q1")
			if e.Attempt != i || e.Sender.Retries != i-1 {
				t.Fatalf("attempt %d retries %d", e.Attempt, e.Sender.Retries)
			}
			h.dispatched(e, "", errors.New("rejected"))
			if i < 4 {
				h.tick(delayA)
			}
		}
		h.wantState(uid, store.Failed)
		tx := h.tx(uid)
		if tx.Retries != 3 || !strings.Contains(tx.Error, "rejected") {
			t.Fatalf("retries %d error %q", tx.Retries, tx.Error)
		}
		if he := h.lastHistory(uid); he.From != store.Retry || he.To != store.Failed || he.Binding != store.Free {
			t.Fatalf("history %+v", he)
		}
		h.wantFree("q1", "s1")
		if hook := h.take(EffectHook, "q1"); hook.Success || hook.Sender.AccountID != "s1" {
			t.Fatalf("hook %+v", hook)
		}
		if n := h.senders["s1"].NextNonce; n != 7 {
			t.Fatalf("NextNonce %d: no attempt landed", n)
		}
	})

	// settle brings a typB transaction (MaxRetries 1) to its last failure
	// with attempt h1 still pending, and returns its uid.
	settle := func(t *testing.T, h *harness) string {
		uid := h.enqueue("q1", typB, 1)[0]
		h.ok("q1", "h1")
		h.heads(3)
		h.answer("q1", chain.TxPending) // timeout: RETRY 1
		h.tick(delayB)
		h.answer("q1", chain.TxPending)
		e := h.take(EffectDispatch, "q1")
		if e.Sender.Nonce != 7 {
			t.Fatalf("replacement nonce %d", e.Sender.Nonce)
		}
		h.dispatched(e, "", chain.ErrReplacementUnderpriced) // RETRY 2 > MaxRetries
		c := h.take(EffectCheck, "q1")
		if c.Hash != "h1" {
			t.Fatalf("check before FAILED %+v", c)
		}
		h.checked(c, status("h1", chain.TxPending), nil)
		h.wantState(uid, store.Retry)
		if q := h.wantBinding("q1", store.WaitingInclusion); q.Deadline != h.head+3 || q.Sender != "s1" {
			t.Fatalf("settling queue %+v", q)
		}
		h.none(EffectHook, "")
		h.none(EffectDispatch, "")
		return uid
	}
	for _, tc := range []struct {
		name string
		run  func(h *harness)
		want store.TxState
	}{
		{"included", func(h *harness) { h.newHead(okReceipt("h1")) }, store.Done},
		{"failed receipt", func(h *harness) { h.newHead(failReceipt("h1", "reverted")) }, store.Failed},
		{"dropped at deadline", func(h *harness) { h.heads(3); h.answer("q1", chain.TxDropped) }, store.Failed},
		{"unknown at deadline", func(h *harness) { h.heads(3); h.answer("q1", chain.TxUnknown) }, store.Failed},
		{"included at deadline", func(h *harness) { h.heads(3); h.answer("q1", chain.TxIncluded) }, store.Done},
		{"still pending, then included", func(h *harness) {
			h.heads(3)
			h.answer("q1", chain.TxPending)
			h.wantState(h.bySeq()[0].UID, store.Retry)
			if q := h.wantBinding("q1", store.WaitingInclusion); q.Deadline != h.head+3 {
				h.t.Fatalf("deadline not extended: %+v", q)
			}
			h.heads(2)
			h.newHead(okReceipt("h1"))
		}, store.Done},
	} {
		t.Run("settle/"+tc.name, func(t *testing.T) {
			h := newHarness(t, testConfig(), acct("s1", 7))
			uid := settle(t, h)
			tc.run(h)
			h.wantState(uid, tc.want)
			h.wantFree("q1", "s1")
			if hook := h.take(EffectHook, "q1"); hook.Success != (tc.want == store.Done) {
				t.Fatalf("hook %+v", hook)
			}
			h.none(EffectDispatch, "")
		})
	}

	t.Run("settle after timeout", func(t *testing.T) {
		h := newHarness(t, testConfig(), acct("s1", 7))
		uid := h.enqueue("q1", typB, 1)[0]
		h.ok("q1", "h1")
		h.heads(3)
		h.answer("q1", chain.TxPending)
		h.tick(delayB)
		h.answer("q1", chain.TxPending)
		h.ok("q1", "h2")
		h.heads(3)
		for _, c := range h.takeAll(EffectCheck, "q1") {
			h.checked(c, status(c.Hash, chain.TxPending), nil)
		}
		// Out of retries (1 made): asked again, still pending: no FAILED;
		// the transaction stays REVISION while its attempts settle.
		for _, c := range h.takeAll(EffectCheck, "q1") {
			h.checked(c, status(c.Hash, chain.TxPending), nil)
		}
		h.wantState(uid, store.Revision)
		h.wantBinding("q1", store.WaitingInclusion)
		h.newHead(okReceipt("h2"))
		h.wantState(uid, store.Done)
	})
}

// TestCoreNonceTooLow: a nonce_too_low dispatch error makes the next dispatch
// sync the nonce with the chain; the nonce the attempt used is recorded.
func TestCoreNonceTooLow(t *testing.T) {
	for _, builder := range []bool{false, true} {
		t.Run(fmt.Sprintf("builder=%v", builder), func(t *testing.T) {
			h := newHarness(t, testConfig(), acct("s1", 7))
			uid := h.enqueue("q1", typA, 2)[0]
			e1 := h.take(EffectDispatch, "q1")
			if e1.SyncNonce {
				t.Fatal("first dispatch syncs")
			}
			err := fmt.Errorf("send: %w", chain.ErrNonceTooLow)
			if builder {
				h.signed(e1, 7, "hb1")
				h.dispatched(h.take(EffectSubmit, "q1"), "hb1", err)
			} else {
				h.dispatched(e1, "", err)
			}
			h.wantState(uid, store.Retry)
			h.tick(delayA)
			if builder {
				h.answer("q1", chain.TxUnknown)
			}
			e2 := h.take(EffectDispatch, "q1")
			// Nonce 7 is taken: the retry takes a fresh nonce (8 or the
			// chain's, whichever is higher, which the driver reads).
			if !e2.SyncNonce || e2.Sender.Nonce != 8 {
				t.Fatalf("re-dispatch %+v, want SyncNonce with nonce 8", e2)
			}
			// The driver read nonce 12 from the chain.
			if builder {
				h.signed(e2, 12, "hb2")
				if a := h.attempt(uid, 2); a.Nonce != 12 {
					t.Fatalf("attempt 2 %+v", a)
				}
				sub := h.take(EffectSubmit, "q1")
				h.c.Step(Dispatched(h.now, "q1", DispatchResult{UID: uid, Attempt: 2, Nonce: 12, Hash: "hb2"}))
				_ = sub
			} else {
				h.c.Step(Dispatched(h.now, "q1", DispatchResult{UID: uid, Attempt: 2, Nonce: 12, Hash: "hb2"}))
			}
			h.step()
			if a := h.attempt(uid, 2); a.Nonce != 12 || a.Hash != "hb2" {
				t.Fatalf("attempt 2 %+v, want nonce 12", a)
			}
			h.newHead(okReceipt("hb2"))
			h.wantState(uid, store.Done)
			if n := h.senders["s1"].NextNonce; n != 13 {
				t.Fatalf("NextNonce %d, want 13", n)
			}
			e3 := h.take(EffectDispatch, "q1")
			if e3.SyncNonce || e3.Sender.Nonce != 13 {
				t.Fatalf("next transaction's dispatch %+v", e3)
			}
		})
	}
	t.Run("other errors do not sync", func(t *testing.T) {
		h := newHarness(t, testConfig(), acct("s1", 7))
		h.enqueue("q1", typA, 1)
		h.dispatched(h.take(EffectDispatch, "q1"), "", chain.ErrNonceTooLow)
		h.tick(delayA)
		h.dispatched(h.take(EffectDispatch, "q1"), "", chain.ErrMempoolFull)
		h.tick(delayA)
		if e := h.take(EffectDispatch, "q1"); e.SyncNonce {
			t.Fatalf("sync after a mempool_full error: %+v", e)
		}
	})
}

// complete answers q's dispatch with hash and includes it: one transaction
// done. It returns the dispatch.
func (h *harness) complete(queue, hash string) Effect {
	h.t.Helper()
	e := h.ok(queue, hash)
	h.newHead(okReceipt(hash))
	h.wantState(e.UID, store.Done)
	h.takeAll(EffectHook, queue)
	return e
}

// TestCoreSendersNoStarvation: many queues share few senders; every queue is
// served in turn, none waits for another to be served twice.
func TestCoreSendersNoStarvation(t *testing.T) {
	for _, tc := range []struct{ queues, senders, per int }{{6, 1, 4}, {7, 2, 3}, {5, 4, 3}} {
		t.Run(fmt.Sprintf("%dq%ds", tc.queues, tc.senders), func(t *testing.T) {
			var ss []store.Sender
			for i := range tc.senders {
				ss = append(ss, acct(fmt.Sprintf("s%d", i), 0))
			}
			h := newHarness(t, testConfig(), ss...)
			for i := range tc.queues {
				h.enqueue(fmt.Sprintf("q%d", i), typA, tc.per)
			}
			served := map[string]int{}
			last := map[string]int{}
			step := 0
			for n := 0; n < tc.queues*tc.per; n++ {
				es := h.effects(EffectDispatch, "")
				if len(es) == 0 {
					t.Fatalf("nothing dispatched after %d of %d", n, tc.queues*tc.per)
				}
				if len(es) > tc.senders {
					t.Fatalf("%d dispatches with %d senders", len(es), tc.senders)
				}
				// Finish the oldest outstanding dispatch.
				e := h.take(EffectDispatch, es[0].Queue)
				step++
				if p, ok := last[e.Queue]; ok {
					// Between two services of a queue, every other queue with
					// work left is served at most once per sender.
					if gap := step - p; gap > tc.queues {
						t.Fatalf("queue %s waited %d services", e.Queue, gap)
					}
				}
				last[e.Queue] = step
				served[e.Queue]++
				for q, k := range served {
					if k-served[e.Queue] > 1 && served[q] < tc.per {
						t.Fatalf("queue %s served %d times, %s only %d", q, k, e.Queue, served[e.Queue])
					}
				}
				hash := fmt.Sprintf("h%d", n)
				h.dispatched(e, hash, nil)
				h.newHead(okReceipt(hash))
			}
			for i := range tc.queues {
				if q := fmt.Sprintf("q%d", i); served[q] != tc.per {
					t.Fatalf("queue %s served %d times", q, served[q])
				}
			}
			if h.c.BusySenders() != 0 {
				t.Fatalf("%d senders still busy", h.c.BusySenders())
			}
		})
	}
}

// TestCoreWaitingWindow: only WaitingWindow WAITING transactions per queue are
// kept in memory; the rest are loaded from the store as the buffer drains, in
// order, and none is lost, even one enqueued while a load is out.
func TestCoreWaitingWindow(t *testing.T) {
	cfg := testConfig()
	cfg.WaitingWindow = 2
	h := newHarness(t, cfg, acct("s1", 0))
	uids := h.enqueue("q1", typA, 5)
	var got []string
	loads := 0
	for n := 0; n < 7; n++ {
		for len(h.effects(EffectDispatch, "q1")) == 0 {
			l := h.take(EffectLoad, "q1")
			loads++
			if l.Limit != 2 {
				t.Fatalf("load %+v", l)
			}
			if loads == 1 {
				// Transaction 6 is committed after the load read the store.
				txs, more := h.readWaiting(l)
				h.c.Step(Enqueued(h.now, h.commit("q1", typA, 1)))
				h.step()
				uids = append(uids, h.bySeq()[len(h.txs)-1].UID)
				h.c.Step(Loaded(h.now, l.Queue, txs, more))
				h.step()
				continue
			}
			h.loaded(l)
		}
		if n == 2 {
			h.enqueue("q1", typA, 1) // 7, after the buffer was refilled
			uids = append(uids, h.bySeq()[len(h.txs)-1].UID)
		}
		e := h.complete("q1", fmt.Sprintf("h%d", n))
		got = append(got, e.UID)
	}
	if strings.Join(got, ",") != strings.Join(uids, ",") {
		t.Fatalf("dispatch order %v, want %v", got, uids)
	}
	if loads < 2 {
		t.Fatalf("%d loads", loads)
	}
	h.none(EffectDispatch, "")
	for _, l := range h.takeAll(EffectLoad, "q1") {
		h.loaded(l)
	}
	h.none(EffectDispatch, "")
	h.none(EffectLoad, "")
}

// readWaiting reads what a load effect would return, without answering it.
func (h *harness) readWaiting(e Effect) ([]store.Transaction, bool) {
	var txs []store.Transaction
	for _, tx := range h.bySeq() {
		if tx.Queue == e.Queue && tx.State == store.Waiting && tx.Seq > e.After && len(txs) < e.Limit+1 {
			txs = append(txs, cloneTx(tx))
		}
	}
	more := len(txs) > e.Limit
	if more {
		txs = txs[:e.Limit]
	}
	return txs, more
}

// TestCoreCheckErrorRetriedOnHead: a status check the chain could not answer
// is asked again on the next head, not before, and decides only once.
func TestCoreCheckErrorRetriedOnHead(t *testing.T) {
	t.Run("timeout check", func(t *testing.T) {
		h := newHarness(t, testConfig(), acct("s1", 7))
		uid := h.enqueue("q1", typA, 1)[0]
		h.ok("q1", "h1")
		h.heads(3)
		c := h.take(EffectCheck, "q1")
		h.checked(c, chain.TxStatus{}, errors.New("chain unreachable"))
		h.wantState(uid, store.Revision)
		h.idle(h.tick(time.Minute))
		h.newHead()
		h.answer("q1", chain.TxPending)
		h.wantState(uid, store.Retry)
		if tx := h.tx(uid); tx.Retries != 1 {
			t.Fatalf("retries %d", tx.Retries)
		}
	})
	t.Run("before dispatch", func(t *testing.T) {
		h := newHarness(t, testConfig(), acct("s1", 7))
		uid := h.enqueue("q1", typA, 1)[0]
		h.dispatched(h.take(EffectDispatch, "q1"), "h1", errors.New("timeout"))
		h.tick(delayA)
		h.checked(h.take(EffectCheck, "q1"), chain.TxStatus{}, errors.New("chain unreachable"))
		h.idle(h.tick(time.Second))
		if dl := h.c.NextDeadline(); !dl.IsZero() && !dl.After(h.now) {
			t.Fatalf("NextDeadline %v is due while the check waits for a head: a driver would spin", dl)
		}
		h.newHead()
		h.answer("q1", chain.TxUnknown)
		if e := h.take(EffectDispatch, "q1"); e.Sender.Nonce != 7 || e.Attempt != 2 {
			t.Fatalf("dispatch %+v", e)
		}
		h.wantState(uid, store.Retry)
	})
	t.Run("failed receipt while a check is to be retried", func(t *testing.T) {
		h := newHarness(t, testConfig(), acct("s1", 7))
		uid := h.enqueue("q1", typA, 1)[0]
		h.ok("q1", "h1")
		h.heads(3)
		h.checked(h.take(EffectCheck, "q1"), chain.TxStatus{}, errors.New("chain unreachable"))
		h.newHead(failReceipt("h1", "reverted"))
		h.wantState(uid, store.Retry)
		if tx := h.tx(uid); tx.Retries != 1 || len(h.hist[uid]) != 2 {
			t.Fatalf("one failed inclusion counted as %d retries, history %v", tx.Retries, h.history(uid))
		}
		h.none(EffectCheck, "q1")
	})
	t.Run("one of two answers fails", func(t *testing.T) {
		h := newHarness(t, testConfig(), acct("s1", 7))
		uid := h.enqueue("q1", typA, 1)[0]
		h.ok("q1", "h1")
		h.heads(3)
		h.answer("q1", chain.TxPending)
		h.tick(delayA)
		h.answer("q1", chain.TxPending)
		h.ok("q1", "h2")
		h.heads(3)
		cs := h.takeAll(EffectCheck, "q1")
		h.checked(cs[0], chain.TxStatus{}, errors.New("x"))
		h.checked(cs[1], status(cs[1].Hash, chain.TxPending), nil)
		h.wantState(uid, store.Revision) // undecided
		h.newHead()
		for _, c := range h.takeAll(EffectCheck, "q1") {
			h.checked(c, status(c.Hash, chain.TxDropped), nil)
		}
		h.wantState(uid, store.Retry)
		if tx := h.tx(uid); tx.Retries != 2 {
			t.Fatalf("retries %d", tx.Retries)
		}
	})
}

// TestCoreStaleInputs: answers for attempts or transactions that are no longer
// current change nothing.
func TestCoreStaleInputs(t *testing.T) {
	h := newHarness(t, testConfig(), acct("s1", 7))
	uid := h.enqueue("q1", typA, 2)[0]
	e := h.take(EffectDispatch, "q1")
	h.dispatched(e, "h1", errors.New("x"))
	h.idle(h.dispatched(e, "h1", nil)) // a second answer for attempt 1
	h.c.Step(Checked(h.now, "q1", uid, 1, status("h1", chain.TxIncluded), nil))
	h.idle(h.step()) // no check outstanding
	h.c.Step(Signed(h.now, "nope", uid, 1, chain.Tx{}, "hx"))
	h.idle(h.step())
	h.c.Step(Loaded(h.now, "q9", nil, false))
	h.idle(h.step())
	h.c.Step(HookDone(h.now, "nope", TxnResult{}, nil))
	h.idle(h.step())
	h.wantState(uid, store.Retry)
}

// TestCoreEnqueuedOutOfOrder: concurrent intakes can notify the core out of
// Seq order (both commit, then race to hand their records over). A record
// that arrives after a later one must not be lost; a late notification of a
// record the core already finished must not dispatch it again.
func TestCoreEnqueuedOutOfOrder(t *testing.T) {
	t.Run("late record", func(t *testing.T) {
		h := newHarness(t, testConfig(), acct("s1", 0))
		h.unordered = true // the intake broke FIFO; the core cannot restore it
		first := h.commit("q1", typA, 1)
		second := h.commit("q1", typA, 1)
		h.c.Step(Enqueued(h.now, second))
		h.step()
		h.c.Step(Enqueued(h.now, first))
		h.step()
		h.complete("q1", "h1")
		for len(h.effects(EffectDispatch, "q1")) == 0 {
			h.loaded(h.take(EffectLoad, "q1"))
		}
		if e := h.complete("q1", "h2"); e.UID != first[0].UID {
			t.Fatalf("dispatched %s, want the late %s", e.UID, first[0].UID)
		}
	})
	t.Run("late duplicate", func(t *testing.T) {
		cfg := testConfig()
		cfg.WaitingWindow = 1
		h := newHarness(t, cfg, acct("s1", 0))
		uids := h.enqueue("q1", typA, 2) // the second stays in the store
		h.complete("q1", "h1")
		h.loaded(h.take(EffectLoad, "q1"))
		h.complete("q1", "h2")
		h.c.Step(Enqueued(h.now, []store.Transaction{cloneTx(h.tx(uids[1]))})) // late
		h.step()
		for _, l := range h.takeAll(EffectLoad, "q1") {
			h.loaded(l)
		}
		h.none(EffectDispatch, "")
	})
}

// TestCoreRecordsIncludedFee: whichever way the core learns that an attempt
// was included (a block's receipt, or a status check after the receipt was
// missed: the transaction landed before its dispatch reported its hash), the
// attempt records the nonce and fee of the transaction the chain holds (a
// remote worker may pay more than asked).
func TestCoreRecordsIncludedFee(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"receipt", "status check"} {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, testConfig(), acct("s1", 7))
			uid := h.enqueue("q1", typA, 1)[0]
			e := h.ok("q1", "h1")
			if e.Sender.Fee != 1000 || e.Sender.Nonce != 7 {
				t.Fatalf("dispatch fee %d nonce %d", e.Sender.Fee, e.Sender.Nonce)
			}
			switch path {
			case "receipt":
				h.newHead(Receipt{Hash: "h1", Success: true, Nonce: 7, Fee: 1007})
			case "status check":
				h.heads(3) // no receipt: the inclusion timeout asks the chain
				c := h.take(EffectCheck, "q1")
				h.c.Step(CheckedIncluded(h.now, c.Queue, c.UID, c.Attempt, status(c.Hash, chain.TxIncluded), 7, 1007))
				h.step()
			}
			h.wantState(uid, store.Done)
			if a := h.attempt(uid, 1); a.Fee != 1007 || a.Nonce != 7 || a.Outcome != store.OutcomeIncluded {
				t.Fatalf("attempt %+v: want fee 1007 nonce 7 included", a)
			}
		})
	}
}
