package cluster

import (
	"slices"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/distseq/distseqpb"
)

// One test per scenario of seed 003 ("Detailed Walkthrough", "Sender's
// responsibility"), each asserting the outcome the document states. The
// roles (preferred coordinator, next, ...) are read off the ring, so they
// hold for any committee names.

// TestScenarioHappyPath: "Simple happy path". Every sender delegates to
// the preferred coordinator, which assembles (the sender answers),
// gathers an endorsement from every member, asks the sender for leave to
// dispatch, and dispatches; the sender sees each step.
func TestScenarioHappyPath(t *testing.T) {
	w := newWorld(t, Config{})
	r := w.headRange()
	w.untilAllIn(r, 0)
	coord := w.pref(w.rangeOf("A"))[0]
	var ids []string
	for i, n := range w.c.Nodes() {
		ids = append(ids, w.submit(n.ID, uint64(100+i), ""))
	}
	w.untilConfirmed(5*time.Second, ids...)
	if w.headRange() != r {
		t.Fatalf("the run crossed a range boundary (range %d -> %d): pick a later start", r, w.headRange())
	}
	want := []distseq.State{distseq.Pending, distseq.Delegating, distseq.Delegated, distseq.Assembling, distseq.Delegated,
		distseq.Prepared, distseq.Dispatched, distseq.Confirmed}
	for _, id := range ids {
		s := senderOf(id)
		w.wantDispatcher(id, coord)
		if got := w.delegations(id); s != coord && !slices.Equal(got, []distseq.NodeID{coord}) {
			t.Errorf("%s delegated to %v, want [%s]", id, got, coord)
		}
		if got := w.senderStates(id); !slices.Equal(got, want) {
			t.Errorf("%s sender states %v, want %v", id, got, want)
		}
		if s == coord {
			continue // its own messages stay inside the core
		}
		if n := len(w.sends("AssembleRequest", coord, s, id)); n != 1 {
			t.Errorf("%s: %d AssembleRequests, want 1", id, n)
		}
		if n := len(w.sends("AssembleResponse", s, coord, id)); n != 1 {
			t.Errorf("%s: %d AssembleResponses, want 1", id, n)
		}
		if n := len(w.sends("DispatchConfirmation", s, coord, id)); n != 1 {
			t.Errorf("%s: %d DispatchConfirmations, want 1", id, n)
		}
		if n := len(w.sends("TransactionDispatched", coord, s, id)); n != 1 {
			t.Errorf("%s: %d TransactionDispatched, want 1", id, n)
		}
		for _, m := range w.others(coord) {
			if n := len(w.sends("EndorsementResponse", m, coord, id)); n != 1 {
				t.Errorf("%s: %s endorsed %d times, want 1", id, m, n)
			}
		}
	}
	for _, n := range w.c.Nodes() {
		if n.ID != coord && len(n.Core().Coordinated(Group(0))) > 0 {
			t.Errorf("%s coordinates %v, only %s should", n.ID, n.Core().Coordinated(Group(0)), coord)
		}
		if got := n.Sent["DelegationRejected"] + n.Sent["DispatchConfirmationError"]; got != 0 {
			t.Errorf("%s sent %d rejections or refusals on the happy path", n.ID, got)
		}
	}
}

// TestScenarioSwitchover: "Coordinator switchover". A transaction is
// delegated to range r's coordinator and not dispatched (one endorsement
// is lost) when the block height enters range r+1: the old coordinator
// abandons it, the sender delegates it to the new coordinator, which
// dispatches it.
func TestScenarioSwitchover(t *testing.T) {
	w := newWorld(t, Config{})
	r := w.switchRange()
	old, next := w.pref(r)[0], w.pref(r + 1)[0]
	rest := w.others(old, next)
	sender, endorser := rest[0], rest[1]
	t.Logf("range %d: old %s, new %s, sender %s, endorser %s", r, old, next, sender, endorser)
	w.drop = func(n *Node, s distseq.Send) bool { // the endorser's answers to old are lost
		return n.ID == endorser && s.To == old && s.Kind == "EndorsementResponse"
	}
	id := w.submit(sender, 100, "")
	w.until(5*time.Second, "old coordinates "+id, func() bool { return w.coord(old, distseq.RoleCoordinator, id, distseq.CAttestation) > 0 })
	w.untilAllIn(r+1, 0)
	w.drop = nil
	w.untilConfirmed(10*time.Second, id)

	if w.coord(old, distseq.RoleCoordinator, id, distseq.CAbandoned) != 1 {
		t.Errorf("old coordinator %s did not abandon %s", old, id)
	}
	w.wantDispatcher(id, next)
	if got := w.delegations(id); len(got) < 2 || got[0] != old || got[len(got)-1] != next {
		t.Errorf("%s delegated to %v, want %s first and %s last", id, got, old, next)
	}
	if h := w.c.ConfirmedAt[id]; h/w.rangeSize() != r+1 {
		t.Errorf("%s confirmed at height %d, want range %d", id, h, r+1)
	}
}

// TestScenarioSwitchoverNewCoordinatorBehind: the new coordinator's
// indexer is still in range r when the sender delegates for range r+1:
// it rejects the delegation (MismatchedBlockHeight, with its own, lower,
// height) and the sender keeps retrying until it catches up.
func TestScenarioSwitchoverNewCoordinatorBehind(t *testing.T) {
	w := newWorld(t, Config{})
	r := w.switchRange()
	old, next := w.pref(r)[0], w.pref(r + 1)[0]
	sender := w.others(old, next)[0]
	w.c.Node(next).Hold = true
	w.untilAllIn(r+1, 0)
	id := w.submit(sender, 100, "")
	rejected := func() []sendRec {
		var out []sendRec
		for _, s := range w.sends("DelegationRejected", next, sender, id) {
			if s.Env.GetDelegationRejected().GetRejectReason() == distseqpb.DelegationRequestRejectedReason_MismatchedBlockHeight {
				out = append(out, s)
			}
		}
		return out
	}
	w.until(5*time.Second, "two MismatchedBlockHeight rejections", func() bool { return len(rejected()) >= 2 })
	for _, s := range rejected() {
		if h := s.Env.GetDelegationRejected().GetMismatchedBlockHeightDetail().GetObservedBlockHeight(); uint64(h)/w.rangeSize() != r {
			t.Errorf("rejection carries observed height %d, want one in range %d", h, r)
		}
	}
	if got := w.delegations(id); slices.ContainsFunc(got, func(n distseq.NodeID) bool { return n != next }) {
		t.Errorf("%s delegated to %v while %s was behind, want only %s", id, got, next, next)
	}
	if w.txState(id) == distseq.Delegated {
		t.Errorf("%s Delegated while its coordinator is behind", id)
	}
	w.c.Node(next).Hold = false
	w.untilConfirmed(10*time.Second, id)
	w.wantDispatcher(id, next)
	if n := len(w.sends("DelegationAccepted", next, sender, id)); n == 0 {
		t.Errorf("%s never accepted %s", next, id)
	}
}

// TestScenarioSwitchoverOldCoordinatorBehind: the old coordinator's
// indexer stays in range r; it gathered every endorsement before the
// boundary but its request for dispatch confirmation reaches the sender
// only after the sender delegated to the new coordinator: the sender
// refuses it, and the new coordinator's copy is the one dispatched.
func TestScenarioSwitchoverOldCoordinatorBehind(t *testing.T) {
	w := newWorld(t, Config{})
	r := w.switchRange()
	old, next := w.pref(r)[0], w.pref(r + 1)[0]
	sender := w.others(old, next)[0]
	w.untilAllIn(r, w.rangeSize()-3) // three blocks before the boundary
	w.c.Node(old).Hold = true
	var held int
	w.drop = func(n *Node, s distseq.Send) bool { // old's request waits until the sender moved on
		if n.ID != old || s.Kind != "RequestDispatchConfirmation" {
			return false
		}
		v, _ := w.c.Node(sender).Core().Tx(txOf(s.Env))
		if v.Coordinator == old {
			held++
			return true
		}
		return false
	}
	id := w.submit(sender, 100, "")
	w.until(5*time.Second, "old asks the sender to confirm", func() bool { return held > 0 })
	w.until(10*time.Second, "the sender delegates to the new coordinator", func() bool { return slices.Contains(w.delegations(id), next) })
	refused := func() bool { return len(w.sends("DispatchConfirmationError", sender, old, id)) > 0 }
	w.until(5*time.Second, "the sender refuses the old request", refused)
	w.c.Node(old).Hold = false
	w.drop = nil
	w.untilConfirmed(10*time.Second, id)
	if n := len(w.sends("DispatchConfirmation", sender, old, id)); n != 0 {
		t.Errorf("%s granted old coordinator %s's dispatch %d times", sender, old, n)
	}
	if w.coord(old, distseq.RoleCoordinator, id, distseq.CAbandoned) == 0 {
		t.Errorf("old coordinator %s did not abandon %s", old, id)
	}
	w.wantDispatcher(id, next)
}

// TestScenarioSwitchoverSenderBehind: both coordinators are in range r+1,
// the sender's indexer is still in r: it delegates to the old one, which
// rejects it with its (higher) height; the sender waits until its own
// indexer enters r+1, then delegates to the new coordinator.
func TestScenarioSwitchoverSenderBehind(t *testing.T) {
	w := newWorld(t, Config{})
	r := w.switchRange()
	old, next := w.pref(r)[0], w.pref(r + 1)[0]
	sender := w.others(old, next)[0]
	w.c.Node(sender).Hold = true
	w.untilAllIn(r+1, 0)
	id := w.submit(sender, 100, "")
	rej := func() []sendRec { return w.sends("DelegationRejected", old, sender, id) }
	w.until(5*time.Second, "the old coordinator rejects", func() bool { return len(rej()) > 0 })
	d := rej()[0].Env.GetDelegationRejected()
	if d.GetRejectReason() != distseqpb.DelegationRequestRejectedReason_MismatchedBlockHeight {
		t.Fatalf("rejected with %v, want MismatchedBlockHeight", d.GetRejectReason())
	}
	if h := uint64(d.GetMismatchedBlockHeightDetail().GetObservedBlockHeight()); h/w.rangeSize() != r+1 {
		t.Errorf("rejection carries the coordinator's height %d, want one in range %d", h, r+1)
	}
	w.run(3 * time.Second) // the sender waits for its indexer: no delegation meanwhile
	if got := w.delegations(id); !slices.Equal(got, []distseq.NodeID{old}) {
		t.Errorf("%s delegated to %v while its sender was behind, want [%s]", id, got, old)
	}
	if s := w.txState(id); s != distseq.Pending {
		t.Errorf("%s is %s while its sender waits for the range, want Pending", id, s)
	}
	w.c.Node(sender).Hold = false
	w.untilConfirmed(10*time.Second, id)
	if got := w.delegations(id); !slices.Equal(got, []distseq.NodeID{old, next}) {
		t.Errorf("%s delegated to %v, want [%s %s]", id, got, old, next)
	}
	w.wantDispatcher(id, next)
}
