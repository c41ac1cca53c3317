package sequencer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/store"
)

// The Core tests drive the sans-I/O core directly: a harness keeps an
// in-memory "store" that applies each Ready's batch, collects the effects the
// core asks for, and lets a test answer them by calling the core's inputs.
// Time is virtual (t0 plus what the test advances) and nothing runs
// concurrently. Every step checks the store-level invariants (see check).

var t0 = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

const (
	typA = CreateClaimVotingAccount // MaxRetries 3, Delay 10s
	typB = SendClaimVote            // MaxRetries 1, Delay 5s
)

const (
	delayA = 10 * time.Second
	delayB = 5 * time.Second
)

// testConfig is the core configuration most tests use.
func testConfig() CoreConfig {
	return CoreConfig{
		Policies: map[string]Policy{
			typA: {MaxRetries: 3, Delay: delayA},
			typB: {MaxRetries: 1, Delay: delayB},
		},
		Fees:             FeePolicy{Initial: 1000, BumpPercent: 10, MinStep: 100, Max: 100_000},
		InclusionTimeout: 3,
	}
}

type harness struct {
	t      testing.TB
	cfg    CoreConfig
	c      *Core
	now    time.Time
	head   uint64
	minFee uint64
	seq    int64

	// The in-memory store.
	txs     map[string]*store.Transaction
	ordered []*store.Transaction // txs in Seq order
	queues  map[string]*store.Queue
	senders map[string]*store.Sender
	hist    map[string][]store.HistoryEntry
	// foreign are the store's senders this node does not use (Snapshot.Foreign).
	foreign []store.Sender

	// out holds the effects asked for and not yet taken by the test.
	out  []Effect
	last Ready

	// noSenderOK allows a bound queue without a sender (recovery after the
	// queue's sender left the configuration).
	noSenderOK bool
	// unordered skips the FIFO check, for intake notified out of Seq order.
	unordered bool
	// onTransition, when set, is called for every committed state change.
	onTransition func(uid string, from, to store.TxState)
}

// acct returns a sender record with a nonce.
func acct(id string, nonce uint64) store.Sender { return store.Sender{ID: id, NextNonce: nonce} }

// newHarness builds a core over an empty store holding the given senders.
func newHarness(t testing.TB, cfg CoreConfig, senders ...store.Sender) *harness {
	t.Helper()
	h := newStopped(t, cfg, senders...)
	h.start()
	return h
}

// newStopped builds the store without a core: fill it, then call start.
func newStopped(t testing.TB, cfg CoreConfig, senders ...store.Sender) *harness {
	h := &harness{t: t, cfg: cfg, now: t0, head: 100,
		txs: map[string]*store.Transaction{}, queues: map[string]*store.Queue{},
		senders: map[string]*store.Sender{}, hist: map[string][]store.HistoryEntry{}}
	for _, s := range senders {
		s := s
		h.senders[s.ID] = &s
	}
	return h
}

// start builds a core from the store, like Node.load does, and drops every
// effect of the previous core (they died with it).
func (h *harness) start() Ready {
	h.t.Helper()
	c, err := NewCore(h.cfg, h.now, h.snapshot())
	if err != nil {
		h.t.Fatalf("NewCore: %v", err)
	}
	h.c, h.out = c, nil
	return h.step()
}

// snapshot reads the store the way Node.load does.
func (h *harness) snapshot() Snapshot {
	var s Snapshot
	for _, id := range slices.Sorted(maps.Keys(h.senders)) {
		s.Senders = append(s.Senders, *h.senders[id])
	}
	s.Foreign = slices.Clone(h.foreign)
	names := map[string]bool{}
	for n := range h.queues {
		names[n] = true
	}
	for _, tx := range h.txs {
		names[tx.Queue] = true
	}
	for _, n := range slices.Sorted(maps.Keys(names)) {
		s.Queues = append(s.Queues, h.queue(n))
	}
	seen := map[string]bool{}
	for _, tx := range h.bySeq() {
		switch tx.State {
		case store.Revision, store.Retry:
			s.Active = append(s.Active, cloneTx(tx))
		case store.Waiting:
			if !seen[tx.Queue] {
				seen[tx.Queue] = true
				s.WaitingQueues = append(s.WaitingQueues, tx.Queue)
			}
		default: // DONE or FAILED: neither active nor waiting
		}
	}
	for _, q := range s.Queues {
		if tx := h.txs[q.TxUID]; q.TxUID != "" && tx != nil && tx.State == store.Waiting {
			s.Bound = append(s.Bound, cloneTx(tx))
		}
	}
	// As Node.load: a pipelined queue's first WAITING transactions that
	// have attempts, but the one its binding names.
	n := map[string]int{}
	for _, tx := range h.bySeq() {
		if tx.State != store.Waiting || InFlightFor(h.cfg.Pipelines, tx.Queue) < 2 || n[tx.Queue] >= MaxInFlight {
			continue
		}
		n[tx.Queue]++
		if len(tx.Attempts) > 0 && h.queue(tx.Queue).TxUID != tx.UID {
			s.Sent = append(s.Sent, cloneTx(tx))
		}
	}
	s.Head, s.MinFee = h.head, h.minFee
	return s
}

func cloneTx(tx *store.Transaction) store.Transaction {
	c := *tx
	c.Data = append(json.RawMessage(nil), tx.Data...)
	c.Result = append(json.RawMessage(nil), tx.Result...)
	c.Attempts = append([]store.Attempt(nil), tx.Attempts...)
	return c
}

// bySeq returns the stored transactions in Seq order (do not modify).
func (h *harness) bySeq() []*store.Transaction { return h.ordered }

// commit stores n WAITING transactions in a queue without telling the core.
func (h *harness) commit(queue, typ string, n int) []store.Transaction {
	var txs []store.Transaction
	for range n {
		h.seq++
		uid := fmt.Sprintf("tx%04d", h.seq)
		tx := &store.Transaction{UID: uid, Queue: queue, Type: typ, Data: json.RawMessage(fmt.Sprintf(`{"n":%d}`, h.seq)),
			State: store.Waiting, Seq: h.seq, CreatedAt: h.now, UpdatedAt: h.now}
		h.txs[uid] = tx
		h.ordered = append(h.ordered, tx)
		txs = append(txs, cloneTx(tx))
	}
	return txs
}

// enqueue stores n WAITING transactions and hands them to the core; it
// returns their uids.
func (h *harness) enqueue(queue, typ string, n int) []string {
	h.t.Helper()
	txs := h.commit(queue, typ, n)
	h.c.Step(Enqueued(h.now, txs))
	h.step()
	uids := make([]string, len(txs))
	for i := range txs {
		uids[i] = txs[i].UID
	}
	return uids
}

// step collects the core's Ready, commits its batch to the store, queues its
// effects and checks the invariants.
func (h *harness) step() Ready {
	h.t.Helper()
	r := h.c.Ready()
	h.apply(r.Batch)
	h.c.Advance()
	if err := h.c.CheckInvariants(); err != nil {
		h.t.Fatalf("core invariants: %v", err)
	}
	for _, e := range r.Effects {
		h.checkEffect(e)
	}
	h.out = append(h.out, r.Effects...)
	h.check()
	h.last = r
	return r
}

// apply commits a batch, checking that every state change comes with its
// history entries in the same batch and that DONE and FAILED are final.
func (h *harness) apply(b store.Batch) {
	h.t.Helper()
	before := map[string]store.TxState{}
	final := map[string]store.TxState{}
	var order []string
	for _, u := range b.Txs {
		tx := h.txs[u.UID]
		if tx == nil {
			h.t.Fatalf("batch updates unknown transaction %s", u.UID)
		}
		if !u.State.Valid() {
			h.t.Fatalf("tx %s: invalid state %q", u.UID, u.State)
		}
		if _, ok := before[u.UID]; !ok {
			before[u.UID] = tx.State
			order = append(order, u.UID)
		}
		tx.State, tx.Retries, tx.Error, tx.UpdatedAt = u.State, u.Retries, u.Error, u.At
		tx.Result = append(json.RawMessage(nil), u.Result...)
		if a := u.Attempt; a != nil {
			switch {
			case a.N >= 1 && a.N <= len(tx.Attempts):
				tx.Attempts[a.N-1] = *a
			case a.N == len(tx.Attempts)+1:
				tx.Attempts = append(tx.Attempts, *a)
			default:
				h.t.Fatalf("tx %s: attempt %d upserted with %d attempts stored", u.UID, a.N, len(tx.Attempts))
			}
		}
		final[u.UID] = u.State
	}
	hist := map[string][]store.HistoryEntry{}
	for _, e := range b.History {
		if _, ok := before[e.UID]; !ok {
			h.t.Fatalf("history entry %+v without a transaction update in its batch", e)
		}
		if !e.At.Equal(h.now) {
			h.t.Errorf("history entry %+v: At is not now (%v)", e, h.now)
		}
		hist[e.UID] = append(hist[e.UID], e)
	}
	for _, uid := range order {
		cur := before[uid]
		for _, e := range hist[uid] {
			if e.From != cur {
				h.t.Fatalf("tx %s: history %s->%s, but the state was %s", uid, e.From, e.To, cur)
			}
			if cur == store.Done || cur == store.Failed {
				h.t.Fatalf("tx %s left the final state %s for %s", uid, cur, e.To)
			}
			if h.onTransition != nil {
				h.onTransition(uid, e.From, e.To)
			}
			cur = e.To
		}
		if cur != final[uid] {
			h.t.Fatalf("tx %s: state %s->%s without a history entry (history leads to %s)", uid, before[uid], final[uid], cur)
		}
		h.hist[uid] = append(h.hist[uid], hist[uid]...)
	}
	for _, q := range b.Queues {
		q := q
		h.queues[q.Name] = &q
	}
	for _, s := range b.Senders {
		s := s
		if h.senders[s.ID] == nil {
			h.t.Fatalf("batch writes unknown sender %s", s.ID)
		}
		h.senders[s.ID] = &s
	}
}

// checkEffect checks that what an effect names was committed before it.
func (h *harness) checkEffect(e Effect) {
	h.t.Helper()
	if e.Kind == EffectLoad {
		return
	}
	tx := h.txs[e.UID]
	if tx == nil {
		h.t.Fatalf("effect %d for unknown transaction %s", e.Kind, e.UID)
	}
	if tx.Queue != e.Queue {
		h.t.Fatalf("effect %d for %s names queue %s, the transaction is in %s", e.Kind, e.UID, e.Queue, tx.Queue)
	}
	attempt := func() store.Attempt {
		if e.Attempt < 1 || e.Attempt > len(tx.Attempts) {
			h.t.Fatalf("effect %d for %s attempt %d: %d attempts committed", e.Kind, e.UID, e.Attempt, len(tx.Attempts))
		}
		return tx.Attempts[e.Attempt-1]
	}
	switch e.Kind {
	case EffectDispatch:
		a := attempt()
		if e.Attempt != len(tx.Attempts) {
			h.t.Fatalf("dispatch of %s attempt %d is not the last of %d", e.UID, e.Attempt, len(tx.Attempts))
		}
		if tx.State != store.Waiting && tx.State != store.Retry {
			h.t.Fatalf("dispatch of %s in state %s", e.UID, tx.State)
		}
		if a.Sender != e.Sender.AccountID || a.Nonce != e.Sender.Nonce || a.Fee != e.Sender.Fee {
			h.t.Fatalf("dispatch %+v does not match the committed attempt %+v", e.Sender, a)
		}
		if e.Sender.Queue != e.Queue || e.Sender.Retries != tx.Retries {
			h.t.Fatalf("dispatch sender %+v: queue %s, retries %d", e.Sender, e.Queue, tx.Retries)
		}
		if e.Txn.UID != tx.UID || e.Txn.Type != tx.Type || !bytes.Equal(e.Txn.Data, tx.Data) {
			h.t.Fatalf("dispatch txn %+v does not match %s", e.Txn, tx.UID)
		}
		q := h.queue(e.Queue)
		if q.Sender != e.Sender.AccountID || q.TxUID != e.UID && !h.follows(tx) {
			h.t.Fatalf("dispatch of %s by %s, queue binding %+v", e.UID, e.Sender.AccountID, q)
		}
		if s := h.senders[e.Sender.AccountID]; s == nil || s.Worker != e.Worker {
			h.t.Fatalf("dispatch worker %q for sender %s", e.Worker, e.Sender.AccountID)
		}
	case EffectSubmit:
		a := attempt()
		if a.Hash != e.Hash || a.Nonce != e.Tx.Nonce || e.Hash == "" {
			h.t.Fatalf("submit of %s hash %s nonce %d, committed attempt %+v", e.UID, e.Hash, e.Tx.Nonce, a)
		}
	case EffectCheck:
		if a := attempt(); e.Hash == "" {
			// A lookup: of an attempt without a hash, at its nonce.
			if a.Hash != "" || a.Sender != e.Sender.AccountID || a.Nonce != e.Sender.Nonce {
				h.t.Fatalf("lookup of %s sender %s nonce %d, committed attempt %+v", e.UID, e.Sender.AccountID, e.Sender.Nonce, a)
			}
		} else if a.Hash != e.Hash {
			h.t.Fatalf("check of %s hash %q, committed attempt %+v", e.UID, e.Hash, a)
		}
	case EffectHook:
		want := store.Failed
		if e.Success {
			want = store.Done
		}
		if tx.State != want {
			h.t.Fatalf("hook (success %v) for %s in state %s", e.Success, e.UID, tx.State)
		}
	default:
		h.t.Fatalf("unknown effect kind %d", e.Kind)
	}
}

// check verifies the store-level invariants.
func (h *harness) check() {
	h.t.Helper()
	active := map[string]string{}
	byQueue := map[string][]*store.Transaction{}
	for _, tx := range h.bySeq() {
		byQueue[tx.Queue] = append(byQueue[tx.Queue], tx)
		switch tx.State {
		case store.Revision, store.Retry:
			if h.follows(tx) {
				if tx.State != store.Revision {
					h.t.Fatalf("tx %s follows in its pipelined queue %s in state %s", tx.UID, tx.Queue, tx.State)
				}
				break
			}
			if other := active[tx.Queue]; other != "" {
				h.t.Fatalf("queue %s has two transactions in REVISION/RETRY: %s and %s", tx.Queue, other, tx.UID)
			}
			active[tx.Queue] = tx.UID
			if q := h.queue(tx.Queue); q.TxUID != tx.UID {
				h.t.Fatalf("tx %s is %s but queue %s binds %q", tx.UID, tx.State, tx.Queue, q.TxUID)
			}
		case store.Done:
			n, dup := 0, 0
			for _, a := range tx.Attempts {
				switch {
				case a.Outcome == store.OutcomeIncluded:
					n++
				case a.Outcome == store.OutcomeFailed && a.Error == chain.ReasonDuplicateIntent:
					dup++
				}
			}
			// One inclusion, or none and a duplicate of the intent an
			// earlier transaction applied.
			if n != 1 && (n != 0 || dup == 0) {
				h.t.Fatalf("tx %s is DONE with %d included attempts and %d duplicates: %+v", tx.UID, n, dup, tx.Attempts)
			}
		default: // WAITING or FAILED: checked below
		}
	}
	// FIFO: per queue, in Seq order, finished transactions come first, then
	// the bound one (if any), then WAITING ones.
	for name, txs := range byQueue {
		if h.unordered {
			break
		}
		open := false
		for i, tx := range txs {
			fin := tx.State == store.Done || tx.State == store.Failed
			if fin && open {
				h.t.Fatalf("queue %s: %s (seq %d) is %s after an unfinished transaction", name, tx.UID, tx.Seq, tx.State)
			}
			if !fin && !open {
				open = true
				if q := h.queue(name); q.TxUID != "" && q.TxUID != tx.UID {
					h.t.Fatalf("queue %s binds %s but its first unfinished transaction is %s", name, q.TxUID, txs[i].UID)
				}
			}
		}
	}
	bound := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(h.queues)) {
		q := h.queues[name]
		if q.State == store.Free {
			if (q.TxUID != "" && !h.noSenderOK) || q.Sender != "" {
				h.t.Fatalf("queue %s is FREE but binds tx %q sender %q", name, q.TxUID, q.Sender)
			}
			continue
		}
		tx := h.txs[q.TxUID]
		if tx == nil || tx.Queue != name {
			h.t.Fatalf("queue %s (%s) binds %q, not one of its transactions", name, q.State, q.TxUID)
		}
		var ok []store.BindingState
		switch tx.State {
		case store.Waiting:
			ok = []store.BindingState{store.Blocked}
		case store.Revision:
			ok = []store.BindingState{store.Inclusion, store.WaitingInclusion}
		case store.Retry:
			ok = []store.BindingState{store.RetryBinding, store.Delay, store.WaitingInclusion}
		default: // DONE or FAILED: any binding but none listed
		}
		if !slices.Contains(ok, q.State) {
			h.t.Fatalf("queue %s is %s while its transaction %s is %s (history %v, attempts %+v)", name, q.State, tx.UID, tx.State, h.hist[tx.UID], tx.Attempts)
		}
		if q.Sender == "" && !h.noSenderOK {
			h.t.Fatalf("queue %s is %s without a sender", name, q.State)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(h.queues)) {
		q := h.queues[name]
		if q.Sender == "" {
			continue
		}
		if other, ok := bound[q.Sender]; ok {
			h.t.Fatalf("sender %s is bound to queues %s and %s", q.Sender, other, name)
		}
		bound[q.Sender] = name
		if s := h.senders[q.Sender]; s == nil || s.Queue != name {
			h.t.Fatalf("queue %s binds sender %s whose record is %+v", name, q.Sender, s)
		}
	}
	for id, s := range h.senders {
		if s.Queue != "" && bound[id] != s.Queue {
			h.t.Fatalf("sender %s says queue %s, but that queue binds %q", id, s.Queue, h.queue(s.Queue).Sender)
		}
	}
}

// follows reports whether tx is a follower of its pipelined queue: behind
// the transaction the binding names, within the queue's in-flight limit,
// none of those before it ended.
func (h *harness) follows(tx *store.Transaction) bool {
	depth := InFlightFor(h.cfg.Pipelines, tx.Queue)
	q := h.queue(tx.Queue)
	if depth < 2 || q.TxUID == tx.UID {
		return false
	}
	if q.TxUID == "" {
		// After a restart, between its lead's end and the rescan that
		// takes them again, a pipelined queue is FREE with the
		// transactions it had sent still REVISION.
		return tx.State == store.Revision && len(tx.Attempts) > 0
	}
	n := 0
	for _, o := range h.bySeq() {
		if o.Queue != tx.Queue || o.State == store.Done || o.State == store.Failed {
			continue
		}
		if o.UID == tx.UID {
			return n > 0 && n < depth
		}
		if n == 0 && o.UID != q.TxUID {
			return false
		}
		n++
	}
	return false
}

// queue returns a queue's record (FREE if never written).
func (h *harness) queue(name string) store.Queue {
	if q := h.queues[name]; q != nil {
		return *q
	}
	return store.Queue{Name: name, State: store.Free}
}

func (h *harness) tx(uid string) *store.Transaction {
	h.t.Helper()
	tx := h.txs[uid]
	if tx == nil {
		h.t.Fatalf("no transaction %s", uid)
	}
	return tx
}

func (h *harness) attempt(uid string, n int) store.Attempt {
	h.t.Helper()
	tx := h.tx(uid)
	if n < 1 || n > len(tx.Attempts) {
		h.t.Fatalf("tx %s has %d attempts, want attempt %d", uid, len(tx.Attempts), n)
	}
	return tx.Attempts[n-1]
}

// --- effects ---

// effects returns the outstanding effects of a kind for a queue ("" for any).
func (h *harness) effects(kind EffectKind, queue string) []Effect {
	var out []Effect
	for _, e := range h.out {
		if e.Kind == kind && (queue == "" || e.Queue == queue) {
			out = append(out, e)
		}
	}
	return out
}

// take removes and returns the first outstanding effect of a kind for a queue.
func (h *harness) take(kind EffectKind, queue string) Effect {
	h.t.Helper()
	for i, e := range h.out {
		if e.Kind == kind && (queue == "" || e.Queue == queue) {
			h.out = append(h.out[:i:i], h.out[i+1:]...)
			return e
		}
	}
	h.t.Fatalf("no outstanding effect %s for queue %q; outstanding: %s", kindName(kind), queue, h.describeOut())
	return Effect{}
}

// takeAll removes and returns the outstanding effects of a kind for a queue.
func (h *harness) takeAll(kind EffectKind, queue string) []Effect {
	var out, rest []Effect
	for _, e := range h.out {
		if e.Kind == kind && (queue == "" || e.Queue == queue) {
			out = append(out, e)
		} else {
			rest = append(rest, e)
		}
	}
	h.out = rest
	return out
}

// none fails if an effect of a kind is outstanding for a queue.
func (h *harness) none(kind EffectKind, queue string) {
	h.t.Helper()
	if es := h.effects(kind, queue); len(es) > 0 {
		h.t.Fatalf("unexpected %s effects for queue %q: %+v", kindName(kind), queue, es)
	}
}

func (h *harness) describeOut() string {
	var b bytes.Buffer
	for _, e := range h.out {
		fmt.Fprintf(&b, "[%s %s %s #%d] ", kindName(e.Kind), e.Queue, e.UID, e.Attempt)
	}
	return b.String()
}

func kindName(k EffectKind) string {
	switch k {
	case EffectDispatch:
		return "Dispatch"
	case EffectSubmit:
		return "Submit"
	case EffectCheck:
		return "Check"
	case EffectHook:
		return "Hook"
	case EffectLoad:
		return "Load"
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// --- inputs ---

// dispatched reports a dispatch: err nil means sent with hash.
func (h *harness) dispatched(e Effect, hash string, err error) Ready {
	h.t.Helper()
	h.c.Step(Dispatched(h.now, e.Queue, DispatchResult{UID: e.UID, Attempt: e.Attempt, Nonce: e.Sender.Nonce, Hash: hash, Err: err, Code: chain.CodeOf(err)}))
	return h.step()
}

// ok takes the queue's dispatch and reports it sent with hash.
func (h *harness) ok(queue, hash string) Effect {
	h.t.Helper()
	e := h.take(EffectDispatch, queue)
	h.dispatched(e, hash, nil)
	return e
}

// signed reports a Builder dispatcher's signed transaction.
func (h *harness) signed(e Effect, nonce uint64, hash string) Ready {
	h.t.Helper()
	tx := chain.Tx{From: chain.Address(e.Sender.AccountID), Nonce: nonce, Fee: e.Sender.Fee, Contract: "c", Method: "m"}
	h.c.Step(Signed(h.now, e.Queue, e.UID, e.Attempt, tx, hash))
	return h.step()
}

func (h *harness) checked(e Effect, st chain.TxStatus, err error) Ready {
	h.t.Helper()
	h.c.Step(Checked(h.now, e.Queue, e.UID, e.Attempt, st, err))
	return h.step()
}

// answer takes the queue's next check and answers it with a state.
func (h *harness) answer(queue string, st chain.TxState) Effect {
	h.t.Helper()
	e := h.take(EffectCheck, queue)
	h.checked(e, status(e.Hash, st), nil)
	return e
}

func status(hash string, st chain.TxState) chain.TxStatus {
	s := chain.TxStatus{Hash: chain.Hash(hash), State: st}
	if st == chain.TxIncluded {
		s.Success, s.Height = true, 1
	}
	return s
}

func includedFailed(hash, reason string) chain.TxStatus {
	return chain.TxStatus{Hash: chain.Hash(hash), State: chain.TxIncluded, Height: 1, Reason: reason}
}

// newHead moves the chain one block on, with receipts; like the driver, only
// the receipts of watched hashes reach the core.
func (h *harness) newHead(receipts ...Receipt) Ready {
	h.t.Helper()
	return h.newHeadAt(h.head+1, receipts...)
}

func (h *harness) newHeadAt(height uint64, receipts ...Receipt) Ready {
	h.t.Helper()
	h.head = height
	var mine []Receipt
	for _, r := range receipts {
		if r.Height == 0 {
			r.Height = height
		}
		if h.c.Watching(r.Hash) {
			mine = append(mine, r)
		}
	}
	h.c.Step(NewHead(h.now, height, h.minFee, mine))
	return h.step()
}

// heads produces n empty blocks.
func (h *harness) heads(n int) {
	h.t.Helper()
	for range n {
		h.newHead()
	}
}

func okReceipt(hash string) Receipt { return Receipt{Hash: hash, Success: true} }
func failReceipt(hash, reason string) Receipt {
	return Receipt{Hash: hash, Success: false, Reason: reason}
}

// tick advances the clock by d.
func (h *harness) tick(d time.Duration) Ready {
	h.t.Helper()
	h.now = h.now.Add(d)
	h.c.Step(Tick(h.now))
	return h.step()
}

// tickTo advances the clock to at.
func (h *harness) tickTo(at time.Time) Ready {
	h.t.Helper()
	return h.tick(at.Sub(h.now))
}

func (h *harness) hookDone(e Effect, r TxnResult, err error) Ready {
	h.t.Helper()
	h.c.Step(HookDone(h.now, e.UID, r, err))
	return h.step()
}

// loaded answers a load from the store, like the driver (limit+1 to learn
// whether there is more).
func (h *harness) loaded(e Effect) Ready {
	h.t.Helper()
	var txs []store.Transaction
	for _, tx := range h.bySeq() {
		if tx.Queue == e.Queue && tx.State == store.Waiting && tx.Seq > e.After && len(txs) < e.Limit+1 {
			txs = append(txs, cloneTx(tx)) // with attempts, as store.Waiting
		}
	}
	more := len(txs) > e.Limit
	if more {
		txs = txs[:e.Limit]
	}
	h.c.Step(Loaded(h.now, e.Queue, txs, more))
	return h.step()
}

// idle fails unless the last step changed nothing and asked for nothing.
func (h *harness) idle(r Ready) {
	h.t.Helper()
	if !r.Batch.Empty() || len(r.Effects) > 0 {
		h.t.Fatalf("expected no change, got batch %+v effects %+v", r.Batch, r.Effects)
	}
}

// history returns a transaction's transitions as "FROM>TO" strings.
func (h *harness) history(uid string) []string {
	var out []string
	for _, e := range h.hist[uid] {
		out = append(out, string(e.From)+">"+string(e.To))
	}
	return out
}

// lastHistory returns a transaction's newest history entry.
func (h *harness) lastHistory(uid string) store.HistoryEntry {
	h.t.Helper()
	es := h.hist[uid]
	if len(es) == 0 {
		h.t.Fatalf("tx %s has no history", uid)
	}
	return es[len(es)-1]
}

func (h *harness) wantState(uid string, st store.TxState) {
	h.t.Helper()
	if got := h.tx(uid).State; got != st {
		h.t.Fatalf("tx %s is %s, want %s (history %v)", uid, got, st, h.history(uid))
	}
}

func (h *harness) wantBinding(queue string, st store.BindingState) store.Queue {
	h.t.Helper()
	q := h.queue(queue)
	if q.State != st {
		h.t.Fatalf("queue %s is %s, want %s (%+v)", queue, q.State, st, q)
	}
	return q
}

// wantFree checks that a queue is FREE and a sender is not bound.
func (h *harness) wantFree(queue, senderID string) {
	h.t.Helper()
	q := h.wantBinding(queue, store.Free)
	if q.Sender != "" || q.TxUID != "" {
		h.t.Fatalf("queue %s is FREE with %+v", queue, q)
	}
	if s := h.senders[senderID]; s.Queue != "" {
		h.t.Fatalf("sender %s still bound to %s", senderID, s.Queue)
	}
}
