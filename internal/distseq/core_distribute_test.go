package distseq_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/distseq/distseqpb"
	"github.com/ordolabs/ordo/internal/distseq/token"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/memstore"
	"google.golang.org/protobuf/proto"
)

// storeDriver steps a core as its driver does: commit each batch to a
// memstore, then answer each EffectLoad from it before the next input.
type storeDriver struct {
	t     *testing.T
	c     *distseq.Core
	st    *memstore.Distseq
	sends []distseq.Send
}

func (d *storeDriver) step(in distseq.Input) {
	d.t.Helper()
	r, err := d.c.Step(in)
	if err != nil {
		d.t.Fatal(err)
	}
	if err := d.c.CheckInvariants(); err != nil {
		d.t.Fatalf("invariant after %T: %v", in, err)
	}
	if err := d.st.ApplyDistseq(context.Background(), r.Batch); err != nil {
		d.t.Fatal(err)
	}
	d.sends = append(d.sends, r.Sends...)
	for _, e := range r.Effects {
		if e.Kind != distseq.EffectLoad {
			continue
		}
		states, err := d.st.DistseqStates(context.Background(), e.Contract, true)
		if err != nil {
			d.t.Fatal(err)
		}
		d.step(distseq.InputLoaded{Contract: e.Contract, States: states})
	}
}

func (d *storeDriver) msg(from distseq.NodeID, id string, env *distseqpb.Envelope) {
	d.t.Helper()
	env.ProtocolVersion, env.ContractAddress, env.MessageId = distseq.ProtocolVersion, "g0", id
	raw, _ := proto.Marshal(env)
	d.step(distseq.InputMessage{From: from, Body: raw})
}

// assembly returns the state locks of the latest AssembleRequest for tx
// sent since the last call, and its request id.
func (d *storeDriver) assembly(tx string) (locks, reqID string) {
	for _, s := range d.sends {
		if a := s.Env.GetAssembleRequest(); a != nil && a.GetTransactionId() == tx {
			locks, reqID = string(a.GetStateLocks()), a.GetAssembleRequestId()
		}
	}
	d.sends = nil
	return locks, reqID
}

// TestDistributionOfASpentState: this node's indexer reads, in one block,
// T creating T.0 and U spending it; T.0's distribution arrives after.
// The store keeps T.0 spent; the coordinator offered it to every later
// assembly (held from the message), each one reverting state_spent, and a
// prepared transaction spending it stayed dispatched for ever: its
// submitter saw T.0 held, so never gave it up (sim distseq seed 10 at
// 3,000 steps: C-tx26 Dispatched 2 minutes after the faults stopped). A
// distribution of a state not spent is still held, and offered.
func TestDistributionOfASpentState(t *testing.T) {
	ids, keys, members := committee()
	pref, err := distseq.Preference(ids, "g0", 5, distseq.DefaultRangeSize, nil)
	if err != nil {
		t.Fatal(err)
	}
	self, sender, third := pref[0], pref[1], pref[2] // self coordinates g0 at height 5
	c, err := distseq.New(distseq.CoreConfig{Self: self, Key: keys[self], Domain: token.Domain{}})
	if err != nil {
		t.Fatal(err)
	}
	d := &storeDriver{t: t, c: c, st: memstore.NewDistseq()}
	coin := func(id string) *distseqpb.DistributedState {
		return &distseqpb.DistributedState{Id: id, Owner: "x@" + string(sender), Data: []byte(`{"amount":5}`), CreatedBy: strings.Split(id, ".")[0]}
	}
	distribute := func(id string) {
		d.msg(third, "dist-"+id, &distseqpb.Envelope{Body: &distseqpb.Envelope_DistributeData{DistributeData: &distseqpb.DistributeData{
			DistributionId: "dist/" + id + "/" + string(self), ContractAddress: "g0", TransactionId: strings.Split(id, ".")[0],
			States: []*distseqpb.DistributedState{coin(id)}}}})
	}
	delegate := func(tx string) {
		d.msg(sender, "deleg-"+tx, &distseqpb.Envelope{Body: &distseqpb.Envelope_DelegationCommand{DelegationCommand: &distseqpb.DelegationCommand{
			TransactionId: tx, DelegationId: "d-" + tx, BlockHeight: 5, PrivateTransactions: [][]byte{[]byte(`{"from":"x@` + string(sender) + `","to":"x","amount":5}`)}}}})
	}
	notReady := func(tx, reqID string) {
		d.msg(sender, "err-"+tx, &distseqpb.Envelope{Body: &distseqpb.Envelope_AssembleError{AssembleError: &distseqpb.AssembleError{
			TransactionId: tx, AssembleRequestId: reqID, ContractAddress: "g0", ErrorMessage: distseq.ErrNotReady.Error()}}})
	}

	d.step(distseq.InputStart{Now: clock.Epoch, Incarnation: "f", Height: 5, Groups: []store.DistseqGroup{{Contract: "g0", Members: members}}})
	d.step(distseq.InputEvents{Height: 5, Cursor: 2, Events: []distseq.ChainEvent{
		{Kind: distseq.EventIntentConfirmed, Contract: "g0", Height: 5, TxID: "T", Creates: []string{"T.0"}, Digest: "t"},
		{Kind: distseq.EventIntentConfirmed, Contract: "g0", Height: 5, TxID: "U", Spends: []string{"T.0"}, Digest: "u"}}})
	delegate("X-1") // wakes the contract: loaded, nothing unspent
	_, req := d.assembly("X-1")
	distribute("T.0") // late: the store has T.0 spent
	notReady("X-1", req)
	delegate("X-2")
	locks, req := d.assembly("X-2")
	if req == "" {
		t.Fatal("X-2: no assembly request")
	}
	var offered []distseq.StateRef
	if err := json.Unmarshal([]byte(locks), &offered); err != nil {
		t.Fatal(err)
	}
	for _, s := range offered {
		if s.ID == "T.0" {
			t.Fatalf("X-2 offered T.0, spent on chain before its distribution arrived: %s", locks)
		}
	}
	distribute("W.0") // unspent: held once the store has it
	notReady("X-2", req)
	delegate("X-3")
	if locks, _ := d.assembly("X-3"); !strings.Contains(locks, `"W.0"`) {
		t.Fatalf("X-3 offered %s, want the distributed W.0", locks)
	}
}
