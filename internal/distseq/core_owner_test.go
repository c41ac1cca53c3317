package distseq_test

import (
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/distseq/distseqpb"
	"github.com/ordolabs/ordo/internal/distseq/token"
	"github.com/ordolabs/ordo/internal/store"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// endorserRig is one endorser (self) of group g0 at height 5, asked by
// coord, the coordinator its ring prefers, to endorse assemblies of
// sender's; mine and theirs are owners of sender's node and of another.
type endorserRig struct {
	t                   *testing.T
	c                   *distseq.Core
	keys                map[distseq.NodeID]ed25519.PrivateKey
	coord, self, sender distseq.NodeID
	mine, theirs        string
}

func newEndorserRig(t *testing.T, cfg distseq.CoreConfig) *endorserRig {
	t.Helper()
	ids, keys, members := committee()
	pref, err := distseq.Preference(ids, "g0", 5, distseq.DefaultRangeSize, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := &endorserRig{t: t, keys: keys, coord: pref[0], self: pref[1], sender: pref[2]}
	r.mine, r.theirs = "u@"+string(r.sender), "u@"+string(r.coord)
	cfg.Self, cfg.Key, cfg.Domain = r.self, keys[r.self], token.Domain{}
	if r.c, err = distseq.New(cfg); err != nil {
		t.Fatal(err)
	}
	r.step(distseq.InputStart{Now: clock.Epoch, Incarnation: "e", Height: 5, Groups: []store.DistseqGroup{{Contract: "g0", Members: members}}})
	return r
}

func (r *endorserRig) step(in distseq.Input) distseq.Ready {
	r.t.Helper()
	out, err := r.c.Step(in)
	if err != nil {
		r.t.Fatal(err)
	}
	if err := r.c.CheckInvariants(); err != nil {
		r.t.Fatalf("invariant after %T: %v", in, err)
	}
	return out
}

// coin is a coin state of amount for owner.
func coin(id, owner string, amount int) distseq.StateRef {
	return distseq.StateRef{ID: id, Owner: owner, Data: fmt.Appendf(nil, `{"amount":%d}`, amount)}
}

// load answers the endorser's load with the states it holds.
func (r *endorserRig) load(states ...distseq.StateRef) {
	var held []store.DistseqState
	for _, s := range states {
		data, _ := json.Marshal(s)
		held = append(held, store.DistseqState{Contract: "g0", ID: s.ID, Data: data, Height: 1})
	}
	r.step(distseq.InputLoaded{Contract: "g0", States: held})
}

// answer is what the endorser did with a request: "signed", "waits" (no
// answer) or the refusal's reason.
func (r *endorserRig) request(tx string, spends []string, creates []distseq.StateRef, claimed ...distseq.StateRef) string {
	r.t.Helper()
	a := distseq.Assembly{Spends: spends, Creates: creates}
	d := token.Domain{}.Digest("g0", tx, a)
	spec := &distseqpb.TransactionSpecification{TransactionId: tx, Sender: string(r.sender), Spends: spends}
	for _, s := range creates {
		spec.Creates = append(spec.Creates, &distseqpb.DistributedState{Id: s.ID, Owner: s.Owner, Data: s.Data, CreatedBy: tx})
	}
	var inputs []*anypb.Any
	for _, s := range claimed {
		in, _ := anypb.New(&distseqpb.DistributedState{Id: s.ID, Owner: s.Owner, Data: s.Data})
		inputs = append(inputs, in)
	}
	specAny, _ := anypb.New(spec)
	sigAny, _ := anypb.New(&distseqpb.Endorsement{Member: string(r.sender), Signature: fmt.Sprintf("%x", ed25519.Sign(r.keys[r.sender], d[:]))})
	env := &distseqpb.Envelope{MessageId: "m-" + tx, ProtocolVersion: distseq.ProtocolVersion, ContractAddress: "g0",
		Body: &distseqpb.Envelope_EndorsementRequest{EndorsementRequest: &distseqpb.EndorsementRequest{
			IdempotencyKey: "k-" + tx, TransactionId: tx, ContractAddress: "g0", Party: string(r.self),
			TransactionSpecification: specAny, Signatures: []*anypb.Any{sigAny}, InputStates: inputs,
			Coordinator: string(r.coord), BlockHeight: 5}}}
	raw, _ := proto.Marshal(env)
	got := "waits"
	for _, s := range r.step(distseq.InputMessage{From: r.coord, Body: raw}).Sends {
		if s.Env.GetEndorsementResponse().GetTransactionId() == tx {
			got = "signed"
		}
		if e := s.Env.GetEndorsementError(); e.GetTransactionId() == tx {
			got = e.GetRevertReason()
		}
	}
	return got
}

// check fails unless got is want ("signed", "waits", or a refusal's
// reason's start).
func check(t *testing.T, name, got, want string) {
	t.Helper()
	switch want {
	case "signed", "waits":
		if got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	default:
		if !strings.HasPrefix(got, want) {
			t.Errorf("%s: %s, want a refusal %s", name, got, want)
		}
	}
}

// TestEndorserChecksOwner: an endorser signs an assembly only when every
// state it spends belongs to one owner of the sending node, judged on its
// own copy of a state it holds (whatever the request claims), and on the
// copy it endorsed the creation of for a speculative output (an output of
// a transaction not yet confirmed, which it does not hold yet). The
// coordinator's word alone is never taken: a speculative input the
// endorser neither holds nor endorsed the creation of, or whose copy the
// coordinator forged, is not answered (the coordinator's resend is, once
// the endorser holds the state).
func TestEndorserChecksOwner(t *testing.T) {
	t.Parallel()
	r := newEndorserRig(t, distseq.CoreConfig{})
	mine, theirs, other := r.mine, r.theirs, "v@"+string(r.sender)
	// the first request activates g0 here; unanswered until its states
	// are loaded (the coordinator resends it)
	check(t, "before the load", r.request("W", []string{"s1"}, []distseq.StateRef{coin("W.0", "bob", 5)}), "waits")
	r.load(coin("s1", mine, 5), coin("s2", theirs, 5), coin("s3", mine, 5))
	// A, endorsed: its outputs are speculative inputs the endorser knows
	aOut := []distseq.StateRef{coin("A.0", theirs, 2), coin("A.1", mine, 2), coin("A.2", other, 1)}
	for i, tt := range []struct {
		name    string
		spends  []string
		creates []distseq.StateRef
		claimed []distseq.StateRef
		want    string
	}{
		{"the sender's owner's state", []string{"s1"}, aOut, nil, "signed"},
		{"another node's owner's state", []string{"s2"}, []distseq.StateRef{coin("B.0", "bob", 5)}, nil, token.ReasonNotOwner},
		{"another's state, claimed the sender's", []string{"s2"}, []distseq.StateRef{coin("C.0", "bob", 5)}, []distseq.StateRef{coin("s2", mine, 5)}, token.ReasonNotOwner},
		{"an endorsed output of the sender's owner", []string{"A.1"}, []distseq.StateRef{coin("D.0", "bob", 2)}, []distseq.StateRef{coin("A.1", mine, 2)}, "signed"},
		{"an endorsed output of the sender's owner, unclaimed", []string{"A.1"}, []distseq.StateRef{coin("E.0", "bob", 2)}, nil, "signed"},
		{"an endorsed output of another's, claimed the sender's", []string{"A.0"}, []distseq.StateRef{coin("F.0", "bob", 2)}, []distseq.StateRef{coin("A.0", mine, 2)}, "waits"},
		{"an endorsed output of another's", []string{"A.0"}, []distseq.StateRef{coin("G.0", "bob", 2)}, []distseq.StateRef{coin("A.0", theirs, 2)}, token.ReasonNotOwner},
		{"an endorsed output, its amount forged", []string{"A.1"}, []distseq.StateRef{coin("H.0", "bob", 9)}, []distseq.StateRef{coin("A.1", mine, 9)}, "waits"},
		{"an output it never endorsed, claimed the sender's", []string{"X.0"}, []distseq.StateRef{coin("I.0", "bob", 5)}, []distseq.StateRef{coin("X.0", mine, 5)}, "waits"},
		{"a state nobody names", []string{"X.0"}, []distseq.StateRef{coin("J.0", "bob", 5)}, nil, "waits"},
		{"two owners' states", []string{"s3", "A.2"}, []distseq.StateRef{coin("K.0", "bob", 6)}, []distseq.StateRef{coin("A.2", other, 1)}, token.ReasonNotOwner},
	} {
		check(t, tt.name, r.request(fmt.Sprintf("T%d", i), tt.spends, tt.creates, tt.claimed...), tt.want)
	}
	// once the endorser holds a state, it judges the coordinator's resend
	// (of T8) on its own copy
	r.load(coin("X.0", mine, 5))
	check(t, "the resend, X.0 held", r.request("T8", []string{"X.0"}, []distseq.StateRef{coin("I.0", "bob", 5)}, coin("X.0", mine, 5)), "signed")
}

// TestEndorserForgets: the endorser forgets the outputs of a transaction
// that can never land (a state it spends is spent on chain by another),
// and of what spends them; the oldest endorsed goes past EndorsedMemory.
// A spend of a forgotten output waits.
func TestEndorserForgets(t *testing.T) {
	t.Parallel()
	t.Run("spent by another", func(t *testing.T) {
		t.Parallel()
		r := newEndorserRig(t, distseq.CoreConfig{})
		r.request("W", nil, nil)
		r.load(coin("s1", r.mine, 5), coin("s2", r.mine, 5))
		check(t, "A", r.request("A", []string{"s1"}, []distseq.StateRef{coin("A.0", "bob", 3), coin("A.1", r.mine, 2)}), "signed")
		check(t, "B on A.1", r.request("B", []string{"A.1"}, []distseq.StateRef{coin("B.0", r.mine, 2)}), "signed")
		check(t, "C on s2", r.request("C", []string{"s2"}, []distseq.StateRef{coin("C.0", r.mine, 5)}), "signed")
		// Z spends s1 on chain: A never lands, nor B on A's output
		r.step(distseq.InputEvents{Height: 6, Cursor: 1, Events: []distseq.ChainEvent{{Kind: distseq.EventIntentConfirmed,
			Contract: "g0", Height: 6, TxID: "Z", Spends: []string{"s1"}, Creates: []string{"Z.0"}}}})
		check(t, "on A.1", r.request("D", []string{"A.1"}, []distseq.StateRef{coin("D.0", "bob", 2)}), "waits")
		check(t, "on B.0", r.request("E", []string{"B.0"}, []distseq.StateRef{coin("E.0", "bob", 2)}), "waits")
		check(t, "on C.0", r.request("F", []string{"C.0"}, []distseq.StateRef{coin("F.0", "bob", 5)}), "signed")
	})
	t.Run("memory", func(t *testing.T) {
		t.Parallel()
		r := newEndorserRig(t, distseq.CoreConfig{EndorsedMemory: 1})
		r.request("W", nil, nil)
		r.load(coin("s1", r.mine, 5), coin("s2", r.mine, 5))
		check(t, "A", r.request("A", []string{"s1"}, []distseq.StateRef{coin("A.0", r.mine, 5)}), "signed")
		check(t, "B", r.request("B", []string{"s2"}, []distseq.StateRef{coin("B.0", r.mine, 5)}), "signed")
		check(t, "on A.0, forgotten", r.request("C", []string{"A.0"}, []distseq.StateRef{coin("C.0", "bob", 5)}), "waits")
		check(t, "on B.0", r.request("D", []string{"B.0"}, []distseq.StateRef{coin("D.0", "bob", 5)}), "signed")
	})
}
