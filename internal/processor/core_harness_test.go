package processor

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit"
)

// memProcStore is an in-memory ProcessorStore for the core's tests: it
// applies every committed Ready's writes with the upsert semantics of
// store.ProcChanges and checks, as it applies them, what no store may see:
// a batch that ended coming back, and one batch outcome under two callback
// keys (or one key for two callbacks).
type memProcStore struct {
	procs   map[string]store.Processor
	batches map[string]store.ProcBatch // "<processor>/<id>"
	cbs     map[string]store.Callback  // "<processor>/<seq>"
	cursors map[string]uint64
	keys    map[string]string // callback key -> "<processor>/<seq>"
	bad     []string
}

func newMemProcStore() *memProcStore {
	return &memProcStore{procs: map[string]store.Processor{}, batches: map[string]store.ProcBatch{},
		cbs: map[string]store.Callback{}, cursors: map[string]uint64{}, keys: map[string]string{}}
}

func (m *memProcStore) apply(c store.ProcChanges) {
	for _, p := range c.Processors {
		m.procs[p.Name] = p
	}
	for _, b := range c.Batches {
		k := b.Processor + "/" + b.ID
		if old, ok := m.batches[k]; ok && old.State == store.BatchDone && (b.State != store.BatchDone || string(old.Body) != string(b.Body)) {
			m.bad = append(m.bad, fmt.Sprintf("batch %s ended and came back as %s", k, b.State))
		}
		m.batches[k] = b
	}
	for _, cb := range c.Callbacks {
		k := fmt.Sprintf("%s/%d", cb.Processor, cb.Seq)
		if other, ok := m.keys[cb.Key]; ok && other != k {
			m.bad = append(m.bad, fmt.Sprintf("callback key %s names callbacks %s and %s", cb.Key, other, k))
		}
		if old, ok := m.cbs[k]; ok && old.Key != cb.Key {
			m.bad = append(m.bad, fmt.Sprintf("callback %s changed its key from %s to %s", k, old.Key, cb.Key))
		}
		if old, ok := m.cbs[k]; ok && old.State == store.CallbackDelivered && cb.State != store.CallbackDelivered {
			m.bad = append(m.bad, fmt.Sprintf("callback %s was delivered and is %s again", k, cb.State))
		}
		m.keys[cb.Key] = k
		m.cbs[k] = cb
	}
	for _, cu := range c.Cursors {
		m.cursors[cu.Name] = cu.Value
	}
}

// snapshot is what ProcessorSnapshot reads.
func (m *memProcStore) snapshot() store.ProcSnapshot {
	var s store.ProcSnapshot
	for _, k := range slices.Sorted(maps.Keys(m.procs)) {
		s.Processors = append(s.Processors, m.procs[k])
	}
	for _, b := range m.batches {
		if b.State != store.BatchDone {
			s.Batches = append(s.Batches, b)
		}
	}
	slices.SortFunc(s.Batches, func(a, b store.ProcBatch) int {
		return cmp.Or(cmp.Compare(a.Processor, b.Processor), cmp.Compare(a.Priority, b.Priority), cmp.Compare(a.Key, b.Key), cmp.Compare(a.ID, b.ID))
	})
	for _, cb := range m.cbs {
		if cb.State == store.CallbackPending {
			s.Callbacks = append(s.Callbacks, cb)
		}
	}
	slices.SortFunc(s.Callbacks, func(a, b store.Callback) int {
		return cmp.Or(cmp.Compare(a.Processor, b.Processor), cmp.Compare(a.Seq, b.Seq))
	})
	for _, k := range slices.Sorted(maps.Keys(m.cursors)) {
		s.Cursors = append(s.Cursors, store.Cursor{Name: k, Value: m.cursors[k]})
	}
	return s
}

// used reports whether the store holds a batch id of a processor (the
// driver's Input.Used).
func (m *memProcStore) used(proc, id string) bool {
	_, ok := m.batches[proc+"/"+id]
	return ok
}

// procHarness drives a core as its driver would: it steps inputs, takes the
// Ready, commits it to a memProcStore, advances, and keeps the effects not
// answered yet. Every turn checks CheckInvariants and the store's checks.
type procHarness struct {
	t     testing.TB
	cfg   CoreConfig
	c     *Core
	st    *memProcStore
	now   time.Time
	head  uint64
	req   uint64
	out   []Effect // effects not answered yet, in the order asked
	ready []Ready  // every Ready, when keep is set
	keep  bool
	sum   *testkit.Digest // when set, takes every Ready's JSON
}

func newProcHarness(t testing.TB, cfg CoreConfig) *procHarness {
	h := &procHarness{t: t, cfg: cfg, st: newMemProcStore(), now: t0, head: 1}
	h.restart()
	return h
}

// restart drops the core and its unanswered effects, and rebuilds it from
// the store. It returns the effects lost and the new core's first Ready.
func (h *procHarness) restart() ([]Effect, Ready) {
	c, err := NewCore(h.cfg, h.now, h.head, h.st.snapshot())
	if err != nil {
		h.t.Fatalf("NewCore: %v", err)
	}
	lost := h.out
	h.c, h.out = c, nil
	return lost, h.turn()
}

// nextReq numbers a caller's request.
func (h *procHarness) nextReq() uint64 { h.req++; return h.req }

// step takes inputs (stamped with the harness's clock when At is zero) and
// returns the turn's Ready.
func (h *procHarness) step(ins ...Input) Ready {
	for _, in := range ins {
		if in.At.IsZero() {
			in.At = h.now
		}
		h.c.Step(in)
	}
	return h.turn()
}

// turn checks the invariants, takes the Ready, commits it and advances.
func (h *procHarness) turn() Ready {
	h.t.Helper()
	testkit.NoneBroken(h.t, "invariants broken", h.c.CheckInvariants())
	r := h.c.Ready()
	h.st.apply(r.Batch)
	testkit.NoneBroken(h.t, "store checks broken", h.st.bad)
	h.c.Advance()
	h.sum.Add(h.t, r)
	h.out = append(h.out, r.Effects...)
	if h.keep {
		h.ready = append(h.ready, r)
	}
	return r
}

// takeEffect removes and returns the first unanswered effect that match
// accepts.
func (h *procHarness) takeEffect(match func(Effect) bool) (Effect, bool) {
	return testkit.Take(&h.out, match)
}

func (h *procHarness) takeSubmit(exec string) (Effect, bool) {
	return h.takeEffect(func(e Effect) bool { return e.Kind == EffectSubmit && e.Exec == exec })
}

func (h *procHarness) takeDeliver(proc string, seq int64) (Effect, bool) {
	return h.takeEffect(func(e Effect) bool { return e.Kind == EffectDeliver && e.Processor == proc && e.Seq == seq })
}

// fmtOff prints a time as its offset from t0.
func fmtOff(t time.Time) string { return testkit.Offset(t0, t) }

// fmtReady prints a Ready compactly: the rows written, the effects, the
// replies. "(no change)" is an empty Ready.
func fmtReady(r Ready) string {
	if r.Empty() {
		return "(no change)\n"
	}
	var b strings.Builder
	if !r.Batch.Empty() {
		b.WriteString("batch:\n")
		b.WriteString(testkit.Lines("  ", r.Batch.Processors, fmtProc))
		b.WriteString(testkit.Lines("  ", r.Batch.Batches, fmtBatchRow))
		b.WriteString(testkit.Lines("  ", r.Batch.Callbacks, fmtCallback))
		for _, cu := range r.Batch.Cursors {
			fmt.Fprintf(&b, "  cursor %s=%d\n", cu.Name, cu.Value)
		}
	}
	testkit.Section(&b, "effects:", r.Effects, fmtEffect)
	testkit.Section(&b, "replies:", r.Replies, fmtReply)
	return b.String()
}

func fmtProc(p store.Processor) string {
	s := fmt.Sprintf("processor %s: owner=%s next-id=%d next-callback=%d", p.Name, p.Owner, p.NextID, p.NextCallback)
	if p.Paused {
		s += " paused"
	}
	if p.CallbackURL != "" {
		s += " url=" + p.CallbackURL
	}
	if p.AutoTick > 0 {
		s += " auto-tick=" + p.AutoTick.String()
	}
	if p.Lanes > 1 {
		s += fmt.Sprintf(" lanes=%d", p.Lanes)
	}
	return s
}

func fmtBatchRow(pb store.ProcBatch) string {
	var st batchState
	if err := json.Unmarshal(pb.Body, &st); err != nil {
		return fmt.Sprintf("batch %s/%s: body %v", pb.Processor, pb.ID, err)
	}
	s := fmt.Sprintf("batch %s/%s %s %s", pb.Processor, pb.ID, pb.Priority, pb.State)
	if pb.State == store.BatchQueued {
		s += fmt.Sprintf(" key=%d", pb.Key)
	}
	return s + fmtState(st)
}

func fmtState(st batchState) string {
	var b strings.Builder
	kind := "atomic"
	if st.Spec.ActionsConfig.NonAtomic != nil {
		kind = "nonatomic"
		fmt.Fprintf(&b, " next=%d/%d", st.Next, len(st.Spec.Msgs))
	}
	fmt.Fprintf(&b, " %s tries=%d started=%d", kind, st.Tries, st.Started)
	if st.CoolHeight > 0 {
		fmt.Fprintf(&b, " cool-height=%d", st.CoolHeight)
	}
	if !st.CoolUntil.IsZero() {
		b.WriteString(" cool-until=" + fmtOff(st.CoolUntil))
	}
	if st.Exec != "" {
		b.WriteString(" exec=" + st.Exec)
	}
	if st.UID != "" {
		b.WriteString(" uid=" + st.UID)
	}
	if st.LastError != "" {
		fmt.Fprintf(&b, " error=%q", st.LastError)
	}
	if st.Outcome != nil {
		b.WriteString(" outcome=" + fmtOutcome(*st.Outcome))
	}
	return b.String()
}

func fmtOutcome(o Outcome) string {
	s := string(o.Status)
	if o.Status == PartiallyExecuted || o.Executed > 0 {
		s += fmt.Sprintf("(%d)", o.Executed)
	}
	if o.Error != "" {
		s += fmt.Sprintf(" %q", o.Error)
	}
	return s
}

func fmtCallback(cb store.Callback) string {
	var body CallbackBody
	_ = json.Unmarshal(cb.Body, &body)
	s := fmt.Sprintf("callback %s/%d %s key=%s %s attempts=%d outcome=%s", cb.Processor, cb.Seq, cb.BatchID, cb.Key,
		cb.State, cb.Attempts, fmtOutcome(body.Outcome))
	if !cb.NextAt.IsZero() {
		s += " next-at=" + fmtOff(cb.NextAt)
	}
	if cb.LastError != "" {
		s += fmt.Sprintf(" error=%q", cb.LastError)
	}
	if !cb.DeliveredAt.IsZero() {
		s += " delivered-at=" + fmtOff(cb.DeliveredAt)
	}
	return s
}

func fmtEffect(e Effect) string {
	switch e.Kind {
	case EffectSubmit:
		return fmt.Sprintf("submit %s queue=%s data=%s", e.Exec, e.Queue, e.Data)
	case EffectDeliver:
		var body CallbackBody
		_ = json.Unmarshal(e.Body, &body)
		return fmt.Sprintf("deliver %s/%d %s key=%s to %s: %s", e.Processor, e.Seq, e.BatchID, e.Key, e.URL, fmtOutcome(body.Outcome))
	}
	return e.Kind.String()
}

func fmtReply(r Reply) string {
	if r.Code != "" {
		s := fmt.Sprintf("#%d %s", r.Req, r.Code)
		if r.Field != "" {
			s += " field=" + r.Field
		}
		return s + ": " + r.Message
	}
	switch v := r.Body.(type) {
	case TickResult:
		s := fmt.Sprintf("#%d tick: %s", r.Req, v.Outcome)
		if v.BatchID != "" {
			s += fmt.Sprintf(" %s (%s)", v.BatchID, v.Priority)
		}
		if v.Action != nil {
			s += fmt.Sprintf(" action=%d", *v.Action)
		}
		if v.Exec != "" {
			s += fmt.Sprintf(" exec=%s attempt=%d", v.Exec, v.Attempt)
		}
		return s
	case store.Processor:
		return fmt.Sprintf("#%d created %s", r.Req, v.Name)
	}
	body, err := json.Marshal(r.Body)
	if err != nil {
		return fmt.Sprintf("#%d ok: %v", r.Req, err)
	}
	return fmt.Sprintf("#%d ok %s", r.Req, body)
}

// fmtQueues prints the core's processors as it holds them: each queue in
// order, the executions and the pending map.
func (h *procHarness) fmtQueues(only string) string {
	var b strings.Builder
	c := h.c
	for _, name := range c.names {
		if only != "" && name != only {
			continue
		}
		p := c.procs[name]
		fmt.Fprintf(&b, "%s:", name)
		if p.rec.Paused {
			b.WriteString(" paused")
		}
		fmt.Fprintf(&b, " head=%d now=%s\n", c.head, fmtOff(c.now))
		for qi, pr := range []Priority{High, Medium} {
			fmt.Fprintf(&b, "  %s:", pr)
			if p.queues[qi].Len() == 0 {
				b.WriteString(" (empty)")
			}
			p.queues[qi].Each(func(i int, pb *pbatch) bool {
				fmt.Fprintf(&b, " %s", pb.rec.ID)
				return true
			})
			b.WriteString("\n")
		}
		var ids []string
		for id, pb := range p.live {
			if pb.rec.State != store.BatchQueued {
				ids = append(ids, id)
			}
		}
		sort.Strings(ids)
		for _, id := range ids {
			pb := p.live[id]
			fmt.Fprintf(&b, "  %s %s%s\n", pb.rec.State, id, fmtState(pb.st))
		}
		var seqs []int64
		for seq := range p.cbs {
			seqs = append(seqs, seq)
		}
		slices.Sort(seqs)
		for _, seq := range seqs {
			cb := p.cbs[seq]
			st := "waiting"
			if cb.inflight {
				st = "delivering"
			}
			fmt.Fprintf(&b, "  callback %d %s %s attempts=%d next-at=%s\n", seq, cb.rec.Key, st, cb.rec.Attempts, fmtOff(cb.rec.NextAt))
		}
	}
	testkit.Section(&b, "unanswered:", h.out, fmtEffect)
	if d := c.NextDeadline(); !d.IsZero() {
		b.WriteString("next deadline " + fmtOff(d) + "\n")
	}
	return b.String()
}
