package distseq_test

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
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

// TestNodeDrivesTheProtocol: three Nodes, each Run in its own goroutine on
// the wall clock, over a transport that knows nothing of the core: an
// intent submitted at one is committed, delegated, assembled, endorsed by
// all, dispatched once, confirmed, and its states reach every member.
func TestNodeDrivesTheProtocol(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ids := []transport.NodeID{"A", "B", "C"}
	var members []store.DistseqMember
	keys := map[transport.NodeID]ed25519.PrivateKey{}
	for i, id := range ids {
		k := ed25519.NewKeyFromSeed(append(make([]byte, 31), byte(i+1)))
		keys[id] = k
		members = append(members, store.DistseqMember{ID: string(id), PublicKey: hex.EncodeToString(k.Public().(ed25519.PublicKey))})
	}
	peers := map[transport.NodeID]func(transport.Message){}
	led := &ledger{}
	nodes := map[transport.NodeID]*distseq.Node{}
	stores := map[transport.NodeID]*memstore.Distseq{}
	var wg sync.WaitGroup
	for _, id := range ids {
		st := memstore.NewDistseq()
		n, err := distseq.NewNode(distseq.NodeConfig{Core: distseq.CoreConfig{Key: keys[id], Domain: token.Domain{}},
			Store: st, Transport: &loop{self: id, peers: peers}, Submitter: led, Tick: 10 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		nodes[id], stores[id] = n, st
		peers[id] = n.Handle
	}
	coins := token.Mint("m", "", 100, 100)
	for _, id := range ids {
		nodes[id].Events(distseq.InputEvents{Height: 1, Cursor: 2, Events: []distseq.ChainEvent{
			{Kind: distseq.EventGroupDeployed, Contract: "g", Height: 1, Group: store.DistseqGroup{Contract: "g", Members: members}},
			{Kind: distseq.EventStatesMinted, Contract: "g", Height: 1, States: coins}}})
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := nodes[id].Run(ctx); err != nil {
				t.Errorf("node %s: %v", id, err)
			}
		}()
	}
	txID, err := nodes["B"].Submit(ctx, "g", "key-1", []byte(`{"to":"alice","amount":30}`))
	if err != nil {
		t.Fatal(err)
	}
	if again, err := nodes["B"].Submit(ctx, "g", "key-1", []byte(`{"to":"alice","amount":30}`)); err != nil || again != txID {
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
	if call.TxID != txID || len(call.Endorsements) != len(ids) {
		t.Fatalf("dispatch %+v, want %s endorsed by all", call, txID)
	}
	a := distseq.Assembly{Spends: call.Spends}
	var created []string
	for _, s := range call.Creates {
		a.Creates = append(a.Creates, distseq.StateRef{ID: s.ID, Owner: s.Owner, Data: s.Data})
		created = append(created, s.ID)
	}
	d := token.Domain{}.Digest("g", txID, a)
	for _, id := range ids {
		nodes[id].Events(distseq.InputEvents{Height: 2, Cursor: 3, Events: []distseq.ChainEvent{{Kind: distseq.EventIntentConfirmed,
			Contract: "g", Height: 2, TxID: txID, Spends: call.Spends, Creates: created, Digest: hex.EncodeToString(d[:])}}})
	}
	waitFor(t, "the intent confirmed at its sender and its states at every member", func() bool {
		rec, err := stores["B"].DistseqIntent(ctx, txID)
		if err != nil || rec.Status != store.DistseqConfirmed {
			return false
		}
		for _, id := range ids {
			st, _ := stores[id].DistseqStates(ctx, "g", true)
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
	cancel()
	wg.Wait()
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
