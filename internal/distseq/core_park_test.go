package distseq_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/distseq/distseqpb"
	"github.com/ordolabs/ordo/internal/distseq/token"
	"github.com/ordolabs/ordo/internal/store"
	"google.golang.org/protobuf/proto"
)

// parkRig is sender A of the committee A, B, C with one group g0: it keeps
// every Ready, and plays A-1's coordinator (whoever A delegates to) by
// hand.
type parkRig struct {
	t     *testing.T
	c     *distseq.Core
	now   time.Time
	n     int
	last  distseq.Ready
	rec   store.DistseqIntent // A-1's latest committed record
	coord distseq.NodeID      // A-1's active delegation
	deleg string
	// revertedCreators: what reads answer of the creators A reverted.
	revertedCreators []string
}

func newParkRig(t *testing.T, intents ...store.DistseqIntent) *parkRig {
	t.Helper()
	_, keys, members := committee()
	c, err := distseq.New(distseq.CoreConfig{Self: "A", Key: keys["A"], Domain: token.Domain{}, RangeSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	r := &parkRig{t: t, c: c, now: clock.Epoch}
	r.step(distseq.InputStart{Now: r.now, Incarnation: fmt.Sprintf("f%d", len(intents)), Height: 5,
		Groups: []store.DistseqGroup{{Contract: "g0", Members: members}}, Intents: intents})
	return r
}

// step runs one input; it notes A-1's record and delegation.
func (r *parkRig) step(in distseq.Input) distseq.Ready {
	r.t.Helper()
	rd, err := r.c.Step(in)
	if err != nil {
		r.t.Fatal(err)
	}
	for _, rec := range rd.Batch.Intents {
		if rec.TxID == "A-1" {
			r.rec = rec
		}
	}
	for _, s := range rd.Sends {
		if d := s.Env.GetDelegationCommand(); d != nil && d.GetTransactionId() == "A-1" {
			r.coord, r.deleg = s.To, d.GetDelegationId()
		}
	}
	r.last = rd
	return rd
}

// tick advances the clock by d in one-second ticks (the sender's timers).
func (r *parkRig) tick(d time.Duration) (states []distseq.State, reads []distseq.Effect) {
	for end := r.now.Add(d); r.now.Before(end); {
		r.now = r.now.Add(time.Second)
		rd := r.step(distseq.InputTick{Now: r.now})
		states = append(states, senderStates(rd)...)
		for _, e := range rd.Effects {
			if e.Kind == distseq.EffectReadSpends {
				reads = append(reads, e)
			}
		}
	}
	return states, reads
}

func senderStates(rd distseq.Ready) []distseq.State {
	var out []distseq.State
	for _, tr := range rd.Transitions {
		if tr.Role == distseq.RoleSender && tr.TxID == "A-1" {
			out = append(out, tr.To)
		}
	}
	return out
}

// fromCoord delivers body as A-1's coordinator's message.
func (r *parkRig) fromCoord(body *distseqpb.Envelope) distseq.Ready {
	r.t.Helper()
	r.n++
	body.ProtocolVersion, body.ContractAddress, body.MessageId = distseq.ProtocolVersion, "g0", fmt.Sprintf("%s/m%d", r.coord, r.n)
	raw, _ := proto.Marshal(body)
	return r.step(distseq.InputMessage{From: r.coord, Body: raw})
}

// grant: the coordinator asks leave to dispatch an assembly spending
// spends; the record naming them must be in the batch that goes with the
// grant.
func (r *parkRig) grant(spends ...string) {
	r.t.Helper()
	rd := r.fromCoord(&distseqpb.Envelope{Body: &distseqpb.Envelope_RequestDispatchConfirmation{RequestDispatchConfirmation: &distseqpb.RequestDispatchConfirmation{
		TransactionId: "A-1", DelegationId: r.deleg, ContractAddress: "g0", RequestId: fmt.Sprintf("dc%d", r.n), Spends: spends}}})
	granted := slices.ContainsFunc(rd.Sends, func(s distseq.Send) bool { return s.Env.GetDispatchConfirmation() != nil })
	recorded := slices.ContainsFunc(rd.Batch.Intents, func(in store.DistseqIntent) bool {
		return in.TxID == "A-1" && slices.ContainsFunc(in.Granted, func(g store.DistseqGrant) bool { return slices.Equal(g.Spends, slices.Sorted(slices.Values(spends))) })
	})
	if !granted || !recorded {
		r.t.Fatalf("grant of %v: granted %v, recorded with it %v (batch %+v)", spends, granted, recorded, rd.Batch.Intents)
	}
}

// park: the submitter goes silent, A delegates again, and the new
// coordinator's assembly finds no coins.
func (r *parkRig) park() {
	r.t.Helper()
	old := r.deleg
	for i := 0; r.deleg == old; i++ {
		if i == 120 {
			r.t.Fatal("A-1 not delegated again in 2 minutes")
		}
		r.tick(time.Second)
	}
	r.assembleNothing()
}

// parked ticks for d; each delegation A makes (a parked intent is handled
// again every ParkRetry) finds no coins either.
func (r *parkRig) parked(d time.Duration) (states []distseq.State, reads []distseq.Effect) {
	r.t.Helper()
	for end := r.now.Add(d); r.now.Before(end); {
		old := r.deleg
		st, rd := r.tick(time.Second)
		states, reads = append(states, st...), append(reads, rd...)
		if r.deleg != old && !slices.Contains(states, distseq.Reverted) {
			r.assembleNothing()
		}
	}
	return states, reads
}

// assemble: A-1's coordinator offers c1 (created by B-7, not yet
// confirmed) and c2 (confirmed), 3 coins each; A assembles A-1 from both.
func (r *parkRig) assemble() {
	r.t.Helper()
	three := []byte(`{"amount":3}`)
	locks, _ := json.Marshal([]distseq.StateRef{{ID: "c2", Owner: "x@A", Data: three, CreatedBy: "B-2"}, {ID: "c1", Owner: "x@A", Data: three, CreatedBy: "B-7"}})
	rd := r.fromCoord(&distseqpb.Envelope{Body: &distseqpb.Envelope_AssembleRequest{AssembleRequest: &distseqpb.AssembleRequest{
		TransactionId: "A-1", DelegationId: r.deleg, AssembleRequestId: fmt.Sprintf("ar%d", r.n), StateLocks: locks}}})
	if !slices.ContainsFunc(rd.Sends, func(s distseq.Send) bool { return s.Env.GetAssembleResponse() != nil }) {
		r.t.Fatalf("A-1 not assembled: %v (sends %v)", senderStates(rd), rd.Sends)
	}
}

func (r *parkRig) assembleNothing() {
	r.t.Helper()
	rd := r.fromCoord(&distseqpb.Envelope{Body: &distseqpb.Envelope_AssembleRequest{AssembleRequest: &distseqpb.AssembleRequest{
		TransactionId: "A-1", DelegationId: r.deleg, AssembleRequestId: fmt.Sprintf("ar%d", r.n), StateLocks: []byte(`[]`)}}})
	if !slices.Contains(senderStates(rd), distseq.Parked) {
		r.t.Fatalf("A-1 not parked: %v (coordinator %s, sends %v)", senderStates(rd), r.coord, rd.Sends)
	}
}

// read answers A's read: the states of ids the store has (spentBy: by
// whom), and created, the states the creators asked for created.
func (r *parkRig) read(spentBy map[string]string, created []store.DistseqState, ids ...string) distseq.Ready {
	var states []store.DistseqState
	for _, id := range ids {
		states = append(states, store.DistseqState{Contract: "g0", ID: id, Spent: spentBy[id] != "", SpentBy: spentBy[id]})
	}
	return r.step(distseq.InputSpendsRead{Contract: "g0", TxID: "A-1", States: states, Created: created, Reverted: r.revertedCreators})
}

// TestParkedIntentWithAGrantedDispatch: a parked intent reverts after
// ParkTimeout only once no dispatch it granted can still land, its sender
// restarted or not. Before, a sender that had granted a dispatch reverted
// the intent parked for want of the coins that dispatch had spent, and
// the chain confirmed it after (sim distseq seed 405 at 3,000 steps); and
// a sender that kept such an intent parked for as long as it remembered
// the grant left it Parked for ever when the dispatch never landed (seed
// 804 at 3,000 steps; seed 1 with 10,000 contracts).
func TestParkedIntentWithAGrantedDispatch(t *testing.T) {
	t.Parallel()
	intent := []byte(`{"from":"x@A","to":"x","amount":5}`)
	for _, tc := range []struct {
		name    string
		grant   bool
		restart bool
		spentBy string // the chain spent c1 by this transaction
		// pending: c1 was B-7's output, not yet confirmed, when A-1 was
		// assembled; the store does not have it. created: what the store
		// holds of B-7's outputs.
		pending bool
		created []store.DistseqState
		// creatorReverted: B-7 is an intent of A's, reverted for good.
		creatorReverted bool
		revert          bool
	}{
		{name: "no grant: reverted at ParkTimeout", revert: true},
		{name: "granted, its coins unspent: parked", grant: true},
		{name: "granted, a coin spent by another: reverted", grant: true, spentBy: "B-9", revert: true},
		{name: "granted, a coin spent by the intent: waits for its confirmation", grant: true, spentBy: "A-1"},
		{name: "restarted after the grant, coins unspent: parked", grant: true, restart: true},
		{name: "restarted after the grant, a coin spent by another: reverted", grant: true, restart: true, spentBy: "B-9", revert: true},
		{name: "granted, a coin's creator not confirmed yet: parked", grant: true, pending: true},
		{name: "granted, a coin's creator confirmed without it: reverted", grant: true, pending: true,
			created: []store.DistseqState{{Contract: "g0", ID: "B-7.1.other", CreatedBy: "B-7"}}, revert: true},
		{name: "granted, a coin's creator reverted for good: reverted", grant: true, pending: true, creatorReverted: true, revert: true},
		{name: "restarted after the grant, a coin's creator confirmed without it: reverted", grant: true, restart: true, pending: true,
			created: []store.DistseqState{{Contract: "g0", ID: "B-7.1.other", CreatedBy: "B-7"}}, revert: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newParkRig(t)
			r.step(distseq.InputSubmit{TxID: "A-1", Contract: "g0", Intent: intent})
			if tc.grant {
				r.assemble()
				r.grant("c2", "c1")
			}
			if tc.restart {
				rec := r.rec
				r = newParkRig(t, rec)
				r.now = r.now.Add(time.Second)
			}
			r.park()
			states, reads := r.parked(time.Minute + 2*time.Second)
			reverted := slices.Contains(states, distseq.Reverted)
			if !tc.grant {
				if !reverted || len(reads) > 0 {
					t.Fatalf("no grant: reverted %v, reads %v", reverted, reads)
				}
				return
			}
			if reverted || len(reads) == 0 || !slices.Equal(reads[0].States, []string{"c1", "c2"}) ||
				!slices.Equal(reads[0].Creators, []string{"B-2", "B-7"}) {
				t.Fatalf("granted: reverted %v before a read, reads %+v", reverted, reads)
			}
			have := []string{"c1", "c2"}
			if tc.pending {
				have = have[1:]
			}
			if tc.creatorReverted {
				r.revertedCreators = []string{"B-7"}
			}
			rd := r.read(map[string]string{"c1": tc.spentBy}, tc.created, have...)
			states, _ = r.parked(2 * time.Second)
			states = append(senderStates(rd), states...)
			if got := slices.Contains(states, distseq.Reverted); got != tc.revert {
				t.Fatalf("after the read: reverted %v, want %v (%v)", got, tc.revert, states)
			}
		})
	}
}
