package distseq_test

import (
	"crypto/ed25519"
	"encoding/hex"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/distseq/distseqpb"
	"github.com/ordolabs/ordo/internal/distseq/token"
	"github.com/ordolabs/ordo/internal/store"
	"google.golang.org/protobuf/proto"
)

// committee is the test committee A, B, C: its ids, keys (from fixed
// seeds) and members of a group.
func committee() (ids []distseq.NodeID, keys map[distseq.NodeID]ed25519.PrivateKey, members []store.DistseqMember) {
	keys = map[distseq.NodeID]ed25519.PrivateKey{}
	for i, id := range []string{"A", "B", "C"} {
		k := ed25519.NewKeyFromSeed(append(make([]byte, 31), byte(i+1)))
		keys[distseq.NodeID(id)] = k
		ids = append(ids, distseq.NodeID(id))
		members = append(members, store.DistseqMember{ID: id, PublicKey: hex.EncodeToString(k.Public().(ed25519.PublicKey))})
	}
	return ids, keys, members
}

// fuzzCore is node A of a committee A, B, C with one group g0 and one
// intent in flight.
func fuzzCore(t testing.TB) *distseq.Core {
	_, keys, members := committee()
	c, err := distseq.New(distseq.CoreConfig{Self: "A", Key: keys["A"], Domain: token.Domain{}})
	if err != nil {
		t.Fatal(err)
	}
	steps := []distseq.Input{
		distseq.InputStart{Now: clock.Epoch, Incarnation: "f", Height: 5, Groups: []store.DistseqGroup{{Contract: "g0", Members: members}}},
		distseq.InputLoaded{Contract: "g0"},
		distseq.InputSubmit{Ref: 1, TxID: "A-1", Contract: "g0", Intent: []byte(`{"to":"x","amount":1}`)},
	}
	for _, in := range steps {
		if _, err := c.Step(in); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// FuzzMessage: whatever bytes a peer sends, the core neither panics nor
// breaks an invariant, and keeps working (a tick after it steps).
func FuzzMessage(f *testing.F) {
	seed := func(b *distseqpb.Envelope) {
		raw, _ := proto.Marshal(b)
		f.Add("B", raw)
	}
	seed(&distseqpb.Envelope{ProtocolVersion: "1.0.0", MessageId: "m", ContractAddress: "g0",
		Body: &distseqpb.Envelope_DelegationCommand{DelegationCommand: &distseqpb.DelegationCommand{TransactionId: "B-1", DelegationId: "d", BlockHeight: 5,
			PrivateTransactions: [][]byte{[]byte(`{"to":"y","amount":2}`)}}}})
	seed(&distseqpb.Envelope{ProtocolVersion: "1.0.0", MessageId: "m", ContractAddress: "g0",
		Body: &distseqpb.Envelope_AssembleRequest{AssembleRequest: &distseqpb.AssembleRequest{TransactionId: "A-1", StateLocks: []byte(`[{"id":"s","data":"eyJhbW91bnQiOjV9"}]`)}}})
	seed(&distseqpb.Envelope{ProtocolVersion: "1.0.0", MessageId: "m", ContractAddress: "g0",
		Body: &distseqpb.Envelope_CoordinatorHeartbeat{CoordinatorHeartbeat: &distseqpb.CoordinatorHeartbeatNotification{TransactionIds: []string{"A-1"}, BlockHeight: 5}}})
	seed(&distseqpb.Envelope{ProtocolVersion: "1.0.0", MessageId: "m", ContractAddress: "g0",
		Body: &distseqpb.Envelope_DistributeData{DistributeData: &distseqpb.DistributeData{DistributionId: "x", ContractAddress: "g0",
			States: []*distseqpb.DistributedState{{Id: "s1", Data: []byte(`{"amount":3}`)}}}}})
	f.Add("C", []byte{0xff, 0x01})
	f.Fuzz(func(t *testing.T, from string, body []byte) {
		c := fuzzCore(t)
		if _, err := c.Step(distseq.InputMessage{From: distseq.NodeID(from), Body: body}); err != nil {
			t.Fatalf("step: %v", err)
		}
		if err := c.CheckInvariants(); err != nil {
			t.Fatalf("invariant after a message: %v", err)
		}
		if _, err := c.Step(distseq.InputTick{Now: clock.Epoch.Add(10 * time.Second)}); err != nil {
			t.Fatalf("tick: %v", err)
		}
		if err := c.CheckInvariants(); err != nil {
			t.Fatalf("invariant after a tick: %v", err)
		}
	})
}
