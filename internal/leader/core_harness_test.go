package leader

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit"
)

// memLeaderStore is an in-memory LeaderStore for the core's tests: it
// applies every committed Ready's writes with the upsert semantics of
// store.LeaderChanges and checks, as it applies them, what no store may
// see: a walk held by two records (the store refuses it: ErrWalkIndexed),
// a record changing its walk, a record that ended Successful coming back,
// a Dead record moving anywhere but back to Queued with no retries (an
// admin's retry), and
// a cursor moving back.
type memLeaderStore struct {
	events  map[int64]store.LeaderEvent
	walks   map[string]int64
	chans   map[int]store.LeaderChannel
	cursors map[string]uint64
	bad     []string
}

func newMemLeaderStore() *memLeaderStore {
	return &memLeaderStore{events: map[int64]store.LeaderEvent{}, walks: map[string]int64{},
		chans: map[int]store.LeaderChannel{}, cursors: map[string]uint64{}}
}

func (m *memLeaderStore) badf(format string, args ...any) {
	m.bad = append(m.bad, fmt.Sprintf(format, args...))
}

func (m *memLeaderStore) apply(c store.LeaderChanges) {
	for _, e := range c.Events {
		if id, ok := m.walks[e.Walk]; ok && id != e.ID {
			m.badf("event %d: walk %s is held by event %d (the store refuses it: ErrWalkIndexed)", e.ID, e.Walk, id)
			continue
		}
		if old, ok := m.events[e.ID]; ok {
			switch {
			case old.Walk != e.Walk:
				m.badf("event %d changed its walk from %s to %s", e.ID, old.Walk, e.Walk)
			case old.Status == store.EventSuccessful && e.Status != store.EventSuccessful:
				m.badf("event %d ended Successful and came back %s", e.ID, e.Status)
			case old.Status == store.EventDead && e.Status != store.EventDead &&
				(e.Retried != 0 || e.Status != store.EventQueued && e.Phase != PhaseInvoke):
				// An admin's retry puts it back to Queued (and it may start
				// in the same turn), its retries counted afresh.
				m.badf("event %d ended Dead and came back %s %s retried=%d", e.ID, e.Status, e.Phase, e.Retried)
			case e.Reports < old.Reports:
				m.badf("event %d: its result count went back from %d to %d", e.ID, old.Reports, e.Reports)
			}
		}
		m.events[e.ID] = e
		m.walks[e.Walk] = e.ID
	}
	for _, ch := range c.Channels {
		m.chans[ch.Index] = ch
	}
	for _, cu := range c.Cursors {
		if cu.Value < m.cursors[cu.Name] {
			m.badf("cursor %s moved back from %d to %d", cu.Name, m.cursors[cu.Name], cu.Value)
		}
		m.cursors[cu.Name] = cu.Value
	}
}

// snapshot is what LeaderSnapshot reads.
func (m *memLeaderStore) snapshot() store.LeaderSnapshot {
	var s store.LeaderSnapshot
	for _, id := range m.ids() {
		if e := m.events[id]; e.Status == store.EventQueued || e.Status == store.EventActive {
			s.Events = append(s.Events, e)
		}
	}
	idx := make([]int, 0, len(m.chans))
	for i := range m.chans {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for _, i := range idx {
		s.Channels = append(s.Channels, m.chans[i])
	}
	names := make([]string, 0, len(m.cursors))
	for n := range m.cursors {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s.Cursors = append(s.Cursors, store.Cursor{Name: n, Value: m.cursors[n]})
	}
	return s
}

// ids is the records' IDs in order.
func (m *memLeaderStore) ids() []int64 {
	out := make([]int64, 0, len(m.events))
	for id := range m.events {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// known reports whether the store indexed walk (the driver's
// Request.Known).
func (m *memLeaderStore) known(walk string) bool { _, ok := m.walks[walk]; return ok }

// leaderHarness drives a core as its driver would: it steps inputs, takes
// the Ready, commits it to a memLeaderStore, advances, and keeps the
// effects not answered yet. Every turn checks CheckInvariants and the
// store's checks.
type leaderHarness struct {
	t   testing.TB
	cfg CoreConfig
	c   *Core
	st  *memLeaderStore
	now time.Time
	req uint64
	out []Effect        // effects not answered yet, in the order asked
	sum *testkit.Digest // when set, takes every Ready's JSON (committed or not)
}

func newLeaderHarness(t testing.TB, cfg CoreConfig) *leaderHarness {
	h := &leaderHarness{t: t, cfg: cfg, st: newMemLeaderStore(), now: t0}
	h.restart()
	return h
}

// restart drops the core and its unanswered effects, and rebuilds it from
// the store. It returns the effects lost and the new core's first Ready.
func (h *leaderHarness) restart() ([]Effect, Ready) {
	c, err := NewCore(h.cfg, h.now, h.st.snapshot())
	if err != nil {
		h.t.Fatalf("NewCore: %v", err)
	}
	lost := h.out
	h.c, h.out = c, nil
	return lost, h.turn()
}

// crash steps ins, takes the Ready and drops it uncommitted (a kill in the
// middle of the turn), then restarts. It returns the Ready lost, the
// effects lost and the new core's first Ready.
func (h *leaderHarness) crash(ins ...Input) (Ready, []Effect, Ready) {
	for _, in := range ins {
		h.c.Step(h.stamp(in))
	}
	r := h.c.Ready()
	h.sum.Add(h.t, r)
	lost, first := h.restart()
	return r, lost, first
}

// nextReq numbers a caller's request.
func (h *leaderHarness) nextReq() uint64 { h.req++; return h.req }

func (h *leaderHarness) stamp(in Input) Input {
	if in.At.IsZero() {
		in.At = h.now
	}
	return in
}

// step takes inputs (stamped with the harness's clock when At is zero) and
// returns the turn's Ready.
func (h *leaderHarness) step(ins ...Input) Ready {
	h.t.Helper()
	for _, in := range ins {
		h.c.Step(h.stamp(in))
	}
	return h.turn()
}

// turn checks the invariants, takes the Ready, commits it and advances.
func (h *leaderHarness) turn() Ready {
	h.t.Helper()
	testkit.NoneBroken(h.t, "invariants broken", h.c.CheckInvariants())
	r := h.c.Ready()
	h.st.apply(r.Batch)
	testkit.NoneBroken(h.t, "store checks broken", h.st.bad)
	h.c.Advance()
	h.sum.Add(h.t, r)
	h.out = append(h.out, r.Effects...)
	return r
}

// takeEffect removes and returns the first unanswered effect that match
// accepts.
func (h *leaderHarness) takeEffect(match func(Effect) bool) (Effect, bool) {
	return testkit.Take(&h.out, match)
}

func (h *leaderHarness) take(kind EffectKind, id int64) (Effect, bool) {
	return h.takeEffect(func(e Effect) bool { return e.Kind == kind && e.ID == id })
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
		b.WriteString(testkit.Lines("  ", r.Batch.Events, fmtEvent))
		b.WriteString(testkit.Lines("  ", r.Batch.Channels, fmtChannel))
		for _, cu := range r.Batch.Cursors {
			fmt.Fprintf(&b, "  cursor %s=%d\n", cu.Name, cu.Value)
		}
	}
	testkit.Section(&b, "effects:", r.Effects, fmtEffect)
	testkit.Section(&b, "replies:", r.Replies, fmtReply)
	return b.String()
}

func fmtEvent(e store.LeaderEvent) string {
	var b strings.Builder
	fmt.Fprintf(&b, "event %d %s %s", e.ID, e.Walk, e.Status)
	if e.Phase != "" {
		b.WriteString(" " + e.Phase)
	}
	fmt.Fprintf(&b, " retried=%d", e.Retried)
	if e.Reports > 0 || e.Phase == PhaseReport || e.Phase == PhaseSent {
		if e.OK {
			b.WriteString(" ok")
		} else {
			b.WriteString(" failure")
		}
		if len(e.Output) > 0 {
			b.WriteString(" output=" + string(e.Output))
		}
	}
	if e.Channel >= 0 {
		fmt.Fprintf(&b, " ch=%d", e.Channel)
	}
	if e.Reports > 0 {
		fmt.Fprintf(&b, " reports=%d", e.Reports)
	}
	if e.ResultUID != "" {
		b.WriteString(" uid=" + e.ResultUID)
	}
	if !e.ActiveAt.IsZero() {
		b.WriteString(" active-at=" + fmtOff(e.ActiveAt))
	}
	if e.Error != "" {
		fmt.Fprintf(&b, " error=%q", e.Error)
	}
	return b.String()
}

func fmtChannel(ch store.LeaderChannel) string {
	s := fmt.Sprintf("channel %d %s", ch.Index, ch.Account)
	if !ch.BlockedUntil.IsZero() {
		s += " blocked-until=" + fmtOff(ch.BlockedUntil)
	}
	if ch.LastError != "" {
		s += fmt.Sprintf(" last-error=%q", ch.LastError)
	}
	return s
}

func fmtEffect(e Effect) string {
	switch e.Kind {
	case EffectExecute:
		return fmt.Sprintf("execute %d %s tool=%s attempt=%d", e.ID, e.Walk, e.Tool, e.Attempt)
	case EffectReport:
		res := "failure"
		if e.OK {
			res = "ok"
		}
		s := fmt.Sprintf("report %d %s %s %s on %s key=%s", e.ID, e.Walk, res, e.Output, e.Queue, e.Key)
		if e.Again {
			s += " again"
		}
		return s
	case EffectCheck:
		return fmt.Sprintf("check %d %s", e.ID, e.Walk)
	}
	return fmt.Sprintf("effect(%d)", e.Kind)
}

func fmtReply(r Reply) string {
	if r.Code != "" {
		return fmt.Sprintf("#%d %s: %s", r.Req, r.Code, r.Message)
	}
	if e, ok := r.Body.(store.LeaderEvent); ok {
		return fmt.Sprintf("#%d ok %s", r.Req, fmtEvent(e))
	}
	body, err := json.Marshal(r.Body)
	if err != nil {
		return fmt.Sprintf("#%d ok: %v", r.Req, err)
	}
	return fmt.Sprintf("#%d ok %s", r.Req, body)
}

// fmtState prints the store's records, then the core as it holds them: the
// run queue, the executions, the line of results waiting for a channel,
// the channels, the unanswered effects and the next deadline.
func (h *leaderHarness) fmtState() string {
	var b strings.Builder
	c := h.c
	b.WriteString("records:\n")
	if len(h.st.events) == 0 {
		b.WriteString("  (none)\n")
	}
	for _, id := range h.st.ids() {
		b.WriteString("  " + fmtEvent(h.st.events[id]) + "\n")
	}
	fmt.Fprintf(&b, "cursor=%d now=%s\n", c.cursor, fmtOff(c.now))
	b.WriteString("run queue:")
	if len(c.runq) == 0 {
		b.WriteString(" (empty)")
	}
	for _, id := range c.runq {
		fmt.Fprintf(&b, " %d", id)
	}
	fmt.Fprintf(&b, "\nrunning (%d of %d):", c.running, c.cfg.MaxActive)
	for _, id := range ids(c.events) {
		if c.events[id].running {
			fmt.Fprintf(&b, " %d", id)
		}
	}
	b.WriteString("\nwaiting for a channel:")
	for _, id := range c.waiting {
		if e := c.events[id]; e != nil && e.rec.Phase == PhaseReport {
			fmt.Fprintf(&b, " %d", id)
		}
	}
	b.WriteString("\nchannels:\n")
	for _, ch := range c.chans {
		state := "free"
		if c.now.Before(ch.rec.BlockedUntil) {
			state = "blocked until " + fmtOff(ch.rec.BlockedUntil)
		}
		fmt.Fprintf(&b, "  %d %s %s\n", ch.rec.Index, ch.rec.Account, state)
	}
	testkit.Section(&b, "unanswered:", h.out, fmtEffect)
	if d := c.NextDeadline(); !d.IsZero() {
		b.WriteString("next deadline " + fmtOff(d) + "\n")
	}
	return b.String()
}
