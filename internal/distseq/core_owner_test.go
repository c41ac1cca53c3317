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

// TestEndorserChecksOwner: an endorser signs an assembly only when every
// state it spends belongs to one owner of the sending node, judged on its
// own copy of a state it holds (whatever the request claims), on the
// request's copy of a state it does not hold yet (a speculative output),
// and refused when neither names it.
func TestEndorserChecksOwner(t *testing.T) {
	t.Parallel()
	ids, keys, members := committee()
	pref, err := distseq.Preference(ids, "g0", 5, distseq.DefaultRangeSize, nil)
	if err != nil {
		t.Fatal(err)
	}
	coord, self, sender := pref[0], pref[1], pref[2] // coord coordinates g0 at height 5; self endorses
	other := coord
	c, err := distseq.New(distseq.CoreConfig{Self: self, Key: keys[self], Domain: token.Domain{}})
	if err != nil {
		t.Fatal(err)
	}
	step := func(in distseq.Input) distseq.Ready {
		t.Helper()
		r, err := c.Step(in)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	mine, theirs := "u@"+string(sender), "u@"+string(other)
	held := func(id, owner string) store.DistseqState {
		data, _ := json.Marshal(distseq.StateRef{ID: id, Owner: owner, Data: []byte(`{"amount":5}`)})
		return store.DistseqState{Contract: "g0", ID: id, Data: data, Height: 1}
	}
	step(distseq.InputStart{Now: clock.Epoch, Incarnation: "e", Height: 5, Groups: []store.DistseqGroup{{Contract: "g0", Members: members}}})
	claim := func(id, owner string) *anypb.Any {
		a, _ := anypb.New(&distseqpb.DistributedState{Id: id, Owner: owner, Data: []byte(`{"amount":5}`)})
		return a
	}
	// request is coord's endorsement request for tx, an assembly of spends
	// sent by sender, with the coordinator's copies claimed of the inputs.
	request := func(tx string, spends []string, claimed []*anypb.Any) distseq.Ready {
		tt := struct {
			spends  []string
			claimed []*anypb.Any
		}{spends, claimed}
		creates := []distseq.StateRef{{ID: tx + ".0", Owner: "bob", Data: []byte(fmt.Sprintf(`{"amount":%d}`, 5*len(tt.spends)))}}
		a := distseq.Assembly{Spends: tt.spends, Creates: creates}
		d := token.Domain{}.Digest("g0", tx, a)
		spec := &distseqpb.TransactionSpecification{TransactionId: tx, Sender: string(sender), Spends: tt.spends}
		for _, s := range creates {
			spec.Creates = append(spec.Creates, &distseqpb.DistributedState{Id: s.ID, Owner: s.Owner, Data: s.Data, CreatedBy: tx})
		}
		specAny, _ := anypb.New(spec)
		sigAny, _ := anypb.New(&distseqpb.Endorsement{Member: string(sender), Signature: fmt.Sprintf("%x", ed25519.Sign(keys[sender], d[:]))})
		env := &distseqpb.Envelope{MessageId: "m-" + tx, ProtocolVersion: distseq.ProtocolVersion, ContractAddress: "g0",
			Body: &distseqpb.Envelope_EndorsementRequest{EndorsementRequest: &distseqpb.EndorsementRequest{
				IdempotencyKey: "k-" + tx, TransactionId: tx, ContractAddress: "g0", Party: string(self),
				TransactionSpecification: specAny, Signatures: []*anypb.Any{sigAny}, InputStates: tt.claimed,
				Coordinator: string(coord), BlockHeight: 5}}}
		raw, _ := proto.Marshal(env)
		r := step(distseq.InputMessage{From: coord, Body: raw})
		return r
	}
	// the first request activates g0 here; unanswered until its states
	// are loaded (the coordinator resends it)
	for _, s := range request("W", []string{"s1"}, nil).Sends {
		if s.Env.GetEndorsementResponse() != nil || s.Env.GetEndorsementError() != nil {
			t.Fatalf("answered before its states were loaded: %v", s.Env)
		}
	}
	step(distseq.InputLoaded{Contract: "g0", States: []store.DistseqState{held("s1", mine), held("s2", theirs)}})
	for i, tt := range []struct {
		name    string
		spends  []string
		claimed []*anypb.Any
		want    string // "" signs; else the refusal's reason starts so
	}{
		{"the sender's owner's state", []string{"s1"}, nil, ""},
		{"another node's owner's state", []string{"s2"}, nil, token.ReasonNotOwner},
		{"another's state, claimed the sender's", []string{"s2"}, []*anypb.Any{claim("s2", mine)}, token.ReasonNotOwner},
		{"a speculative output of the sender's owner", []string{"X-0.0"}, []*anypb.Any{claim("X-0.0", mine)}, ""},
		{"a speculative output of another's", []string{"X-0.0"}, []*anypb.Any{claim("X-0.0", theirs)}, token.ReasonNotOwner},
		{"a state nobody names", []string{"X-0.0"}, nil, distseq.ReasonUnknownInput},
		{"two owners' states", []string{"s1", "X-0.1"}, []*anypb.Any{claim("X-0.1", "v@"+string(sender))}, token.ReasonNotOwner},
	} {
		tx := fmt.Sprintf("T-%d", i)
		r := request(tx, tt.spends, tt.claimed)
		signed, refused := false, ""
		for _, s := range r.Sends {
			if s.Env.GetEndorsementResponse().GetTransactionId() == tx {
				signed = true
			}
			if e := s.Env.GetEndorsementError(); e.GetTransactionId() == tx {
				refused = e.GetRevertReason()
			}
		}
		switch {
		case tt.want == "" && (!signed || refused != ""):
			t.Errorf("%s: not signed (%q)", tt.name, refused)
		case tt.want != "" && (signed || !strings.HasPrefix(refused, tt.want)):
			t.Errorf("%s: signed %v, refused %q; want a refusal %s", tt.name, signed, refused, tt.want)
		}
	}
}
