package processor

import (
	"encoding/json"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit"
)

// TestCoreRandomized drives the core alone with random inputs from a seed:
// owners' adds (atomic and non-atomic, retries, intervals, expirations,
// confirmations, positions, reused ids), ticks, pauses, removals, a fake
// sequencer that refuses, fails and finishes executions (and loses some of
// its notifications), chain heads, confirmation events from the right and
// the wrong contract, deliveries that fail, restarts from the in-memory
// store and crashes in the middle of a turn. After every step the harness
// checks CheckInvariants, that no ended batch comes back and that no
// outcome has two callback keys; the driver checks that a tick (the
// auto-ticker's too) never takes Medium while High holds a batch and that no unit starts more executions
// than its RetryLogic allows. A final drain (every execution succeeds)
// checks that every accepted batch got exactly one outcome and one
// callback. Each seed runs twice and must give the same digest (sha256 of
// every Ready's JSON).
//
// ORDO_SEED replays a run; ORDO_SEEDS sets how many seeds run (from it).
func TestCoreRandomized(t *testing.T) {
	testkit.Seeds(t, func(t *testing.T, seed uint64, steps int) {
		testkit.SameTwice(t, func() string { return runProcRandom(t, seed, steps) })
	})
}

// fakeRecord is a sequencer record of the fake sequencer.
type fakeRecord struct {
	uid   string
	state store.TxState
	err   string
}

// procWorld is the randomized driver's world around one core.
type procWorld struct {
	t     *testing.T
	rng   *rand.Rand
	h     *procHarness
	procs []string
	owner map[string]string

	recs  map[string]*fakeRecord // by execution id: the sequencer's idempotency
	byUID map[string]*fakeRecord
	nrec  int
	fail  int // percent of executions that fail

	asked    map[uint64]Input // callers' inputs awaiting their reply
	cursor   uint64
	specs    map[string]BatchSpec // "<processor>/<id>" of accepted batches
	attempts map[string]map[int]bool
	pending  map[string]string // execution id -> processor, of executions that may await a confirmation
}

func runProcRandom(t *testing.T, seed uint64, steps int) string {
	w := &procWorld{t: t, rng: rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d)),
		owner: map[string]string{}, recs: map[string]*fakeRecord{}, byUID: map[string]*fakeRecord{},
		asked: map[uint64]Input{}, specs: map[string]BatchSpec{}, attempts: map[string]map[int]bool{}, pending: map[string]string{}, fail: 35}
	cfg := CoreConfig{CheckEvery: 20 * time.Second, ResubmitAfter: time.Second, MaxDeliveries: 3,
		BackoffMin: time.Second, BackoffMax: 8 * time.Second, MaxQueued: 40}
	w.h = newProcHarness(t, cfg)
	w.h.sum = testkit.NewDigest()
	for i, name := range []string{"p", "q", "r"} {
		cs := CreateSpec{Name: name, Owner: "owner-" + name}
		if i != 2 {
			cs.CallbackURL = "http://cb/" + name
		}
		if i == 1 {
			cs.AutoTick = "5s"
		}
		if i == 2 {
			cs.Lanes = 3
		}
		w.step(Create(w.h.now, w.h.nextReq(), "admin", cs))
		w.procs = append(w.procs, name)
		w.owner[name] = cs.Owner
	}
	for range steps {
		w.randomStep()
	}
	w.drain()
	return w.h.sum.String()
}

// highLens is the length of each processor's High queue now.
func (w *procWorld) highLens() map[string]int {
	m := map[string]int{}
	for _, name := range w.procs {
		m[name] = w.h.c.procs[name].queues[0].Len()
	}
	return m
}

// step takes inputs through the harness and checks the Ready.
func (w *procWorld) step(ins ...Input) {
	high := w.highLens()
	r := w.h.step(ins...)
	w.observe(r, high)
	if len(ins) == 1 && ins[0].Kind == InputTime {
		// Time moves no batch but by an auto-tick, which takes High first:
		// a Medium row written while High held a batch is a tick's.
		for _, b := range r.Batch.Batches {
			if b.Priority == string(Medium) && high[b.Processor] > 0 {
				w.t.Fatalf("an auto-tick of %s moved Medium batch %s (%s) while High held %d", b.Processor, b.ID, b.State, high[b.Processor])
			}
		}
	}
}

func specRetry(spec BatchSpec, action int) *RetryLogic {
	if a := spec.ActionsConfig.Atomic; a != nil {
		return a.RetryLogic
	}
	return spec.ActionsConfig.NonAtomic.Actions[action].RetryLogic
}

// wantAttempts is how many attempts a RetryLogic allows, as Valence counts
// (Amount n: n+1), 0 for no bound; written here again so that the check
// does not share the core's arithmetic.
func wantAttempts(rl *RetryLogic) int {
	switch {
	case rl == nil:
		return 1
	case rl.Times.Indefinitely:
		return 0
	}
	return rl.Times.Amount + 1
}

// observe checks a committed Ready and learns from it: accepted batches,
// executions started (against their RetryLogic), ticks (High first).
func (w *procWorld) observe(r Ready, highBefore map[string]int) {
	t := w.t
	for _, rp := range r.Replies {
		in, ok := w.asked[rp.Req]
		if !ok {
			continue
		}
		delete(w.asked, rp.Req)
		switch v := rp.Body.(type) {
		case AddResult:
			spec := *in.Batch
			spec.ID, spec.Position = v.ID, nil
			w.specs[in.Processor+"/"+v.ID] = spec
		case TickResult:
			if v.Priority == Medium && highBefore[in.Processor] > 0 {
				t.Fatalf("a tick of %s took Medium batch %s (%s) while High held %d", in.Processor, v.BatchID, v.Outcome, highBefore[in.Processor])
			}
			if v.Outcome == TickStarted && w.ended(in.Processor, v.BatchID) {
				t.Fatalf("a tick of %s started %s, which had ended", in.Processor, v.BatchID)
			}
		}
	}
	for _, e := range r.Effects {
		if e.Kind != EffectSubmit {
			continue
		}
		parts := strings.Split(e.Exec, "/")
		if len(parts) != 4 {
			t.Fatalf("execution id %q", e.Exec)
		}
		unit := strings.Join(parts[:3], "/")
		n, err1 := strconv.Atoi(parts[3])
		action, err2 := strconv.Atoi(parts[2])
		spec, ok := w.specs[parts[0]+"/"+parts[1]]
		if err1 != nil || err2 != nil || !ok {
			t.Fatalf("execution %s of a batch never accepted", e.Exec)
		}
		if w.attempts[unit] == nil {
			w.attempts[unit] = map[int]bool{}
		}
		w.attempts[unit][n] = true
		if max := wantAttempts(specRetry(spec, action)); max > 0 && (len(w.attempts[unit]) > max || n > max) {
			t.Fatalf("unit %s started attempts %v; its RetryLogic allows %d", unit, sortedInts(w.attempts[unit]), max)
		}
		if na := spec.ActionsConfig.NonAtomic; na != nil && na.Actions[action].CallbackConfirmation != nil {
			w.pending[e.Exec] = parts[0]
		}
	}
}

// ended reports whether the store holds batch id of proc as done.
func (w *procWorld) ended(proc, id string) bool {
	b, ok := w.h.st.batches[proc+"/"+id]
	return ok && b.State == store.BatchDone
}

func sortedInts(m map[int]bool) []int {
	var s []int
	for k := range m {
		s = append(s, k)
	}
	slices.Sort(s)
	return s
}

// ask numbers a caller's input and remembers it until its reply.
func (w *procWorld) ask(in Input) Input {
	w.asked[in.Req] = in
	return in
}

func (w *procWorld) pick(names []string) string { return names[w.rng.IntN(len(names))] }

// randomSpec draws a batch: sometimes with an id from a small pool (so ids
// conflict), sometimes at a position, sometimes expiring.
func (w *procWorld) randomSpec() BatchSpec {
	r := w.rng
	n := 1 + r.IntN(3)
	s := BatchSpec{Priority: Medium}
	if r.IntN(3) == 0 {
		s.Priority = High
	}
	if r.IntN(2) == 0 {
		s.ID = "b" + strconv.Itoa(r.IntN(400))
	}
	if r.IntN(5) == 0 {
		p := r.IntN(6)
		s.Position = &p
	}
	if r.IntN(10) == 0 {
		if r.IntN(2) == 0 {
			s.Expiration = &Expiration{Height: w.h.head + uint64(r.IntN(6))}
		} else {
			s.Expiration = &Expiration{Time: w.h.now.Add(time.Duration(r.IntN(30)) * time.Second)}
		}
	}
	retry := func() *RetryLogic {
		switch r.IntN(5) {
		case 0:
			return nil
		case 1:
			return &RetryLogic{Times: RetryTimes{Indefinitely: true}, Interval: RetryInterval{Blocks: uint64(r.IntN(3))}}
		default:
			rl := &RetryLogic{Times: RetryTimes{Amount: r.IntN(3)}}
			if r.IntN(2) == 0 {
				rl.Interval.Blocks = uint64(r.IntN(3))
			} else {
				rl.Interval.Duration = time.Duration(r.IntN(5)) * time.Second
			}
			return rl
		}
	}
	acts := make([]Action, n)
	for i := range n {
		s.Msgs = append(s.Msgs, Msg{Contract: "library", Method: "m" + strconv.Itoa(i)})
	}
	if r.IntN(2) == 0 {
		s.ActionsConfig.Atomic = &AtomicConfig{Actions: acts, RetryLogic: retry()}
		return s
	}
	for i := range acts {
		acts[i].RetryLogic = retry()
		if r.IntN(3) == 0 {
			acts[i].CallbackConfirmation = &CallbackConfirmation{Contract: "oracle"}
		}
	}
	s.ActionsConfig.NonAtomic = &NonAtomicConfig{Actions: acts}
	return s
}

// answerSubmit is the fake sequencer taking a submission: it refuses some
// (for now or for ever), keeps one record per execution id, and answers
// with the record's state.
func (w *procWorld) answerSubmit(e Effect) Input {
	h := w.h
	if rec := w.recs[e.Exec]; rec != nil {
		return Submitted(h.now, e.Exec, rec.uid, rec.state, rec.err)
	}
	switch x := w.rng.IntN(100); {
	case x < 8 && w.fail > 0:
		return SubmitFailed(h.now, e.Exec, "database is locked", false)
	case x < 10 && w.fail > 0:
		return SubmitFailed(h.now, e.Exec, "no such contract", true)
	}
	w.nrec++
	rec := &fakeRecord{uid: "r" + strconv.Itoa(w.nrec), state: store.Revision}
	w.recs[e.Exec], w.byUID[rec.uid] = rec, rec
	return Submitted(h.now, e.Exec, rec.uid, rec.state, "")
}

// finishOne ends a random record in REVISION; one notification in five is
// lost (the core's check finds the end).
func (w *procWorld) finishOne() {
	var open []string
	for uid, rec := range w.byUID {
		if rec.state == store.Revision {
			open = append(open, uid)
		}
	}
	if len(open) == 0 {
		return
	}
	slices.Sort(open)
	rec := w.byUID[w.pick(open)]
	rec.state = store.Done
	if w.rng.IntN(100) < w.fail {
		rec.state, rec.err = store.Failed, "library: configured failure"
	}
	if w.rng.IntN(5) == 0 {
		return
	}
	w.step(Finished(w.h.now, rec.uid, rec.state == store.Done, rec.err))
}

// confirmOne confirms a random execution that may await a confirmation:
// by its owner or a stranger, by an event of the right or the wrong
// contract, success or failure.
func (w *procWorld) confirmOne() {
	if len(w.pending) == 0 {
		return
	}
	execs := slices.Sorted(maps.Keys(w.pending))
	exec := w.pick(execs)
	proc := w.pending[exec]
	ok := w.rng.IntN(100) >= w.fail
	h := w.h
	switch w.rng.IntN(4) {
	case 0:
		w.step(w.ask(ConfirmBy(h.now, h.nextReq(), w.owner[proc], proc, exec, ok)))
	case 1:
		w.step(w.ask(ConfirmBy(h.now, h.nextReq(), "stranger", proc, exec, ok)))
	case 2:
		w.cursor++
		w.step(Events(h.now, w.cursor, []Confirm{{Contract: "library", Exec: exec, Success: ok}}))
	default:
		w.cursor++
		w.step(Events(h.now, w.cursor, []Confirm{{Contract: "oracle", Exec: exec, Success: ok}}))
	}
	if w.rng.IntN(3) == 0 {
		delete(w.pending, exec)
	}
}

// answerEffect answers a random unanswered effect.
func (w *procWorld) answerEffect() {
	h := w.h
	if len(h.out) == 0 {
		return
	}
	i := w.rng.IntN(len(h.out))
	e := h.out[i]
	h.out = slices.Delete(h.out, i, i+1)
	switch e.Kind {
	case EffectSubmit:
		w.step(w.answerSubmit(e))
	case EffectDeliver:
		ok := w.rng.IntN(100) >= w.fail
		w.step(Delivered(h.now, e.Processor, e.Seq, ok, map[bool]string{false: "503"}[ok]))
	}
}

// crash steps an input, then drops the core before its Ready commits.
func (w *procWorld) crash(in Input) {
	h := w.h
	h.c.Step(in)
	h.sum.Add(h.t, h.c.Ready())
	w.restart()
}

func (w *procWorld) restart() {
	_, r := w.h.restart()
	w.observe(r, nil)
}

func (w *procWorld) randomStep() {
	h, r := w.h, w.rng
	proc := w.pick(w.procs)
	switch x := r.IntN(1000); {
	case x < 180:
		spec := w.randomSpec()
		caller := w.owner[proc]
		if r.IntN(20) == 0 {
			caller = "stranger"
		}
		used := spec.ID != "" && h.st.used(proc, spec.ID)
		w.step(w.ask(Add(h.now, h.nextReq(), caller, proc, spec, used)))
	case x < 400:
		w.step(w.ask(Tick(h.now, h.nextReq(), proc)))
	case x < 620:
		w.answerEffect()
	case x < 720:
		w.finishOne()
	case x < 770:
		w.confirmOne()
	case x < 830:
		h.head++
		w.step(Head(h.now, h.head))
	case x < 900:
		h.now = h.now.Add(time.Duration(r.IntN(4000)) * time.Millisecond)
		w.step(Time(h.now))
	case x < 925:
		w.step(w.ask(Pause(h.now, h.nextReq(), w.owner[proc], proc, r.IntN(3) != 0)))
	case x < 960:
		pr := Medium
		if r.IntN(2) == 0 {
			pr = High
		}
		w.step(w.ask(Remove(h.now, h.nextReq(), w.owner[proc], proc, pr, r.IntN(8))))
	case x < 975:
		w.step(w.ask(Finished(h.now, "r"+strconv.Itoa(r.IntN(w.nrec+2)), r.IntN(2) == 0, "")))
	case x < 990:
		w.restart()
	default:
		w.crash(Tick(h.now, h.nextReq(), proc))
	}
}

// drain makes every execution succeed and ticks until every accepted batch
// has ended, then checks each has exactly one outcome and one callback.
func (w *procWorld) drain() {
	h, t := w.h, w.t
	w.fail = 0
	for _, name := range w.procs {
		w.step(w.ask(Pause(h.now, h.nextReq(), w.owner[name], name, true)))
	}
	for round := 0; ; round++ {
		if round > 2000 {
			t.Fatalf("the drain did not end: %s", h.fmtQueues(""))
		}
		for len(h.out) > 0 {
			w.answerEffect()
		}
		for len(w.byUID) > 0 && slices.ContainsFunc(slices.Sorted(maps.Keys(w.byUID)), func(uid string) bool { return w.byUID[uid].state == store.Revision }) {
			w.finishOne()
		}
		// The owner confirms what its processor lists as pending.
		for _, exec := range slices.Sorted(maps.Keys(h.c.byExec)) {
			if b := h.c.byExec[exec]; b.rec.State == store.BatchPending {
				w.step(w.ask(ConfirmBy(h.now, h.nextReq(), b.p.rec.Owner, b.p.rec.Name, exec, true)))
			}
		}
		busy := false
		for _, name := range w.procs {
			p := h.c.procs[name]
			if len(p.live) > 0 || len(p.cbs) > 0 {
				busy = true
			}
			if p.queued() > 0 {
				w.step(w.ask(Tick(h.now, h.nextReq(), name)))
			}
		}
		if !busy && len(h.out) == 0 {
			break
		}
		h.head += 3
		h.now = h.now.Add(10 * time.Second)
		w.step(Head(h.now, h.head), Time(h.now))
	}
	// Every accepted batch ended once, with one callback under its key.
	perBatch := map[string][]store.Callback{}
	for _, cb := range w.h.st.cbs {
		perBatch[cb.Processor+"/"+cb.BatchID] = append(perBatch[cb.Processor+"/"+cb.BatchID], cb)
	}
	for _, k := range slices.Sorted(maps.Keys(w.specs)) {
		proc, id, _ := strings.Cut(k, "/")
		b, ok := w.h.st.batches[k]
		cbs := perBatch[k]
		if !ok || b.State != store.BatchDone {
			t.Fatalf("batch %s did not end: %+v", k, b)
		}
		if len(cbs) != 1 || cbs[0].Key != CallbackKey(proc, id) {
			t.Fatalf("batch %s has %d callbacks: %+v", k, len(cbs), cbs)
		}
		var st batchState
		if err := json.Unmarshal(b.Body, &st); err != nil || st.Outcome == nil {
			t.Fatalf("batch %s ended without an outcome: %s", k, b.Body)
		}
		var body CallbackBody
		if err := json.Unmarshal(cbs[0].Body, &body); err != nil || body.Outcome != *st.Outcome {
			t.Fatalf("batch %s: outcome %+v, callback %s", k, *st.Outcome, cbs[0].Body)
		}
		if w.h.st.procs[proc].CallbackURL != "" && cbs[0].State != store.CallbackDelivered {
			t.Fatalf("batch %s: callback %s", k, cbs[0].State)
		}
	}
	outcomes := map[Status]int{}
	for _, k := range slices.Sorted(maps.Keys(w.specs)) {
		var st batchState
		_ = json.Unmarshal(w.h.st.batches[k].Body, &st)
		outcomes[st.Outcome.Status]++
	}
	t.Logf("%d batches accepted, %d executions, outcomes %v", len(w.specs), w.nrec, outcomes)
	if len(perBatch) != len(w.specs) {
		t.Fatalf("%d batches have callbacks, %d were accepted", len(perBatch), len(w.specs))
	}
}
