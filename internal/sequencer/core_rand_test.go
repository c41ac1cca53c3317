package sequencer

import (
	"errors"
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit"
)

// simChain is a tiny ledger for the randomized test: per-account nonces, a
// mempool keyed by (account, nonce) with the 110% replacement rule, blocks
// that include the next nonce of each account, drops and losses. It knows
// which transaction each hash belongs to, so it can tell whether an intent
// was applied twice or landed after it was declared FAILED.
type simChain struct {
	t      testing.TB
	maxFee uint64
	rng    *rand.Rand
	height uint64
	nonce  map[string]uint64
	// gap is how far above an account's nonce a transaction may be sent
	// (0: only at it; pipelined runs allow more, as devchain does).
	gap uint64
	// describe, when set, describes a transaction for a failure.
	describe func(uid string) string
	pool     map[string]map[uint64]*simTx
	status   map[string]chain.TxStatus // a hash not here is unknown
	owner    map[string]string         // hash -> uid
	landed   map[string]int            // uid -> successful inclusions
	failed   map[string]bool           // uids declared FAILED
}

type simTx struct {
	hash, uid string
	fee       uint64
}

// debug describes a transaction for a failure (set by the run).
func (c *simChain) debug(uid string) string {
	if c.describe == nil {
		return ""
	}
	return c.describe(uid)
}

func newSimChain(t testing.TB, rng *rand.Rand) *simChain {
	return &simChain{t: t, rng: rng, nonce: map[string]uint64{}, pool: map[string]map[uint64]*simTx{},
		status: map[string]chain.TxStatus{}, owner: map[string]string{}, landed: map[string]int{}, failed: map[string]bool{}}
}

func (c *simChain) send(from string, nonce, fee uint64, hash, uid string) error {
	switch {
	case nonce < c.nonce[from]:
		return fmt.Errorf("send: %w", chain.ErrNonceTooLow)
	case nonce > c.nonce[from]+c.gap:
		return fmt.Errorf("send: %w", chain.ErrNonceTooHigh)
	}
	if c.pool[from] == nil {
		c.pool[from] = map[uint64]*simTx{}
	}
	if old := c.pool[from][nonce]; old != nil {
		if old.hash == hash {
			return nil
		}
		if fee*10 < old.fee*11 {
			if fee < c.maxFee {
				c.t.Fatalf("%s offered fee %d to replace a pending fee %d (%s at nonce %d): below the chain's 110%% rule%s%s", uid, fee, old.fee, old.uid, nonce, c.debug(uid), c.debug(old.uid))
			}
			return fmt.Errorf("send: %w", chain.ErrReplacementUnderpriced)
		}
		c.status[old.hash] = chain.TxStatus{Hash: chain.Hash(old.hash), State: chain.TxDropped, Reason: "replaced"}
	}
	c.pool[from][nonce] = &simTx{hash: hash, uid: uid, fee: fee}
	c.status[hash] = chain.TxStatus{Hash: chain.Hash(hash), State: chain.TxPending}
	c.owner[hash] = uid
	return nil
}

// block includes, for each account, its next nonce's transaction with
// probability pInclude (failing with pFail), and drops or loses pending ones.
func (c *simChain) block(pInclude, pFail, pDrop float64) []Receipt {
	c.height++
	var out []Receipt
	for _, from := range slices.Sorted(maps.Keys(c.pool)) {
		txs := c.pool[from]
		if tx := txs[c.nonce[from]]; tx != nil && c.rng.Float64() < pInclude {
			delete(txs, c.nonce[from])
			c.nonce[from]++
			ok := c.rng.Float64() >= pFail
			st := chain.TxStatus{Hash: chain.Hash(tx.hash), State: chain.TxIncluded, Height: c.height, Success: ok}
			if !ok {
				st.Reason = "reverted"
			}
			c.status[tx.hash] = st
			if ok {
				c.landed[tx.uid]++
				if c.landed[tx.uid] > 1 {
					c.t.Fatalf("height %d: transaction %s applied twice (hash %s)%s", c.height, tx.uid, tx.hash, c.debug(tx.uid))
				}
				if c.failed[tx.uid] {
					c.t.Fatalf("height %d: transaction %s landed after it was declared FAILED", c.height, tx.uid)
				}
			}
			out = append(out, Receipt{Hash: tx.hash, Height: c.height, Success: ok, Reason: st.Reason})
		}
		for _, n := range slices.Sorted(maps.Keys(txs)) {
			if c.rng.Float64() >= pDrop {
				continue
			}
			tx := txs[n]
			delete(txs, n)
			if c.rng.Intn(2) == 0 {
				c.status[tx.hash] = chain.TxStatus{Hash: chain.Hash(tx.hash), State: chain.TxDropped, Reason: "evicted"}
			} else {
				delete(c.status, tx.hash) // lost: the chain forgot it
			}
		}
	}
	return out
}

func (c *simChain) txStatus(hash string) chain.TxStatus {
	if st, ok := c.status[hash]; ok {
		return st
	}
	return chain.TxStatus{Hash: chain.Hash(hash), State: chain.TxUnknown}
}

// pendingOf reports whether a transaction has an attempt in the mempool.
func (c *simChain) pendingOf(uid string) string {
	for _, txs := range c.pool {
		for _, tx := range txs {
			if tx.uid == uid {
				return tx.hash
			}
		}
	}
	return ""
}

// faults are the randomized test's probabilities.
type faults struct {
	workerErr, sendThenErr, checkErr, missReceipt float64
	include, fail, drop                           float64
}

type randRun struct {
	t       *testing.T
	rng     *rand.Rand
	h       *harness
	ch      *simChain
	builder bool
	f       faults
	hashes  int
	stats   map[string]int
	// later holds answers performed on chain but not yet delivered.
	later []func()
	// notified are the intake notifications since the core started.
	notified []store.Transaction
	// lostHooks are the transactions whose hook was in flight at a restart.
	lostHooks map[string]bool
	// pinned: the run pins queues to senders, and a restart may change the
	// pins (see core_pin_test.go).
	pinned  bool
	nQueues int
	// offPin are the bindings a restart found against the pins (queue →
	// transaction): the only ones allowed to break them.
	offPin map[string]string
}

func (r *randRun) hash() string {
	r.hashes++
	return fmt.Sprintf("0x%05d", r.hashes)
}

// perform answers one outstanding effect, as a driver with a flaky worker and
// a flaky chain would.
func (r *randRun) perform(e Effect) {
	h, ch, f := r.h, r.ch, r.f

	switch e.Kind {
	case EffectDispatch:
		// A dispatch may be stale (its transaction ended while it was queued):
		// the driver performs it all the same, and the core ignores the result.
		nonce := e.Sender.Nonce
		if e.SyncNonce && ch.nonce[e.Sender.AccountID] > nonce {
			nonce = ch.nonce[e.Sender.AccountID]
		}
		if r.rng.Float64() < f.workerErr {
			h.c.Step(Dispatched(h.now, e.Queue, DispatchResult{UID: e.UID, Attempt: e.Attempt, Nonce: nonce, Err: errors.New("worker unavailable")}))
			h.step()
			return
		}
		hash := r.hash()
		if r.builder {
			tx := chain.Tx{From: chain.Address(e.Sender.AccountID), Nonce: nonce, Fee: e.Sender.Fee}
			h.c.Step(Signed(h.now, e.Queue, e.UID, e.Attempt, tx, hash))
			h.step()
			return
		}
		err := ch.send(e.Sender.AccountID, nonce, e.Sender.Fee, hash, e.UID)
		res := DispatchResult{UID: e.UID, Attempt: e.Attempt, Nonce: nonce, Err: err, Code: chain.CodeOf(err)}
		if err == nil {
			res.Hash = hash
			if r.rng.Float64() < f.sendThenErr {
				res.Err = errors.New("worker: read timeout after send")
			}
		}
		h.c.Step(Dispatched(h.now, e.Queue, res))
		h.step()
	case EffectSubmit:
		err := ch.send(string(e.Tx.From), e.Tx.Nonce, e.Tx.Fee, e.Hash, e.UID)
		if err == nil && r.rng.Float64() < f.sendThenErr {
			err = errors.New("submit: connection reset after send")
		}
		deliver := func() {
			h.c.Step(Dispatched(h.now, e.Queue, DispatchResult{UID: e.UID, Attempt: e.Attempt, Nonce: e.Tx.Nonce, Hash: e.Hash, Err: err, Code: chain.CodeOf(err)}))
			h.step()
		}
		if r.rng.Intn(4) == 0 {
			// Sent, but the result reaches the core later: blocks (and
			// receipts of the watched hash) may come first.
			r.later = append(r.later, deliver)
			return
		}
		deliver()
	case EffectCheck:
		r.stats["checks"]++
		if r.rng.Float64() < f.checkErr {
			h.checked(e, chain.TxStatus{}, errors.New("chain unreachable"))
			return
		}
		h.checked(e, ch.txStatus(e.Hash), nil)
	case EffectHook:
		h.hookDone(e, TxnResult{Hash: e.Result.Hash}, nil)
	case EffectLoad:
		h.loaded(e)
	}
}

func (r *randRun) block() {
	receipts := r.ch.block(r.f.include, r.f.fail, r.f.drop)
	var seen []Receipt
	for _, rc := range receipts {
		if r.rng.Float64() >= r.f.missReceipt {
			seen = append(seen, rc)
		}
	}
	r.h.newHeadAt(r.ch.height, seen...)
}

// restart stops the core with its effects in flight and starts a new one
// from the store, syncing sender nonces with the chain as Node.load does. A
// Builder's submit in flight may have reached the chain.
func (r *randRun) restart() {

	r.later, r.notified = nil, nil
	for _, e := range r.h.out {
		switch {
		case e.Kind == EffectSubmit && r.rng.Intn(2) == 0:
			_ = r.ch.send(string(e.Tx.From), e.Tx.Nonce, e.Tx.Fee, e.Hash, e.UID)
		case e.Kind == EffectHook:
			// Known gap: a hook in flight at a stop is not run again.
			r.lostHooks[e.UID] = true
		}
	}
	for id, s := range r.h.senders {
		s.NextNonce = max(s.NextNonce, r.ch.nonce[id])
	}
	if r.pinned && r.rng.Intn(2) == 0 {
		r.repin()
	}
	r.h.start()
}

// answerRandom performs an outstanding effect or delivers a delayed answer.
func (r *randRun) answerRandom() {
	if n := len(r.later); n > 0 && r.rng.Intn(len(r.h.out)+n) < n {
		i := r.rng.Intn(n)
		f := r.later[i]
		r.later = append(r.later[:i:i], r.later[i+1:]...)
		f()
		return
	}
	if e, ok := r.takeRandom(); ok {
		r.perform(e)
	}
}

func (r *randRun) takeRandom() (Effect, bool) {
	if len(r.h.out) == 0 {
		return Effect{}, false
	}
	i := r.rng.Intn(len(r.h.out))
	e := r.h.out[i]
	r.h.out = append(r.h.out[:i:i], r.h.out[i+1:]...)
	return e, true
}

// checkOutstanding: at most one dispatch or submit per queue in flight for an
// unfinished transaction, none for a FAILED one (a DONE one's is stale).
func (r *randRun) checkOutstanding() {
	n := map[string]int{}
	for _, e := range r.h.out {
		if e.Kind == EffectDispatch || e.Kind == EffectSubmit {
			switch r.h.tx(e.UID).State {
			case store.Done:
				continue
			case store.Failed:
				r.t.Fatalf("%s is FAILED with a dispatch in flight", e.UID)
			default: // still live: counted below
			}
			n[e.Queue]++
			if n[e.Queue] > InFlightFor(r.h.cfg.Pipelines, e.Queue) {
				r.t.Fatalf("queue %s has %d dispatches in flight: %s", e.Queue, n[e.Queue], r.h.describeOut())
			}
		}
	}
	if b := r.h.c.BusySenders(); b < 0 || b > len(r.h.senders) {
		r.t.Fatalf("%d busy senders of %d", b, len(r.h.senders))
	}
}

func runRandom(t *testing.T, seed int64, builder, pinned bool, steps int) {
	runRandomPiped(t, seed, builder, pinned, false, steps)
}

// runRandomPiped is runRandom, with pipelined queues when piped.
func runRandomPiped(t *testing.T, seed int64, builder, pinned, piped bool, steps int) {
	rng := rand.New(rand.NewSource(seed))
	cfg := testConfig()
	cfg.Policies[typA] = Policy{MaxRetries: 1 + rng.Intn(6), Delay: delayA}
	cfg.InclusionTimeout = uint64(1 + rng.Intn(4))
	cfg.WaitingWindow = 1 + rng.Intn(4)
	nSenders, nQueues := 1+rng.Intn(4), 2+rng.Intn(7)
	var ss []store.Sender
	ch := newSimChain(t, rng)
	ch.maxFee = cfg.Fees.Max
	for i := range nSenders {
		id := fmt.Sprintf("s%d", i)
		n := uint64(rng.Intn(50))
		ss = append(ss, acct(id, n))
		ch.nonce[id] = n
	}
	if pinned && nSenders == 1 {
		// A pinned run needs an unreserved sender for the unpinned queues.
		ss = append(ss, acct("s1", 0))
		nSenders = 2
	}
	if piped {
		// Queues q0, q2, … (and q1x) have 2 to 5 in flight; the chain takes
		// nonces ahead of an account's, as devchain does.
		for i := 0; i < nQueues; i += 2 {
			cfg.Pipelines = append(cfg.Pipelines, Pipeline{Prefix: fmt.Sprintf("q%d", i), InFlight: 2 + rng.Intn(4)})
		}
		ch.gap = 64
	}
	h := newStopped(t, cfg, ss...)
	ch.describe = func(uid string) string {
		tx := h.tx(uid)
		out := fmt.Sprintf("\n%s %s queue %s attempts:", uid, tx.State, tx.Queue)
		for _, a := range tx.Attempts {
			out += fmt.Sprintf("\n  %+v", a)
		}
		for _, e := range h.hist[uid] {
			out += fmt.Sprintf("\n  %s>%s %s %q", e.From, e.To, e.Binding, e.Note)
		}
		return out
	}
	r := &randRun{t: t, rng: rng, h: h, ch: ch, builder: builder, lostHooks: map[string]bool{}, stats: map[string]int{}, pinned: pinned, nQueues: nQueues, f: faults{
		workerErr: 0.15, sendThenErr: 0.1, checkErr: 0.1, missReceipt: 0.2,
		include: 0.6, fail: 0.15, drop: 0.05,
	}}
	if pinned {
		r.repin()
	}
	h.start()
	h.onTransition = func(uid string, from, to store.TxState) {
		r.stats[string(from)+">"+string(to)]++
		switch to {
		case store.Failed:
			if hash := ch.pendingOf(uid); hash != "" {
				t.Fatalf("%s declared FAILED while its attempt %s is pending on chain", uid, hash)
			}
			ch.failed[uid] = true
		case store.Done:
			if ch.landed[uid] != 1 {
				t.Fatalf("%s declared DONE with %d successful inclusions", uid, ch.landed[uid])
			}
		default: // not an end: nothing to check
		}
	}
	types := []string{typA, typB}
	enqueued := 0
	for range steps {
		switch x := rng.Intn(100); {
		case x < 10 && enqueued < steps/8:
			q := fmt.Sprintf("q%d", rng.Intn(nQueues))
			n := 1 + rng.Intn(3)
			for _, uid := range h.enqueue(q, types[rng.Intn(2)], n) {
				tx := cloneTx(h.tx(uid))
				tx.State, tx.Attempts, tx.Retries = store.Waiting, nil, 0
				r.notified = append(r.notified, tx)
			}
			enqueued += n
		case x < 62:
			r.answerRandom()
		case x < 80:
			r.block()
		case x < 97:
			h.tick(time.Duration(rng.Int63n(int64(2 * delayA))))
			// Tick acted on every ended DELAY: a deadline still due would
			// make a driver spin.
			if dl := h.c.NextDeadline(); !dl.IsZero() && !dl.After(h.now) {
				t.Fatalf("NextDeadline %v is due right after Tick(%v)", dl, h.now)
			}
		case x < 98:
			r.restart()
			r.stats["restarts"]++
		case x < 99 && len(r.notified) > 0:
			// A late intake notification of a record committed since the
			// core started, which the core may have loaded (and finished)
			// already: it must not be dispatched again.
			tx := r.notified[rng.Intn(len(r.notified))]
			h.c.Step(Enqueued(h.now, []store.Transaction{tx}))
			h.step()
		default:
			h.newHeadAt(ch.height) // a repeated head
		}
		r.checkOutstanding()
		r.checkPins()
		for _, q := range h.queues {
			if q.State == store.WaitingInclusion && h.tx(q.TxUID).State == store.Retry {
				r.stats["settling steps"]++
			}
		}
	}

	open := 0
	for _, tx := range h.txs {
		if tx.State != store.Done && tx.State != store.Failed {
			open++
		}
	}
	r.stats["open before drain"] = open
	// Drain: no more faults; everything must end DONE or FAILED.
	r.f = faults{include: 1}
	for i := 0; ; i++ {
		if i > 5000 {
			var open []string
			for _, tx := range h.bySeq() {
				if tx.State != store.Done && tx.State != store.Failed && len(open) < 3 {
					open = append(open, ch.debug(tx.UID))
				}
			}
			var qs []string
			for _, q := range h.c.order {
				snd := ""
				if q.snd != nil {
					snd = q.snd.rec.ID
				}
				qs = append(qs, fmt.Sprintf("%s{%s seat %s snd %q flights %d waiting %d stored %s load %s}", q.rec.Name, q.rec.State, q.seat, snd, len(q.flights), len(q.waiting), q.stored, q.load))
				for i, f := range q.flights {
					qs = append(qs, fmt.Sprintf("\n  flight %d %s %s wait %s check %s verdict %s confirm %d deadline %d pipe %d held %v %s", i, f.rec.UID, f.rec.State, f.wait, f.check, f.verdict, f.confirm, q.rec.Deadline, f.pipe, f.held != nil, ch.debug(f.rec.UID)))
				}
			}
			t.Fatalf("not drained; outstanding %s; chain nonces %v; free %d idle %d line %d; queues %v; open: %s", h.describeOut(), ch.nonce, len(h.c.free), h.c.idle, len(h.c.line), qs, strings.Join(open, ""))
		}
		for len(h.out)+len(r.later) > 0 {
			r.answerRandom()
		}
		open = 0
		for _, tx := range h.txs {
			if tx.State != store.Done && tx.State != store.Failed {
				open++
			}
		}
		if open == 0 {
			break
		}
		r.block()
		h.tick(delayA)
	}
	for len(h.out)+len(r.later) > 0 {
		r.answerRandom()
	}
	if b := h.c.BusySenders(); b != 0 {
		t.Fatalf("%d senders busy after the drain", b)
	}
	for name, q := range h.queues {
		if q.State != store.Free || q.Sender != "" {
			t.Fatalf("queue %s after the drain: %+v", name, *q)
		}
	}
	done, failed := 0, 0
	for _, tx := range h.txs {
		if tx.State == store.Done {
			done++
		} else {
			failed++
		}
		if len(tx.Result) == 0 && !r.lostHooks[tx.UID] {
			t.Fatalf("%s ended without a hook result", tx.UID)
		}
	}
	t.Logf("MaxRetries %d, InclusionTimeout %d, WaitingWindow %d, pins %v, pipelines %v", cfg.Policies[typA].MaxRetries, cfg.InclusionTimeout, cfg.WaitingWindow, h.cfg.Pins, h.cfg.Pipelines)
	t.Logf("%d senders, %d queues: %d DONE, %d FAILED, %d blocks, %d attempts; %v", nSenders, nQueues, done, failed, ch.height, r.hashes, r.stats)
}

// TestCoreRandomized drives the core with random faults and restarts and
// checks the invariants after every step, each seed with and without a
// Builder dispatcher. ORDO_SEED replays a run; ORDO_SEEDS sets how many
// seeds to run (from the first).
func TestCoreRandomized(t *testing.T) { randomSeeds(t, false) }

// TestCorePipelinedRandomized is TestCoreRandomized with pipelined queues
// (CoreConfig.Pipelines) on a chain that takes nonces ahead.
func TestCorePipelinedRandomized(t *testing.T) {
	testkit.Seeds(t, func(t *testing.T, seed uint64, steps int) {
		for _, builder := range []bool{false, true} {
			t.Run(fmt.Sprintf("builder=%v", builder), func(t *testing.T) {
				runRandomPiped(t, int64(seed), builder, false, true, steps)
			})
		}
	})
}

// randomSeeds runs runRandom for each seed testkit.Seeds gives, in
// subtests builder=false and builder=true, pinned or not.
func randomSeeds(t *testing.T, pinned bool) {
	testkit.Seeds(t, func(t *testing.T, seed uint64, steps int) {
		for _, builder := range []bool{false, true} {
			t.Run(fmt.Sprintf("builder=%v", builder), func(t *testing.T) {
				runRandom(t, int64(seed), builder, pinned, steps)
			})
		}
	})
}
