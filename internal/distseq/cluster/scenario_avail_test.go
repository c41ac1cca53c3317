package cluster

import (
	"slices"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/distseq/distseqpb"
)

// Seed 003, "Node availability detection", "Coordinator becomes
// unavailable", "Submitter becomes unavailable", "Network partition", and
// the sender's refusal of a stale dispatch confirmation request. These
// runs last longer than one 10-block range, so they use ranges of 1000
// blocks: the preference stays that of range 0 and no switchover mixes in.

const longRange = 1000

// delegatedTo reports whether every id is Delegated to coord at its
// sender.
func (w *world) delegatedTo(coord distseq.NodeID, ids ...string) func() bool {
	return func() bool {
		for _, id := range ids {
			n := w.c.Node(senderOf(id))
			if n.Core() == nil {
				return false
			}
			v, ok := n.Core().Tx(id)
			if !ok || v.State != distseq.Delegated || v.Coordinator != coord {
				return false
			}
		}
		return true
	}
}

// stallAt drops every endorsement sent to coord: its transactions stay in
// flight, undispatched.
func stallAt(coord distseq.NodeID) func(n *Node, s distseq.Send) bool {
	return func(n *Node, s distseq.Send) bool { return s.To == coord && s.Kind == "EndorsementResponse" }
}

// TestScenarioCoordinatorUnavailable: the preferred coordinator (A) has
// delegations from B, C and D in flight and crashes for good; B and D
// miss its heartbeats, try A again, time out and delegate to the next
// closest member (C), which coordinates its own transaction too and
// heartbeats. When A comes back, everyone moves back to A and C abandons
// what it has in flight. Threshold 3: the three live members endorse.
func TestScenarioCoordinatorUnavailable(t *testing.T) {
	w := newWorld(t, Config{Threshold: 3, Core: distseq.CoreConfig{RangeSize: longRange}})
	p := w.pref(0)
	a, c := p[0], p[1]
	b, d := p[2], p[3]
	t.Logf("A=%s (preferred), C=%s (next), B=%s, D=%s", a, c, b, d)

	w.drop = stallAt(a)
	ids := []string{w.submit(b, 101, ""), w.submit(c, 102, ""), w.submit(d, 103, "")}
	w.until(5*time.Second, "B, C and D delegated to A", w.delegatedTo(a, ids...))
	w.c.Crash(a)
	w.drop = nil
	crashedAt := w.c.Now()
	w.untilConfirmed(30*time.Second, ids...)
	for _, id := range ids {
		w.wantDispatcher(id, c)
	}
	for _, id := range []string{ids[0], ids[2]} {
		got := w.delegations(id)
		if len(got) < 3 || got[0] != a || got[1] != a || got[len(got)-1] != c {
			t.Errorf("%s delegated to %v, want A (%s), A again after the missed heartbeats, then C (%s)", id, got, a, c)
		}
		if un := w.c.Node(senderOf(id)).Core().Unavailable(Group(0)); !slices.Contains(un, a) {
			t.Errorf("%s holds %v unavailable, want A (%s) among them", senderOf(id), un, a)
		}
	}
	for _, m := range []distseq.NodeID{b, d} {
		hb := 0
		for _, s := range w.sends("CoordinatorHeartbeat", c, m, "") {
			if s.At.After(crashedAt) {
				hb++
			}
		}
		if hb == 0 {
			t.Errorf("C (%s) sent %s no heartbeat while it coordinated", c, m)
		}
	}

	// A comes back while C coordinates new work: everyone moves back to A.
	w.drop = stallAt(c)
	more := []string{w.submit(b, 104, ""), w.submit(d, 105, "")}
	w.until(10*time.Second, "B and D delegated to C", w.delegatedTo(c, more...))
	restartedAt := w.c.Now()
	if err := w.c.Restart(w.ctx, a); err != nil {
		t.Fatal(err)
	}
	w.until(10*time.Second, "B and D moved back to A", func() bool {
		return w.delegatedTo(a, more...)() || w.allConfirmed(more...)()
	})
	w.drop = nil
	w.untilConfirmed(20*time.Second, more...)
	for _, id := range more {
		w.wantDispatcher(id, a)
		if w.coord(c, distseq.RoleCoordinator, id, distseq.CAbandoned) == 0 {
			t.Errorf("C (%s) did not abandon %s when A came back", c, id)
		}
	}
	startups := 0
	for _, s := range w.sends("Startup", a, "", "") {
		if !s.At.Before(restartedAt) {
			startups++
		}
	}
	if startups == 0 {
		t.Errorf("A (%s) sent no startup notification after its restart", a)
	}
	last := w.submit(c, 106, "")
	w.untilConfirmed(10*time.Second, last)
	w.wantDispatcher(last, a)
}

// TestScenarioSubmitterUnavailable: the coordinator commits its dispatch
// and crashes before it submits anything, and stays down. The sender,
// granted the dispatch, hears no submitter heartbeat and re-delegates;
// the next coordinator dispatches it. When the first comes back and
// submits its durable dispatch too, the base ledger confirms the intent
// once all the same.
func TestScenarioSubmitterUnavailable(t *testing.T) {
	w := newWorld(t, Config{Threshold: 3, Core: distseq.CoreConfig{RangeSize: longRange}})
	p := w.pref(0)
	sub, next, sender := p[0], p[1], p[2]
	var id string
	w.hook = func(n *Node, in distseq.Input, r *distseq.Ready) Crash {
		if n.ID == sub && id != "" && slices.ContainsFunc(r.Transitions, func(tr distseq.Transition) bool {
			return tr.Role == distseq.RoleCoordinator && tr.TxID == id && tr.To == distseq.CDispatched
		}) {
			return CrashAfterCommit
		}
		return NoCrash
	}
	id = w.submit(sender, 100, "")
	w.until(5*time.Second, "the submitter crashes after its dispatch commit", func() bool { return !w.c.Node(sub).Up() })
	w.hook = nil
	if d, _ := w.c.Node(sub).Store.DistseqOpenDispatches(w.ctx); !slices.ContainsFunc(d, func(x storeDispatch) bool { return x.TxID == id }) {
		t.Fatalf("the dispatch of %s is not durable at %s", id, sub)
	}
	w.untilConfirmed(30*time.Second, id)
	st := w.senderStates(id)
	if i := slices.Index(st, distseq.Prepared); i < 0 || i+1 >= len(st) || st[i+1] != distseq.Pending {
		t.Errorf("%s sender states %v, want Prepared then Pending (the re-delegation)", id, st)
	}
	if got := w.delegations(id); len(got) < 2 || got[0] != sub || got[len(got)-1] != next {
		t.Errorf("%s delegated to %v, want %s first and %s last", id, got, sub, next)
	}
	if got := w.dispatchers(id); !slices.Equal(got, []distseq.NodeID{next}) {
		t.Errorf("%s dispatched by %v (as recorded), want [%s]", id, got, next)
	}
	if err := w.c.Restart(w.ctx, sub); err != nil {
		t.Fatal(err)
	}
	w.run(5 * time.Second)
	w.onceOnChain(id)
}

// TestScenarioPartition: A+B | C+D, A preferred, C the next on its side.
func TestScenarioPartition(t *testing.T) {
	sides := func(w *world) (a, b, c, d distseq.NodeID) {
		p := w.pref(0)
		return p[0], p[3], p[1], p[2] // A, B | C, D
	}
	// Threshold 2: both halves get their transactions through, each with
	// its own coordinator (the base ledger would stop a double spend; the
	// check is that no state was spent twice). Healed while both
	// coordinate, everyone converges on A.
	t.Run("Threshold2", func(t *testing.T) {
		w := newWorld(t, Config{Threshold: 2, Core: distseq.CoreConfig{RangeSize: longRange}})
		a, b, c, d := sides(w)
		t.Logf("A=%s B=%s | C=%s D=%s", a, b, c, d)
		w.c.Partition([]distseq.NodeID{a, b}, []distseq.NodeID{c, d})
		ids := []string{w.submit(a, 101, ""), w.submit(b, 102, ""), w.submit(c, 103, ""), w.submit(d, 104, "")}
		w.untilConfirmed(30*time.Second, ids...)
		for _, id := range ids {
			want := a
			if s := senderOf(id); s == c || s == d {
				want = c
			}
			if got := w.dispatchers(id); len(got) == 0 || got[len(got)-1] != want {
				t.Errorf("%s dispatched by %v during the partition, want %s's side's coordinator %s", id, got, senderOf(id), want)
			}
		}
		// In flight on both sides, then healed.
		w.drop = func(n *Node, s distseq.Send) bool { return stallAt(a)(n, s) || stallAt(c)(n, s) }
		more := []string{w.submit(b, 105, ""), w.submit(d, 106, "")}
		w.until(10*time.Second, "both sides coordinate", func() bool {
			return w.delegatedTo(a, more[0])() && w.delegatedTo(c, more[1])()
		})
		w.c.Heal()
		w.until(10*time.Second, "all converge on A", w.delegatedTo(a, more...))
		w.drop = nil
		w.untilConfirmed(20*time.Second, more...)
		for _, id := range more {
			w.wantDispatcher(id, a)
		}
		if w.c.Node(c).Core().Coordinating(Group(0)) {
			t.Errorf("C (%s) still coordinates after the heal", c)
		}
	})
	// All members must endorse: neither half gets anything through; once
	// healed, every transaction is confirmed, all through A.
	t.Run("AllMembers", func(t *testing.T) {
		w := newWorld(t, Config{Core: distseq.CoreConfig{RangeSize: longRange}})
		a, b, c, d := sides(w)
		t.Logf("A=%s B=%s | C=%s D=%s", a, b, c, d)
		w.c.Partition([]distseq.NodeID{a, b}, []distseq.NodeID{c, d})
		ids := []string{w.submit(a, 101, ""), w.submit(b, 102, ""), w.submit(c, 103, ""), w.submit(d, 104, "")}
		w.run(10 * time.Second)
		for _, id := range ids {
			if got := w.dispatchers(id); len(got) != 0 || w.c.Confirmed[Group(0)+"/"+id] != 0 {
				t.Errorf("%s dispatched by %v during the partition, want nothing dispatched", id, got)
			}
		}
		w.c.Heal()
		w.untilConfirmed(40*time.Second, ids...)
		for _, id := range ids {
			w.wantDispatcher(id, a)
		}
	})
}

// TestScenarioDispatchConfirmationRefused: the coordinator's request for
// leave to dispatch is held up, and so are its heartbeats, until the
// sender re-delegated; the first request, delivered late, is refused
// (DispatchConfirmationError), the one for the new delegation granted,
// and the intent dispatched and confirmed once.
func TestScenarioDispatchConfirmationRefused(t *testing.T) {
	w := newWorld(t, Config{Core: distseq.CoreConfig{RangeSize: longRange}})
	coord := w.pref(0)[0]
	sender := w.others(coord)[0]
	var id string
	var held []*distseqpb.Envelope
	w.drop = func(n *Node, s distseq.Send) bool {
		if n.ID != coord || s.To != sender || len(w.delegations(id)) > 1 {
			return false
		}
		switch s.Kind {
		case "CoordinatorHeartbeat":
			return true
		case "RequestDispatchConfirmation":
			held = append(held, s.Env)
			return true
		}
		return false
	}
	id = w.submit(sender, 100, "")
	w.until(10*time.Second, "the sender re-delegates", func() bool { return len(w.delegations(id)) > 1 })
	if len(held) == 0 {
		t.Fatal("no request for leave to dispatch was held")
	}
	first := held[0].GetRequestDispatchConfirmation()
	w.inject(coord, sender, held[0])
	w.untilConfirmed(10*time.Second, id)
	refused, granted := false, 0
	for _, s := range w.sends("DispatchConfirmationError", sender, coord, id) {
		if s.Env.GetDispatchConfirmationError().GetRequestId() == first.GetRequestId() {
			refused = true
		}
	}
	if !refused {
		t.Errorf("%s did not refuse the first delegation's request %s", sender, first.GetRequestId())
	}
	for _, s := range w.sends("DispatchConfirmation", sender, coord, id) {
		if s.Env.GetDispatchConfirmation().GetDelegationId() == first.GetDelegationId() {
			t.Errorf("%s granted the first delegation's dispatch", sender)
		}
		granted++
	}
	if granted == 0 {
		t.Errorf("%s granted no dispatch", sender)
	}
	w.wantDispatcher(id, coord)
}
