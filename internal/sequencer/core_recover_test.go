package sequencer

import (
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/store"
)

// Recovery: NewCore from a Snapshot asks the chain about every attempt that
// may have landed before anything else happens to an active queue.

func att(n int, snd string, nonce, fee uint64, hash string, outcome store.Outcome) store.Attempt {
	return store.Attempt{N: n, Sender: snd, Nonce: nonce, Fee: fee, Hash: hash, Outcome: outcome, At: t0.Add(-time.Minute)}
}

// put sets a stored transaction's state, retries and attempts.
func (h *harness) put(uid string, st store.TxState, retries int, attempts ...store.Attempt) {
	tx := h.tx(uid)
	tx.State, tx.Retries, tx.Attempts = st, retries, attempts
}

// bind stores a queue's binding to a sender for a transaction.
func (h *harness) bind(queue, snd, uid string, st store.BindingState) *store.Queue {
	q := &store.Queue{Name: queue, State: st, Sender: snd, TxUID: uid}
	h.queues[queue] = q
	if s := h.senders[snd]; s != nil {
		s.Queue = queue
	}
	return q
}

// TestCoreRecoverRevision: a REVISION transaction is checked, then resumes
// according to what the chain says.
func TestCoreRecoverRevision(t *testing.T) {
	for _, tc := range []struct {
		name    string
		binding store.BindingState
		st      chain.TxStatus
		run     func(t *testing.T, h *harness, uid string)
	}{
		{"pending", store.WaitingInclusion, status("h1", chain.TxPending), func(t *testing.T, h *harness, uid string) {
			h.wantState(uid, store.Revision)
			if q := h.wantBinding("q1", store.WaitingInclusion); q.Deadline != h.head+3 {
				t.Fatalf("deadline %d, want %d", q.Deadline, h.head+3)
			}
			if len(h.hist[uid]) != 0 {
				t.Fatalf("history %v", h.history(uid))
			}
			h.newHead(okReceipt("h1"))
			h.wantState(uid, store.Done)
		}},
		{"pending from INCLUSION", store.Inclusion, status("h1", chain.TxPending), func(t *testing.T, h *harness, uid string) {
			h.wantState(uid, store.Revision)
			h.wantBinding("q1", store.WaitingInclusion)
			h.heads(3)
			h.answer("q1", chain.TxPending) // timeout
			h.wantState(uid, store.Retry)
		}},
		{"included", store.WaitingInclusion, status("h1", chain.TxIncluded), func(t *testing.T, h *harness, uid string) {
			h.wantState(uid, store.Done)
			if got := strings.Join(h.history(uid), " "); got != "REVISION>DONE" {
				t.Fatalf("history %s", got)
			}
			h.wantFree("q1", "s1")
			if hook := h.take(EffectHook, "q1"); !hook.Success {
				t.Fatalf("hook %+v", hook)
			}
			if n := h.senders["s1"].NextNonce; n != 8 {
				t.Fatalf("NextNonce %d", n)
			}
		}},
		{"included failed", store.WaitingInclusion, includedFailed("h1", "reverted"), func(t *testing.T, h *harness, uid string) {
			h.wantState(uid, store.Retry)
			h.tick(delayA)
			if e := h.take(EffectDispatch, "q1"); e.Sender.Nonce != 8 || e.Sender.Fee != 1100 {
				t.Fatalf("dispatch %+v", e.Sender)
			}
		}},
		{"unknown", store.WaitingInclusion, status("h1", chain.TxUnknown), func(t *testing.T, h *harness, uid string) {
			h.wantState(uid, store.Retry)
			if he := h.lastHistory(uid); !strings.Contains(he.Note, "not on chain") {
				t.Fatalf("history %+v", he)
			}
			h.tick(delayA)
			h.answer("q1", chain.TxUnknown)
			if e := h.take(EffectDispatch, "q1"); e.Sender.Nonce != 7 || e.Attempt != 2 {
				t.Fatalf("dispatch %+v", e)
			}
		}},
		{"dropped", store.WaitingInclusion, status("h1", chain.TxDropped), func(t *testing.T, h *harness, uid string) {
			h.wantState(uid, store.Retry)
			h.tick(delayA)
			h.none(EffectCheck, "q1")
			if e := h.take(EffectDispatch, "q1"); e.Sender.Nonce != 7 {
				t.Fatalf("dispatch %+v", e)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newStopped(t, testConfig(), acct("s1", 7), acct("s2", 0))
			uid := h.commit("q1", typA, 1)[0].UID
			next := h.commit("q1", typA, 1)[0].UID
			h.put(uid, store.Revision, 0, att(1, "s1", 7, 1000, "h1", store.OutcomeSent))
			h.bind("q1", "s1", uid, tc.binding).Deadline = 50
			h.start()
			h.none(EffectDispatch, "")
			c := h.take(EffectCheck, "q1")
			if c.Hash != "h1" || c.UID != uid || c.Attempt != 1 {
				t.Fatalf("check %+v", c)
			}
			if !h.c.Watching("h1") {
				t.Fatal("recovered attempt not watched")
			}
			h.checked(c, tc.st, nil)
			tc.run(t, h, uid)
			h.wantState(next, store.Waiting)
			if h.tx(uid).State == store.Done {
				h.loaded(h.take(EffectLoad, "q1"))
				if e := h.take(EffectDispatch, "q1"); e.UID != next {
					t.Fatalf("next dispatch %+v", e)
				}
			}
		})
	}
}

// TestCoreRecoverBoundWaiting: a WAITING transaction named by its queue's
// binding was being dispatched when the node stopped.
func TestCoreRecoverBoundWaiting(t *testing.T) {
	for _, tc := range []struct {
		name  string
		hash  string
		st    chain.TxState
		state store.TxState
	}{
		{"no hash", "", "", store.Waiting},
		{"unknown hash", "h1", chain.TxUnknown, store.Waiting},
		{"dropped hash", "h1", chain.TxDropped, store.Waiting},
		{"pending", "h1", chain.TxPending, store.Revision},
		{"included", "h1", chain.TxIncluded, store.Done},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newStopped(t, testConfig(), acct("s1", 7))
			uid := h.commit("q1", typA, 1)[0].UID
			h.put(uid, store.Waiting, 0, att(1, "s1", 7, 1000, tc.hash, ""))
			h.bind("q1", "s1", uid, store.Blocked)
			h.start()
			if tc.hash != "" {
				h.none(EffectDispatch, "")
				h.answer("q1", tc.st)
			}
			h.wantState(uid, tc.state)
			switch tc.state {
			case store.Waiting:
				e := h.take(EffectDispatch, "q1")
				if e.Attempt != 2 || e.Sender.Nonce != 7 || e.Sender.Fee != 1100 || e.Sender.AccountID != "s1" {
					t.Fatalf("re-dispatch %+v, want attempt 2 with the same nonce", e)
				}
				h.wantBinding("q1", store.Blocked)
			case store.Revision:
				if he := h.lastHistory(uid); he.From != store.Waiting || !strings.Contains(he.Note, "recovered") {
					t.Fatalf("history %+v", he)
				}
				h.wantBinding("q1", store.WaitingInclusion)
				h.none(EffectDispatch, "")
			case store.Done:
				h.wantFree("q1", "s1")
				h.none(EffectDispatch, "")
			default: // RETRY and FAILED are not recovered states here
			}
		})
	}
}

// TestCoreRecoverRetry: a RETRY transaction keeps its DELAY.
func TestCoreRecoverRetry(t *testing.T) {
	t.Run("delay kept", func(t *testing.T) {
		h := newStopped(t, testConfig(), acct("s1", 7))
		uid := h.commit("q1", typA, 1)[0].UID
		h.put(uid, store.Retry, 1, att(1, "s1", 7, 1000, "", store.OutcomeError))
		until := t0.Add(7 * time.Second)
		h.bind("q1", "s1", uid, store.Delay).DelayUntil = until
		if r := h.start(); len(r.Effects) != 0 {
			t.Fatalf("effects at start: %+v", r.Effects)
		}
		if q := h.wantBinding("q1", store.Delay); !q.DelayUntil.Equal(until) {
			t.Fatalf("DelayUntil %v, want %v", q.DelayUntil, until)
		}
		if dl := h.c.NextDeadline(); !dl.Equal(until) {
			t.Fatalf("NextDeadline %v", dl)
		}
		h.idle(h.tickTo(until.Add(-time.Nanosecond)))
		h.tickTo(until)
		if e := h.take(EffectDispatch, "q1"); e.Sender.Nonce != 7 || e.Sender.Fee != 1100 || e.Attempt != 2 || e.Sender.Retries != 1 {
			t.Fatalf("dispatch %+v", e)
		}
	})
	t.Run("delay kept with a pending attempt", func(t *testing.T) {
		h := newStopped(t, testConfig(), acct("s1", 7))
		uid := h.commit("q1", typA, 1)[0].UID
		h.put(uid, store.Retry, 1, att(1, "s1", 7, 1000, "h1", store.OutcomeTimeout))
		until := t0.Add(7 * time.Second)
		h.bind("q1", "s1", uid, store.Delay).DelayUntil = until
		h.start()
		h.answer("q1", chain.TxPending)
		h.wantState(uid, store.Retry)
		if q := h.wantBinding("q1", store.Delay); !q.DelayUntil.Equal(until) {
			t.Fatalf("DelayUntil %v", q.DelayUntil)
		}
		h.none(EffectDispatch, "")
		h.tickTo(until)
		h.answer("q1", chain.TxPending)
		if e := h.take(EffectDispatch, "q1"); e.Sender.Nonce != 7 || e.Sender.Fee != 1100 {
			t.Fatalf("replacement %+v", e.Sender)
		}
	})
	t.Run("delay ended while stopped", func(t *testing.T) {
		h := newStopped(t, testConfig(), acct("s1", 7))
		uid := h.commit("q1", typA, 1)[0].UID
		h.put(uid, store.Retry, 1, att(1, "s1", 7, 1000, "", store.OutcomeError))
		h.bind("q1", "s1", uid, store.Delay).DelayUntil = t0.Add(-time.Second)
		h.start()
		h.take(EffectDispatch, "q1")
	})
	t.Run("delay not started", func(t *testing.T) {
		h := newStopped(t, testConfig(), acct("s1", 7))
		uid := h.commit("q1", typA, 1)[0].UID
		h.put(uid, store.Retry, 1, att(1, "s1", 7, 1000, "", store.OutcomeError))
		h.bind("q1", "s1", uid, store.RetryBinding)
		h.start()
		if q := h.wantBinding("q1", store.Delay); !q.DelayUntil.Equal(t0.Add(delayA)) {
			t.Fatalf("DelayUntil %v", q.DelayUntil)
		}
	})
	t.Run("settling", func(t *testing.T) {
		for _, final := range []chain.TxState{chain.TxPending, chain.TxDropped, chain.TxIncluded} {
			t.Run(string(final), func(t *testing.T) {
				h := newStopped(t, testConfig(), acct("s1", 7))
				uid := h.commit("q1", typB, 1)[0].UID
				h.put(uid, store.Retry, 2, att(1, "s1", 7, 1000, "h1", store.OutcomeSent), att(2, "s1", 7, 1100, "", store.OutcomeError))
				h.bind("q1", "s1", uid, store.WaitingInclusion).Deadline = 90
				h.start()
				h.answer("q1", chain.TxPending) // recovery check
				h.answer("q1", final)           // check before FAILED
				switch final {
				case chain.TxPending:
					h.wantState(uid, store.Retry)
					h.wantBinding("q1", store.WaitingInclusion)
					h.none(EffectHook, "")
				case chain.TxDropped:
					h.wantState(uid, store.Failed)
					h.wantFree("q1", "s1")
				case chain.TxIncluded:
					h.wantState(uid, store.Done)
				default: // TxUnknown: not a final status of this test
				}
				h.none(EffectDispatch, "")
			})
		}
	})
}

// TestCoreRestartMidFlight stops the core at each kind of outstanding effect
// and restarts it from the store: effects in flight are lost, and the new
// core settles every attempt before going on.
func TestCoreRestartMidFlight(t *testing.T) {
	t.Run("dispatch outstanding", func(t *testing.T) {
		h := newHarness(t, testConfig(), acct("s1", 7))
		uid := h.enqueue("q1", typA, 2)[0]
		h.take(EffectDispatch, "q1")
		h.start()
		e := h.take(EffectDispatch, "q1")
		if e.UID != uid || e.Attempt != 2 || e.Sender.Nonce != 7 {
			t.Fatalf("dispatch after restart %+v", e)
		}
		h.none(EffectLoad, "q1") // the other WAITING is loaded once the queue is free
		h.dispatched(e, "h2", nil)
		h.newHead(okReceipt("h2"))
		h.loaded(h.take(EffectLoad, "q1"))
		if e := h.take(EffectDispatch, "q1"); e.Sender.Nonce != 8 || e.Attempt != 1 {
			t.Fatalf("next dispatch %+v", e)
		}
	})
	t.Run("signed, submit outstanding", func(t *testing.T) {
		h := newHarness(t, testConfig(), acct("s1", 7))
		uid := h.enqueue("q1", typA, 1)[0]
		h.signed(h.take(EffectDispatch, "q1"), 7, "hb1")
		h.start() // the submit may or may not have reached the chain
		h.answer("q1", chain.TxPending)
		h.wantState(uid, store.Revision)
		h.newHead(okReceipt("hb1"))
		h.wantState(uid, store.Done)
	})
	t.Run("waiting inclusion", func(t *testing.T) {
		h := newHarness(t, testConfig(), acct("s1", 7))
		uid := h.enqueue("q1", typA, 1)[0]
		h.ok("q1", "h1")
		h.start()
		h.answer("q1", chain.TxIncluded)
		h.wantState(uid, store.Done)
	})
	t.Run("retry checks outstanding", func(t *testing.T) {
		h := newHarness(t, testConfig(), acct("s1", 7))
		uid := h.enqueue("q1", typA, 1)[0]
		h.ok("q1", "h1")
		h.heads(3)
		h.answer("q1", chain.TxPending)
		h.tick(delayA)
		h.take(EffectCheck, "q1")
		h.start()
		h.answer("q1", chain.TxPending) // recovery
		h.answer("q1", chain.TxPending) // before dispatch: the delay is over
		if e := h.take(EffectDispatch, "q1"); e.Sender.Nonce != 7 || e.Sender.Fee != 1100 {
			t.Fatalf("replacement %+v", e.Sender)
		}
		h.wantState(uid, store.Retry)
	})
	t.Run("load outstanding", func(t *testing.T) {
		cfg := testConfig()
		cfg.WaitingWindow = 1
		h := newHarness(t, cfg, acct("s1", 7))
		uids := h.enqueue("q1", typA, 3)
		h.complete("q1", "h1")
		h.take(EffectLoad, "q1")
		h.start()
		h.loaded(h.take(EffectLoad, "q1"))
		if e := h.complete("q1", "h2"); e.UID != uids[1] {
			t.Fatalf("dispatched %s", e.UID)
		}
		h.loaded(h.take(EffectLoad, "q1"))
		if e := h.complete("q1", "h3"); e.UID != uids[2] {
			t.Fatalf("dispatched %s", e.UID)
		}
	})
}

// TestCoreRecoverWithoutSender: a queue whose sender left the configuration
// settles its transaction without one, then waits in line for a sender; a
// transaction that ends while waiting gives up its place.
func TestCoreRecoverWithoutSender(t *testing.T) {
	h := newStopped(t, testConfig(), acct("s1", 0))
	h.noSenderOK = true
	uid := h.commit("q1", typA, 1)[0].UID
	h.put(uid, store.Revision, 0, att(1, "gone", 3, 1000, "h1", store.OutcomeSent))
	h.bind("q1", "gone", uid, store.WaitingInclusion)
	other := h.enqueueStopped("q2", typA, 1)
	h.start()
	h.loaded(h.take(EffectLoad, "q2"))
	e2 := h.take(EffectDispatch, "q2")
	h.answer("q1", chain.TxDropped)
	h.wantState(uid, store.Retry)
	h.tick(delayA)
	h.none(EffectDispatch, "q1") // no sender: it waits in line
	if dl := h.c.NextDeadline(); !dl.IsZero() && !dl.After(h.now) {
		t.Fatalf("NextDeadline %v is due while q1 waits for a sender", dl)
	}
	h.idle(h.tick(time.Second))
	h.dispatched(e2, "h2", nil)
	h.newHead(okReceipt("h2"))
	h.wantState(other, store.Done)
	e := h.take(EffectDispatch, "q1")
	if e.Sender.AccountID != "s1" || e.Sender.Nonce != 1 {
		t.Fatalf("dispatch %+v", e)
	}
	h.dispatched(e, "h3", nil)
	h.newHead(okReceipt("h3"))
	h.wantState(uid, store.Done)
	h.wantFree("q1", "s1")
}

// TestCoreRecoverWithoutSenderLands: the sender-less queue's old attempt lands
// while it waits in line: its place in line must not capture a sender.
func TestCoreRecoverWithoutSenderLands(t *testing.T) {
	h := newStopped(t, testConfig(), acct("s1", 0))
	h.noSenderOK = true
	uid := h.commit("q1", typA, 1)[0].UID
	h.put(uid, store.Retry, 1, att(1, "gone", 3, 1000, "h1", store.OutcomeTimeout))
	h.bind("q1", "gone", uid, store.Delay).DelayUntil = t0
	other := h.enqueueStopped("q2", typA, 2)
	h.start()
	h.loaded(h.take(EffectLoad, "q2"))
	e2 := h.take(EffectDispatch, "q2")
	h.answer("q1", chain.TxPending) // recovery check
	h.tick(delayA)                  // the binding was reset: a new delay
	h.answer("q1", chain.TxPending) // check before dispatch
	h.none(EffectDispatch, "q1")    // waits for a sender
	h.newHead(okReceipt("h1"))
	h.wantState(uid, store.Done)
	h.dispatched(e2, "h2", nil)
	h.newHead(okReceipt("h2"))
	h.wantState(other, store.Done)
	h.take(EffectDispatch, "q2")
	if q := h.queue("q1"); q.Sender != "" {
		t.Fatalf("q1 captured sender %s with nothing to do", q.Sender)
	}
	if h.c.BusySenders() != 1 {
		t.Fatalf("%d busy senders", h.c.BusySenders())
	}
}

// enqueueStopped commits WAITING transactions before the core starts and
// returns the first uid.
func (h *harness) enqueueStopped(queue, typ string, n int) string {
	return h.commit(queue, typ, n)[0].UID
}

// TestCoreRecoverStaleBinding: a binding that names a transaction the store
// no longer has active (an inconsistent store) is freed, and so is its sender.
func TestCoreRecoverStaleBinding(t *testing.T) {
	h := newStopped(t, testConfig(), acct("s1", 4))
	old := h.commit("q1", typA, 1)[0].UID
	h.put(old, store.Done, 0, att(1, "s1", 3, 1000, "h0", store.OutcomeIncluded))
	h.bind("q1", "s1", old, store.WaitingInclusion)
	next := h.enqueueStopped("q2", typA, 1)
	h.start()
	h.wantFree("q1", "s1")
	h.loaded(h.take(EffectLoad, "q2"))
	if e := h.take(EffectDispatch, "q2"); e.UID != next || e.Sender.AccountID != "s1" {
		t.Fatalf("dispatch %+v", e)
	}
}

// TestCoreRecoverPendingAttemptOfGoneSender: a recovered transaction whose
// only attempt (by a sender that left the configuration) is still pending
// gets a new sender, but must not dispatch with that sender's nonce — both
// could land. It waits for the old attempt, which then lands.
func TestCoreRecoverPendingAttemptOfGoneSender(t *testing.T) {
	h := newStopped(t, testConfig(), acct("s1", 0))
	h.noSenderOK = true
	uid := h.commit("q1", typA, 1)[0].UID
	h.put(uid, store.Retry, 1, att(1, "gone", 3, 1000, "h1", store.OutcomeTimeout))
	h.bind("q1", "gone", uid, store.Delay).DelayUntil = t0
	other := h.enqueueStopped("q2", typA, 1)
	h.start()
	h.loaded(h.take(EffectLoad, "q2"))
	e2 := h.take(EffectDispatch, "q2")
	h.answer("q1", chain.TxPending) // recovery check
	h.tick(delayA)
	h.answer("q1", chain.TxPending) // check before dispatch: no sender yet
	h.dispatched(e2, "h2", nil)
	h.newHead(okReceipt("h2")) // q2 done: s1 goes to q1
	h.wantState(other, store.Done)
	h.answer("q1", chain.TxPending) // check before dispatch, now with s1
	h.none(EffectDispatch, "q1")
	h.wantBinding("q1", store.WaitingInclusion)
	h.newHead(okReceipt("h1"))
	h.wantState(uid, store.Done)
	h.wantFree("q1", "s1")
	if n := len(h.tx(uid).Attempts); n != 1 {
		t.Fatalf("%d attempts, want 1", n)
	}
}

// TestCoreRecoverUnsignedAttemptOfForeignSender: a queue taken over from
// another node (or whose sender left the configuration) holds an attempt
// without a hash. If the store says its sender signs here-style (a
// keystore sender: its hash is committed before any send), the attempt was
// never sent: the transaction is dispatched again on a sender of this
// node. If its sender is a remote worker's, or unknown, it may have been
// sent unreported: the node looks up what took its nonce, and with no
// block showing it, FAILED as ambiguous.
func TestCoreRecoverUnsignedAttemptOfForeignSender(t *testing.T) {
	for _, tc := range []struct {
		name    string
		foreign []store.Sender
		want    store.TxState
	}{
		{"keystore sender of another node", []store.Sender{{ID: "other"}}, store.Waiting},
		{"worker sender of another node", []store.Sender{{ID: "other", Worker: "w1"}}, store.Failed},
		{"sender unknown to the store", nil, store.Failed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newStopped(t, testConfig(), acct("s1", 4))
			h.noSenderOK = true
			h.foreign = tc.foreign
			uid := h.commit("q1", typA, 1)[0].UID
			h.put(uid, store.Waiting, 0, att(1, "other", 9, 1000, "", ""))
			h.bind("q1", "other", uid, store.Blocked)
			h.start()
			if tc.want == store.Failed {
				e := h.take(EffectCheck, "q1")
				if e.Hash != "" || e.Sender.AccountID != "other" || e.Sender.Nonce != 9 {
					t.Fatalf("check %+v, want a lookup of other's nonce 9", e)
				}
				h.checked(e, status("", chain.TxUnknown), nil)
			}
			h.wantState(uid, tc.want)
			if tc.want == store.Failed {
				if tx := h.tx(uid); !strings.HasPrefix(tx.Error, "ambiguous") {
					t.Fatalf("error %q, want ambiguous", tx.Error)
				}
				return
			}
			e := h.take(EffectDispatch, "q1")
			if e.Attempt != 2 || e.Sender.AccountID != "s1" || e.Sender.Nonce != 4 {
				t.Fatalf("dispatch %+v, want attempt 2 on s1 at nonce 4", e)
			}
		})
	}
}
