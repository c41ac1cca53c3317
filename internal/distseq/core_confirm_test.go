package distseq_test

import (
	"crypto/ed25519"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/distseq/distseqpb"
	"github.com/ordolabs/ordo/internal/distseq/token"
	"github.com/ordolabs/ordo/internal/store"
	"google.golang.org/protobuf/proto"
)

// TestConfirmOfAnotherCopy: the coordinator holds X-1 (spending s1), X-2
// (spending s2) and X-3 (spending X-1's output) assembled; the chain
// confirms another copy of X-1, one that spent s2 (its sender had
// re-delegated it to another coordinator). X-1's own lock on s1 goes, X-3
// (on an output of X-1's copy, which never lands) and X-2 (whose state is
// spent) are assembled again. The coordinator released the event's spends
// instead, whoever locked them: X-2 kept spending s2, unlocked (stress
// seed 10978966756829776571: "B-tx11 spends g0-mint-14, locked by """).
func TestConfirmOfAnotherCopy(t *testing.T) {
	ids, keys, members := committee()
	pref, err := distseq.Preference(ids, "g0", 5, distseq.DefaultRangeSize, nil)
	if err != nil {
		t.Fatal(err)
	}
	self, sender := pref[0], pref[1] // self coordinates g0 at height 5
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
		if err := c.CheckInvariants(); err != nil {
			t.Fatalf("invariant after %T: %v", in, err)
		}
		return r
	}
	msg := func(from distseq.NodeID, body *distseqpb.Envelope) distseq.Input {
		body.ProtocolVersion, body.ContractAddress = distseq.ProtocolVersion, "g0"
		raw, _ := proto.Marshal(body)
		return distseq.InputMessage{From: from, Body: raw}
	}
	// assembling returns the AssembleRequests of r, by transaction.
	assembling := func(r distseq.Ready) map[string]*distseqpb.AssembleRequest {
		out := map[string]*distseqpb.AssembleRequest{}
		for _, s := range r.Sends {
			if a := s.Env.GetAssembleRequest(); a != nil && s.To == sender {
				out[a.GetTransactionId()] = a
			}
		}
		return out
	}
	owner := "u@" + string(sender) // the coins' owner, and every intent's from and to
	coin := func(id string) store.DistseqState {
		data, _ := json.Marshal(distseq.StateRef{ID: id, Owner: owner, Data: []byte(`{"amount":5}`)})
		return store.DistseqState{Contract: "g0", ID: id, Data: data, Height: 1}
	}

	step(distseq.InputStart{Now: clock.Epoch, Incarnation: "f", Height: 5, Groups: []store.DistseqGroup{{Contract: "g0", Members: members}}})
	for _, tx := range []string{"X-1", "X-2", "X-3"} {
		step(msg(sender, &distseqpb.Envelope{MessageId: "m-" + tx, Body: &distseqpb.Envelope_DelegationCommand{DelegationCommand: &distseqpb.DelegationCommand{
			TransactionId: tx, DelegationId: "d-" + tx, BlockHeight: 5, PrivateTransactions: [][]byte{[]byte(`{"from":"` + owner + `","to":"` + owner + `","amount":5}`)}}}}))
	}
	reqs := assembling(step(distseq.InputLoaded{Contract: "g0", States: []store.DistseqState{coin("s1"), coin("s2")}}))
	// X-1 on s1, X-2 on s2, then X-3 on X-1's output (speculative chaining)
	for _, tx := range []struct{ id, spent string }{{"X-1", "s1"}, {"X-2", "s2"}, {"X-3", "X-1.0"}} {
		req := reqs[tx.id]
		if req == nil || !strings.Contains(string(req.GetStateLocks()), `"`+tx.spent+`"`) {
			t.Fatalf("%s: assembly request %v, want one offering %s", tx.id, req, tx.spent)
		}
		a := distseq.Assembly{Spends: []string{tx.spent}, Creates: []distseq.StateRef{{ID: tx.id + ".0", Owner: owner, Data: []byte(`{"amount":5}`)}}}
		d := token.Domain{}.Digest("g0", tx.id, a)
		post, _ := json.Marshal(map[string]any{"assembly": a, "signature": ed25519.Sign(keys[sender], d[:])})
		maps.Copy(reqs, assembling(step(msg(sender, &distseqpb.Envelope{MessageId: "r-" + tx.id, Body: &distseqpb.Envelope_AssembleResponse{AssembleResponse: &distseqpb.AssembleResponse{
			TransactionId: tx.id, AssembleRequestId: req.GetAssembleRequestId(), ContractAddress: "g0", PostAssembly: post}}}))))
	}
	// the chain confirms another copy of X-1, which spent s2
	r := step(distseq.InputEvents{Height: 5, Cursor: 1, Events: []distseq.ChainEvent{{Kind: distseq.EventIntentConfirmed, Contract: "g0", Height: 5,
		TxID: "X-1", Spends: []string{"s2"}, Creates: []string{"X-1.0"}, Digest: "another copy's"}}})
	for _, tx := range []string{"X-2", "X-3"} {
		if !slices.ContainsFunc(r.Transitions, func(tr distseq.Transition) bool {
			return tr.Role == distseq.RoleCoordinator && tr.TxID == tx && tr.To == distseq.CQueued
		}) {
			t.Errorf("%s not assembled again: %+v", tx, r.Transitions)
		}
	}
	for tx, req := range assembling(r) {
		if locks := string(req.GetStateLocks()); strings.Contains(locks, `"s2"`) || strings.Contains(locks, `"X-1.0"`) {
			t.Errorf("%s offered %s again", tx, locks)
		}
	}
}
