package distseq_test

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/distseq/token"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/memstore"
	"github.com/ordolabs/ordo/internal/transport"
)

// loop is a transport between in-process nodes: Send hands the message to
// the peer's handler (which only queues it), with the sender as From.
type loop struct {
	self  transport.NodeID
	peers map[transport.NodeID]func(transport.Message)
}

func (l *loop) Self() transport.NodeID { return l.self }
func (l *loop) Send(_ context.Context, to transport.NodeID, m transport.Message) error {
	h := l.peers[to]
	if h == nil {
		return transport.ErrUnknownPeer
	}
	m.From = l.self
	h(m)
	return nil
}

// ledger is the test's base ledger: it records each dispatch, which the
// test then confirms to every node as its indexer would.
type ledger struct {
	mu    sync.Mutex
	calls []token.ConfirmArgs
}

func (l *ledger) Submit(_ context.Context, _, _ string, call []byte) error {
	var a token.ConfirmArgs
	if err := json.Unmarshal(call, &a); err != nil {
		return err
	}
	l.mu.Lock()
	l.calls = append(l.calls, a)
	l.mu.Unlock()
	return nil
}

// member is one node of the test committee: its identity key and the
// transport that reaches the others.
type member struct {
	id  transport.NodeID
	key ed25519.PrivateKey
	tr  transport.Transport
}

// TestNodeDrivesTheProtocol: three Nodes, each Run in its own goroutine on
// the wall clock, over a transport that knows nothing of the core: an
// intent submitted at one is committed, delegated, assembled, endorsed by
// all, dispatched once, confirmed, and its states reach every member.
func TestNodeDrivesTheProtocol(t *testing.T) {
	peers := map[transport.NodeID]func(transport.Message){}
	var ms []member
	for i, id := range []transport.NodeID{"A", "B", "C"} {
		ms = append(ms, member{id: id, key: ed25519.NewKeyFromSeed(append(make([]byte, 31), byte(i+1))), tr: &loop{self: id, peers: peers}})
	}
	driveProtocol(t, ms, func(id transport.NodeID, h func(transport.Message)) { peers[id] = h })
}

// driveProtocol runs the committee ms (its transports delivering through
// the handler bind registers) through one intent, end to end.
func driveProtocol(t *testing.T, ms []member, bind func(transport.NodeID, func(transport.Message))) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var members []store.DistseqMember
	for _, m := range ms {
		members = append(members, store.DistseqMember{ID: string(m.id), PublicKey: hex.EncodeToString(m.key.Public().(ed25519.PublicKey))})
	}
	led := &ledger{}
	nodes := map[transport.NodeID]*distseq.Node{}
	stores := map[transport.NodeID]*memstore.Distseq{}
	var wg sync.WaitGroup
	for _, m := range ms {
		st := memstore.NewDistseq()
		n, err := distseq.NewNode(distseq.NodeConfig{Core: distseq.CoreConfig{Key: m.key, Domain: token.Domain{}},
			Store: st, Transport: m.tr, Submitter: led, Tick: 10 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		nodes[m.id], stores[m.id] = n, st
		bind(m.id, n.Handle)
	}
	sender := ms[1].id
	coins := token.Mint("m", "u@"+string(sender), 100, 100)
	for _, m := range ms {
		nodes[m.id].Events(distseq.InputEvents{Height: 1, Cursor: 2, Events: []distseq.ChainEvent{
			{Kind: distseq.EventGroupDeployed, Contract: "g", Height: 1, Group: store.DistseqGroup{Contract: "g", Members: members}},
			{Kind: distseq.EventStatesMinted, Contract: "g", Height: 1, States: coins}}})
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := nodes[m.id].Run(ctx); err != nil {
				t.Errorf("node %s: %v", m.id, err)
			}
		}()
	}
	txID, err := nodes[sender].Submit(ctx, "g", "key-1", []byte(`{"from":"u@`+string(sender)+`","to":"alice","amount":30}`))
	if err != nil {
		t.Fatal(err)
	}
	if again, err := nodes[sender].Submit(ctx, "g", "key-1", []byte(`{"from":"u@`+string(sender)+`","to":"alice","amount":30}`)); err != nil || again != txID {
		t.Fatalf("resend with the same key: %q, %v; want %q", again, err, txID)
	}
	var call token.ConfirmArgs
	waitFor(t, "one dispatch", func() bool {
		led.mu.Lock()
		defer led.mu.Unlock()
		if len(led.calls) == 1 {
			call = led.calls[0]
		}
		return len(led.calls) == 1
	})
	if call.TxID != txID || len(call.Endorsements) != len(ms) {
		t.Fatalf("dispatch %+v, want %s endorsed by all", call, txID)
	}
	a := distseq.Assembly{Spends: call.Spends}
	var created []string
	for _, s := range call.Creates {
		a.Creates = append(a.Creates, distseq.StateRef{ID: s.ID, Owner: s.Owner, Data: s.Data})
		created = append(created, s.ID)
	}
	d := token.Domain{}.Digest("g", txID, a)
	for _, m := range ms {
		nodes[m.id].Events(distseq.InputEvents{Height: 2, Cursor: 3, Events: []distseq.ChainEvent{{Kind: distseq.EventIntentConfirmed,
			Contract: "g", Height: 2, TxID: txID, Spends: call.Spends, Creates: created, Digest: hex.EncodeToString(d[:])}}})
	}
	waitFor(t, "the intent confirmed at its sender and its states at every member", func() bool {
		rec, err := stores[sender].DistseqIntent(ctx, txID)
		if err != nil || rec.Status != store.DistseqConfirmed {
			return false
		}
		for _, m := range ms {
			st, _ := stores[m.id].DistseqStates(ctx, "g", true)
			have := map[string]bool{}
			for _, s := range st {
				have[s.ID] = len(s.Data) > 0
			}
			for _, c := range created {
				if !have[c] {
					return false
				}
			}
		}
		return true
	})
	// Every member reads the same coordinator for g, and that member
	// says it coordinates it.
	var coord distseq.NodeID
	coordinating := 0
	for _, m := range ms {
		cs, err := nodes[m.id].Contracts(ctx)
		if err != nil || len(cs) != 1 || cs[0].Contract != "g" || cs[0].Coordinator == "" {
			t.Fatalf("%s: Contracts() = %+v, %v", m.id, cs, err)
		}
		if coord != "" && cs[0].Coordinator != coord {
			t.Fatalf("%s sees coordinator %s, another member %s", m.id, cs[0].Coordinator, coord)
		}
		coord = cs[0].Coordinator
		if cs[0].Coordinating {
			coordinating++
			if distseq.NodeID(m.id) != coord {
				t.Fatalf("%s coordinates g, yet the members' coordinator is %s", m.id, coord)
			}
		}
	}
	if coordinating != 1 {
		t.Fatalf("%d members coordinate g, want 1", coordinating)
	}
	cancel()
	wg.Wait()
	if _, err := nodes[sender].Contracts(context.Background()); !errors.Is(err, distseq.ErrStopped) {
		t.Fatalf("Contracts after Run returned: %v, want ErrStopped", err)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
