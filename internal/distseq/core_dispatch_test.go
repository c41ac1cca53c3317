package distseq_test

import (
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
	"google.golang.org/protobuf/types/known/timestamppb"
)

// senderCore is node A of the committee A, B, C with one group g0 and
// ranges of 10 blocks; step returns the sender's transitions of A-1.
type senderCore struct {
	t   *testing.T
	c   *distseq.Core
	now time.Time
	n   int
}

func newSenderCore(t *testing.T, height uint64) *senderCore {
	t.Helper()
	_, keys, members := committee()
	c, err := distseq.New(distseq.CoreConfig{Self: "A", Key: keys["A"], Domain: token.Domain{}, RangeSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	s := &senderCore{t: t, c: c, now: clock.Epoch}
	s.step(distseq.InputStart{Now: s.now, Incarnation: "f", Height: height, Groups: []store.DistseqGroup{{Contract: "g0", Members: members}}})
	return s
}

func (s *senderCore) step(in distseq.Input) []distseq.State {
	s.t.Helper()
	r, err := s.c.Step(in)
	if err != nil {
		s.t.Fatal(err)
	}
	var out []distseq.State
	for _, tr := range r.Transitions {
		if tr.Role == distseq.RoleSender && tr.TxID == "A-1" {
			out = append(out, tr.To)
		}
	}
	return out
}

// submitterHeartbeat is B's heartbeat listing txs, its oldest dispatch
// made in range rng.
func (s *senderCore) submitterHeartbeat(rng int64, txs ...string) []distseq.State {
	return s.heartbeatFrom("B", rng, txs...)
}

// heartbeatFrom is from's submitter heartbeat listing txs.
func (s *senderCore) heartbeatFrom(from distseq.NodeID, rng int64, txs ...string) []distseq.State {
	s.n++
	env := &distseqpb.Envelope{ProtocolVersion: distseq.ProtocolVersion, ContractAddress: "g0", MessageId: fmt.Sprintf("%s/m%d", from, s.n),
		Body: &distseqpb.Envelope_SubmitterHeartbeat{SubmitterHeartbeat: &distseqpb.SubmitterHeartbeatNotification{
			HeartbeatId: fmt.Sprintf("%s/shb%d", from, s.n), Timestamp: timestamppb.New(s.now), ContractAddress: "g0", TransactionIds: txs, RangeIndex: rng}}}
	raw, _ := proto.Marshal(env)
	return s.step(distseq.InputMessage{From: from, Body: raw})
}

func (s *senderCore) tick(d time.Duration) []distseq.State {
	s.now = s.now.Add(d)
	return s.step(distseq.InputTick{Now: s.now})
}

// TestSenderHoldsForThePreviousRangeOnly: submitter heartbeats for the
// previous range hold a sender's new delegations (seed 003, switchover);
// heartbeats for an older range hold nothing. A submitter whose queue was
// stuck behind dispatches it lost in a crash heartbeated range 67 at range
// 136 for minutes, and every sender of the contract held its intents
// Pending (sim distseq seed 406 at 3,000 steps: A-tx32 Pending, 0
// delegations, 2 minutes after the faults stopped).
func TestSenderHoldsForThePreviousRangeOnly(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		rng  int64
		hold bool
	}{
		{"previous range", 1, true},
		{"two ranges back", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newSenderCore(t, 25)                                                                                      // range 2
			s.step(distseq.InputSubmit{TxID: "A-0", Contract: "g0", Intent: []byte(`{"from":"x@A","to":"x","amount":5}`)}) // wakes g0
			s.submitterHeartbeat(tc.rng, "Z-9")
			got := s.step(distseq.InputSubmit{TxID: "A-1", Contract: "g0", Intent: []byte(`{"from":"x@A","to":"x","amount":5}`)})
			for range 4 { // the submitter keeps heartbeating its old dispatch
				got = append(got, s.tick(time.Second)...)
				got = append(got, s.submitterHeartbeat(tc.rng, "Z-9")...)
			}
			if delegated := slices.Contains(got, distseq.Delegating); delegated == tc.hold {
				t.Fatalf("A-1's transitions %v: delegated %v, want %v", got, delegated, !tc.hold)
			}
		})
	}
}

// TestSenderRedelegatesALateDispatch: a dispatch not confirmed
// DispatchRanges ranges after it was made is delegated again, though its
// submitter keeps heartbeating it: a submitter restarted with 43
// dispatches queued behind nonces the chain dropped sends one every ~25s
// (sim distseq seed 406 at 3,000 steps).
func TestSenderRedelegatesALateDispatch(t *testing.T) {
	t.Parallel()
	s := newSenderCore(t, 5) // range 0
	s.step(distseq.InputSubmit{TxID: "A-1", Contract: "g0", Intent: []byte(`{"from":"x@A","to":"x","amount":5}`)})
	if got := s.submitterHeartbeat(0, "A-1"); !slices.Contains(got, distseq.Dispatched) {
		t.Fatalf("A-1 not Dispatched on its submitter's heartbeat: %v", got)
	}
	for h := uint64(6); h <= 25; h++ {
		got := s.step(distseq.InputHeight{Height: h})
		got = append(got, s.tick(time.Second)...)
		got = append(got, s.submitterHeartbeat(0, "A-1")...)
		again := slices.Contains(got, distseq.Pending)
		switch {
		case h < 20 && again:
			t.Fatalf("height %d (range %d): A-1 delegated again: %v", h, h/10, got)
		case h == 20 && !again:
			t.Fatalf("height 20 (two ranges on): A-1 still dispatched: %v", got)
		case h == 20:
			return
		}
	}
}

// TestLateSubmitterDoesNotPullBack: once a sender delegated a late
// dispatch again, the heartbeats of its old submitter listing it no longer
// make it Dispatched (its new delegation goes on), unless that submitter
// is the new delegation's coordinator. Before, each heartbeat pulled the
// intent back to a submitter whose queue never landed it (sim distseq seed
// 1046 at 3,000 steps: D-tx68 Dispatched, 7 delegations, 2 minutes after
// the faults stopped).
func TestLateSubmitterDoesNotPullBack(t *testing.T) {
	t.Parallel()
	for _, sub := range []distseq.NodeID{"B", "C"} {
		t.Run(string(sub), func(t *testing.T) {
			t.Parallel()
			s := newSenderCore(t, 5)
			s.step(distseq.InputSubmit{TxID: "A-1", Contract: "g0", Intent: []byte(`{"from":"x@A","to":"x","amount":5}`)})
			s.heartbeatFrom(sub, 0, "A-1")
			var coord distseq.NodeID
			for h := uint64(6); h <= 20; h++ {
				s.step(distseq.InputHeight{Height: h})
				s.now = s.now.Add(time.Second)
				r, err := s.c.Step(distseq.InputTick{Now: s.now})
				if err != nil {
					t.Fatal(err)
				}
				for _, snd := range r.Sends {
					if d := snd.Env.GetDelegationCommand(); d != nil && d.GetTransactionId() == "A-1" {
						coord = snd.To
					}
				}
				if h < 20 {
					s.heartbeatFrom(sub, 0, "A-1")
				}
			}
			if coord == "" {
				t.Fatal("A-1 not delegated again two ranges after its dispatch")
			}
			back := slices.Contains(s.heartbeatFrom(sub, 0, "A-1"), distseq.Dispatched)
			if want := coord == sub; back != want {
				t.Fatalf("submitter %s, new delegation to %s: its heartbeat made A-1 Dispatched %v, want %v", sub, coord, back, want)
			}
		})
	}
}
