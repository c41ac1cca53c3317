package leader

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit"
)

// TestLeaderCoreRandomized drives the core alone with random inputs from a
// seed, against a fake chain (the workflow: requests, reorgs that remove a
// request or bring one back under a new cursor, results recorded once per
// walk, another leader reporting first) and a fake sequencer (one record
// per idempotency key; submissions refused for now or for ever; records
// that land, revert, or fail with already_reported or no_such_walk; lost
// notifications), with tools that succeed, fail retriably or fatally, and
// restarts and crashes in the middle of a turn. After every step the
// harness checks CheckInvariants and the store's checks (a walk held by one
// record, no ended record coming back), and the world checks that a walk
// never has two of our result transactions open at once and that no
// result of ours would land twice for a walk (counted as if the workflow
// did not refuse the second). A final drain (no failures) checks that every
// request the listener read is indexed and ended, Successful exactly when
// our successful result is on chain, Dead when our failure result is. Each
// seed runs twice and must give the same digest (sha256 of every Ready's
// JSON, the uncommitted ones of crashes too).
//
// ORDO_SEED replays a run; ORDO_SEEDS sets how many seeds run (from it).
func TestLeaderCoreRandomized(t *testing.T) {
	testkit.Seeds(t, func(t *testing.T, seed uint64, steps int) {
		testkit.SameTwice(t, func() string { return runLeaderRandom(t, seed, steps) })
	})
}

// fakeWalk is a walk on the fake chain.
type fakeWalk struct {
	name    string
	onChain bool // false after a reorg removed its request
	// result is the workflow's recorded result.
	result *fakeResult
	// ours counts our result transactions that would have landed were
	// the workflow not to refuse a second result.
	ours int
}

type fakeResult struct {
	ours, ok bool
}

// chainEvent is a RequestWalkExecution in the fake chain's event log.
type chainEvent struct {
	id      int64
	walk    string
	removed bool // a reorg removed it before the listener read it
}

// fakeTx is a record of the fake sequencer.
type fakeTx struct {
	uid, key, walk string
	ok             bool
	state          store.TxState
	err            string
}

// leaderWorld is the randomized driver's world around one core.
type leaderWorld struct {
	t   *testing.T
	rng *rand.Rand
	h   *leaderHarness

	walks  map[string]*fakeWalk
	names  []string // walks in request order
	log    []chainEvent
	head   int64           // the chain's last event cursor
	read   map[string]bool // walks the listener handed the core in a committed page
	byKey  map[string]*fakeTx
	byUID  map[string]*fakeTx
	open   map[string]*fakeTx // the records not ended, by UID
	nrec   int
	fail   int  // percent of tools and transactions that fail
	chaos  bool // reorgs, other leaders, refusals
	counts map[string]int
	trail  []trailLine // the last steps, printed when a check fails
}

// note keeps a line of the trail: a format and its arguments, formatted
// only when a check fails.
func (w *leaderWorld) note(format string, args ...any) {
	if len(w.trail) == 400 {
		w.trail = w.trail[1:]
	}
	w.trail = append(w.trail, trailLine{format, args})
}

type trailLine struct {
	format string
	args   []any
}

// fatalf fails with the trail.
func (w *leaderWorld) fatalf(format string, args ...any) {
	w.t.Helper()
	var b strings.Builder
	for _, l := range w.trail {
		for i, a := range l.args {
			switch v := a.(type) {
			case Input:
				l.args[i] = fmtInput(v)
			case Ready:
				l.args[i] = fmtReady(v)
			}
		}
		fmt.Fprintf(&b, l.format+"\n", l.args...)
	}
	w.t.Fatalf("%s\nthe last steps:\n%s", fmt.Sprintf(format, args...), b.String())
}

func fmtInput(in Input) string {
	b, _ := json.Marshal(in)
	return string(b)
}

func runLeaderRandom(t *testing.T, seed uint64, steps int) string {
	w := &leaderWorld{t: t, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		walks: map[string]*fakeWalk{}, read: map[string]bool{}, byKey: map[string]*fakeTx{}, byUID: map[string]*fakeTx{},
		open: map[string]*fakeTx{}, fail: 30, chaos: true, counts: map[string]int{}}
	cfg := CoreConfig{Capacity: 4, MaxActive: 3, MaxRetries: 2, RetryEvery: time.Second, SweepAfter: 30 * time.Second,
		StaleAfter: 5 * time.Minute, BlockFor: 2 * time.Minute, CheckEvery: 20 * time.Second, ResubmitAfter: time.Second,
		Accounts: []string{"a0", "a1", "a2"}}
	w.h = newLeaderHarness(t, cfg)
	w.h.sum = testkit.NewDigest()
	for range steps {
		w.randomStep()
	}
	w.drain()
	return w.h.sum.String()
}

// step takes inputs through the harness and checks the world.
func (w *leaderWorld) step(ins ...Input) {
	w.h.t.Helper()
	for _, in := range ins {
		w.note("in %s", in)
	}
	r := w.h.step(ins...)
	w.note("%s", r)
	w.observe(r)
}

// observe checks that no walk has two of our result transactions open.
func (w *leaderWorld) observe(Ready) {
	open := map[string]string{}
	for _, tx := range w.open {
		if other, ok := open[tx.walk]; ok {
			w.fatalf("walk %s has two result transactions open: %s and %s", tx.walk, other, tx.key)
		}
		open[tx.walk] = tx.key
	}
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func (w *leaderWorld) pct(p int) bool { return w.rng.IntN(100) < p }

// request emits a RequestWalkExecution for a new walk.
func (w *leaderWorld) request() {
	name := "w" + strconv.Itoa(len(w.names)+1)
	w.walks[name] = &fakeWalk{name: name, onChain: true}
	w.names = append(w.names, name)
	w.emit(name)
}

func (w *leaderWorld) emit(walk string) {
	w.head++
	w.log = append(w.log, chainEvent{id: w.head, walk: walk})
}

// reorgOut removes the request of a walk that has no result yet.
func (w *leaderWorld) reorgOut() {
	var cands []string
	for _, n := range w.names {
		if wk := w.walks[n]; wk.onChain && wk.result == nil {
			cands = append(cands, n)
		}
	}
	if len(cands) == 0 {
		return
	}
	n := cands[w.rng.IntN(len(cands))]
	w.walks[n].onChain = false
	cur := int64(w.h.c.Cursor())
	for i := range w.log {
		if w.log[i].walk == n && w.log[i].id > cur {
			w.log[i].removed = true
		}
	}
	w.counts["reorg-out"]++
}

// reorgBack brings a walk's request back under a new cursor (removed or
// not, the chain may deliver it again).
func (w *leaderWorld) reorgBack() {
	if len(w.names) == 0 {
		return
	}
	n := w.names[w.rng.IntN(len(w.names))]
	if wk := w.walks[n]; wk.result == nil {
		wk.onChain = true
	}
	w.emit(n)
	w.counts["reorg-back"]++
}

// listen reads a page after the core's cursor, the way the listener does:
// up to a few events, the cursor at the last read (or the head when the
// page ends there: events of other kinds).
func (w *leaderWorld) listen() {
	cur := int64(w.h.c.Cursor())
	var reqs []Request
	last := cur
	limit := 1 + w.rng.IntN(5)
	for _, ev := range w.log {
		if ev.id <= cur {
			continue
		}
		if len(reqs) == limit {
			break
		}
		last = ev.id
		if ev.removed {
			continue
		}
		reqs = append(reqs, Request{ID: ev.id, Walk: ev.walk, Tool: "t", Digest: fmt.Sprintf("0x%x", ev.id), Height: uint64(ev.id),
			JSON: json.RawMessage(fmt.Sprintf(`{"walk":%q}`, ev.walk)), Known: w.h.st.known(ev.walk)})
	}
	if len(reqs) < limit && w.pct(30) {
		w.head++ // another kind of event
		last = w.head
	}
	if last == cur {
		return
	}
	w.step(Events(w.h.now, uint64(last), reqs))
	for _, r := range reqs {
		w.read[r.Walk] = true
	}
}

// answer builds the input that answers effect e.
func (w *leaderWorld) answer(e Effect) Input {
	h := w.h
	switch e.Kind {
	case EffectExecute:
		wk := w.walks[e.Walk]
		switch x := w.rng.IntN(100); {
		case !wk.onChain:
			return Executed(h.now, e.ID, e.Attempt, OutcomeGone, nil, "")
		case x < w.fail*2/3:
			return Executed(h.now, e.ID, e.Attempt, OutcomeRetriable, nil, "503 Service Unavailable")
		case x < w.fail:
			return Executed(h.now, e.ID, e.Attempt, OutcomeFatal, nil, "output: missing property 'n'")
		}
		return Executed(h.now, e.ID, e.Attempt, OutcomeOK, json.RawMessage(fmt.Sprintf(`{"n":%d}`, e.ID)), "")
	case EffectReport:
		if tx := w.byKey[e.Key]; tx != nil {
			return Reported(h.now, e.ID, tx.uid, tx.state, tx.err)
		}
		if w.chaos {
			switch x := w.rng.IntN(100); {
			case x < 6:
				return ReportFailed(h.now, e.ID, "database is locked", false)
			case x < 7:
				return ReportFailed(h.now, e.ID, "idempotency conflict", true)
			}
		}
		w.nrec++
		tx := &fakeTx{uid: "r" + strconv.Itoa(w.nrec), key: e.Key, walk: e.Walk, ok: e.OK, state: store.Waiting}
		w.byKey[tx.key], w.byUID[tx.uid], w.open[tx.uid] = tx, tx, tx
		return Reported(h.now, e.ID, tx.uid, tx.state, "")
	case EffectCheck:
		r := w.walks[e.Walk].result
		return Checked(h.now, e.ID, r != nil && r.ours)
	}
	w.t.Fatalf("unknown effect %d", e.Kind)
	return Input{}
}

// answerEffect answers a random unanswered effect.
func (w *leaderWorld) answerEffect() {
	h := w.h
	if len(h.out) == 0 {
		return
	}
	i := w.rng.IntN(len(h.out))
	e := h.out[i]
	h.out = slices.Delete(h.out, i, i+1)
	w.step(w.answer(e))
}

// execTx runs an open record on the fake chain: the workflow takes one
// result per walk of a request on chain.
func (w *leaderWorld) execTx(tx *fakeTx) {
	wk := w.walks[tx.walk]
	tx.state = store.Failed
	delete(w.open, tx.uid)
	switch {
	case !wk.onChain:
		tx.err = "call failed: " + ReasonNoSuchWalk
	case w.fail > 0 && w.pct(w.fail/2):
		tx.err = "call failed: reverted"
		return // never reached the workflow
	case wk.result != nil:
		tx.err = "call failed: " + ReasonAlreadyReported
	default:
		tx.state = store.Done
		wk.result = &fakeResult{ours: true, ok: tx.ok}
	}
	if wk.onChain {
		wk.ours++
		if wk.ours > 1 {
			w.fatalf("walk %s: a second result of ours would land (%s)", tx.walk, tx.key)
		}
	}
}

// finishOne runs a random open record; one notification in five is lost
// (the core's check finds the end).
func (w *leaderWorld) finishOne() {
	if len(w.open) == 0 {
		return
	}
	open := sortedKeys(w.open)
	tx := w.open[open[w.rng.IntN(len(open))]]
	w.execTx(tx)
	w.note("tx %s %s: %s %s", tx.uid, tx.key, tx.state, tx.err)
	w.counts["tx-"+string(tx.state)]++
	if w.chaos && w.pct(20) {
		return
	}
	w.step(Finished(w.h.now, tx.uid, tx.state == store.Done, tx.err))
}

// renotify repeats the notification of a random ended record, or sends
// one for a record the sequencer does not hold (not the leader's).
func (w *leaderWorld) renotify() {
	uid := "r" + strconv.Itoa(w.rng.IntN(w.nrec+3))
	switch tx := w.byUID[uid]; {
	case tx == nil:
		w.step(Finished(w.h.now, uid, w.pct(50), "call failed: reverted"))
	case tx.state != store.Waiting:
		w.step(Finished(w.h.now, uid, tx.state == store.Done, tx.err))
	}
}

// foreign has another leader report a walk's result first.
func (w *leaderWorld) foreign() {
	var cands []string
	for _, n := range w.names {
		if wk := w.walks[n]; wk.onChain && wk.result == nil {
			cands = append(cands, n)
		}
	}
	if len(cands) == 0 {
		return
	}
	w.walks[cands[w.rng.IntN(len(cands))]].result = &fakeResult{ours: false, ok: true}
	w.counts["foreign"]++
}

// adminRetry retries a Dead record whose walk holds no result (a retry of
// one that holds ours would end Successful on our earlier failure: see
// 14_admin_retry), or, now and then, any record (a conflict unless Dead).
func (w *leaderWorld) adminRetry() {
	h := w.h
	var cands []int64
	for _, id := range h.st.ids() {
		e := h.st.events[id]
		if e.Status == store.EventDead && w.walks[e.Walk].result == nil {
			cands = append(cands, id)
		}
	}
	if len(cands) == 0 || w.pct(20) {
		if len(h.st.events) == 0 {
			return
		}
		ids := h.st.ids()
		e := h.st.events[ids[w.rng.IntN(len(ids))]]
		if e.Status == store.EventDead && w.walks[e.Walk].result != nil {
			return
		}
		w.step(Retry(h.now, h.nextReq(), e))
		return
	}
	w.step(Retry(h.now, h.nextReq(), h.st.events[cands[w.rng.IntN(len(cands))]]))
	w.counts["retry"]++
}

// crash steps the answer of a random effect, then drops the core before
// its Ready commits.
func (w *leaderWorld) crash() {
	h := w.h
	in := Time(h.now, w.rng.Uint64())
	if len(h.out) > 0 {
		i := w.rng.IntN(len(h.out))
		e := h.out[i]
		h.out = slices.Delete(h.out, i, i+1)
		in = w.answer(e)
	}
	w.note("crash on %s", in)
	_, _, first := h.crash(in)
	w.note("after the restart: %s", first)
	w.observe(first)
	w.counts["crash"]++
}

func (w *leaderWorld) restart() {
	_, r := w.h.restart()
	w.note("restart: %s", r)
	w.observe(r)
	w.counts["restart"]++
}

func (w *leaderWorld) randomStep() {
	h := w.h
	switch x := w.rng.IntN(1000); {
	case x < 120:
		for range 1 + w.rng.IntN(3) {
			w.request()
		}
	case x < 150:
		w.reorgOut()
	case x < 170:
		w.reorgBack()
	case x < 320:
		w.listen()
	case x < 620:
		w.answerEffect()
	case x < 740:
		w.finishOne()
	case x < 760:
		w.foreign()
	case x < 900:
		h.now = h.now.Add(time.Duration(w.rng.IntN(20000)) * time.Millisecond)
		w.step(Time(h.now, w.rng.Uint64()))
	case x < 920:
		w.adminRetry()
	case x < 940:
		w.renotify()
	case x < 970:
		w.restart()
	default:
		w.crash()
	}
}

// drain stops the chaos (no more failures, reorgs, other leaders or lost
// notifications), reads the whole log, answers everything and lets time
// run until the core holds nothing in flight; then it checks every walk.
func (w *leaderWorld) drain() {
	h, t := w.h, w.t
	w.fail, w.chaos = 0, false
	for round := 0; ; round++ {
		if round > 20000 {
			t.Fatalf("the drain did not end:\n%s", h.fmtState())
		}
		for int64(h.c.Cursor()) < w.head {
			w.listen()
		}
		for len(h.out) > 0 {
			w.answerEffect()
		}
		for len(w.open) > 0 {
			w.finishOne()
		}
		if len(h.c.events) == 0 && len(h.out) == 0 {
			break
		}
		h.now = h.now.Add(5 * time.Second)
		w.step(Time(h.now, w.rng.Uint64()))
	}
	statuses := map[store.EventStatus]int{}
	for _, n := range w.names {
		wk := w.walks[n]
		id, indexed := h.st.walks[n]
		if w.read[n] != indexed {
			t.Fatalf("walk %s: read by the listener %t, indexed %t", n, w.read[n], indexed)
		}
		if !indexed {
			continue
		}
		e := h.st.events[id]
		statuses[e.Status]++
		mine := wk.result != nil && wk.result.ours
		switch {
		case e.Status != store.EventSuccessful && e.Status != store.EventDead:
			t.Fatalf("walk %s did not end: %s", n, fmtEvent(e))
		case e.Status == store.EventSuccessful && (!mine || !wk.result.ok):
			t.Fatalf("walk %s is Successful but the chain holds %+v: %s", n, wk.result, fmtEvent(e))
		case mine && wk.result.ok && e.Status != store.EventSuccessful:
			t.Fatalf("walk %s: our successful result is on chain, the record is %s", n, fmtEvent(e))
		case mine && !wk.result.ok && e.Status != store.EventDead:
			t.Fatalf("walk %s: our failure result is on chain, the record is %s", n, fmtEvent(e))
		}
	}
	t.Logf("%d walks, %d indexed %v; %d result transactions; %v", len(w.names), len(h.st.events), statuses, w.nrec, w.counts)
}
