package sequencer

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/sqlite"
)

// gate holds each call until at calls are in flight at once: calls made
// one after the other never get through (they end with their context).
type gate struct {
	at       int
	mu       sync.Mutex
	inFlight int
	most     int
	full     chan struct{} // closed once at calls were in flight
	opened   bool
}

func newGate(at int) *gate { return &gate{at: at, full: make(chan struct{})} }

// enter waits for the gate to open, or for ctx; leave must follow.
func (g *gate) enter(ctx context.Context) error {
	g.mu.Lock()
	g.inFlight++
	g.most = max(g.most, g.inFlight)
	if g.inFlight == g.at && !g.opened {
		g.opened = true
		close(g.full)
	}
	g.mu.Unlock()
	select {
	case <-g.full:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g *gate) leave() {
	g.mu.Lock()
	g.inFlight--
	g.mu.Unlock()
}

// gatedAccounts holds each Account read at its gate.
type gatedAccounts struct {
	chain.Chain
	*gate
}

func (g gatedAccounts) Account(ctx context.Context, a chain.Address) (chain.Account, error) {
	defer g.leave()
	if err := g.enter(ctx); err != nil {
		return chain.Account{}, err
	}
	return g.Chain.Account(ctx, a)
}

// TestSyncSendersReadsAccountsAtOnce: a start reads startReads senders'
// accounts at once, never more, and saves every sender with the chain's
// nonce, in the configured order.
func TestSyncSendersReadsAccountsAtOnce(t *testing.T) {
	t.Parallel()
	dc, err := devchain.New(devchain.Config{})
	if err != nil {
		t.Fatal(err)
	}
	g := gatedAccounts{Chain: dc, gate: newGate(startReads)}
	var senders []SenderConfig
	for i := range 3*startReads + 1 {
		k := chain.KeyFromSeed(fmt.Sprintf("sync-%d", i))
		senders = append(senders, SenderConfig{ID: chain.KeyAddress(k), Key: k})
	}
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "ordo.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = st.Close() }()
	n, err := NewNode(Config{Store: st, Chain: g, Senders: senders, Logger: slog.New(slog.DiscardHandler),
		Dispatchers: map[string]Dispatcher{"T": builder{}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got, err := n.syncSenders(ctx, nil)
	if err != nil {
		t.Fatalf("syncSenders: %v (reads in flight at most %d, want %d at once)", err, g.most, startReads)
	}
	if g.most != startReads {
		t.Errorf("at most %d reads in flight, want %d", g.most, startReads)
	}
	if len(got) != len(senders) {
		t.Fatalf("%d senders saved, want %d", len(got), len(senders))
	}
	for i, s := range got {
		if s.ID != string(senders[i].ID) || s.NextNonce != 0 {
			t.Errorf("sender %d: %s nonce %d, want %s nonce 0", i, s.ID, s.NextNonce, senders[i].ID)
		}
	}
}

// gatedGets holds each Get at its gate.
type gatedGets struct {
	store.Store
	*gate
}

func (g gatedGets) Get(ctx context.Context, uid string) (store.Transaction, error) {
	defer g.leave()
	if err := g.enter(ctx); err != nil {
		return store.Transaction{}, err
	}
	return g.Store.Get(ctx, uid)
}

// TestLoadQueuesReadsBoundAtOnce: a start reads startReads bound queues'
// transactions at once, never more, and keeps the WAITING ones in the
// bindings' order.
func TestLoadQueuesReadsBoundAtOnce(t *testing.T) {
	t.Parallel()
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "ordo.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = st.Close() }()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	n := 3*startReads + 1
	var news []store.NewTransaction
	for i := range n {
		news = append(news, store.NewTransaction{UID: fmt.Sprintf("tx-%03d", i), Queue: fmt.Sprintf("q-%03d", i), Type: "T", Data: []byte(`{}`)})
	}
	if _, err := st.Enqueue(ctx, news); err != nil {
		t.Fatal(err)
	}
	var b store.Batch
	for i := range n {
		b.Queues = append(b.Queues, store.Queue{Name: fmt.Sprintf("q-%03d", i), State: store.Inclusion, Sender: fmt.Sprintf("s-%03d", i), TxUID: fmt.Sprintf("tx-%03d", i)})
	}
	if err := st.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	g := gatedGets{Store: st, gate: newGate(startReads)}
	var snap Snapshot
	if err := loadQueues(ctx, g, &snap); err != nil {
		t.Fatalf("loadQueues: %v (reads in flight at most %d, want %d at once)", err, g.most, startReads)
	}
	if g.most != startReads {
		t.Errorf("at most %d reads in flight, want %d", g.most, startReads)
	}
	if len(snap.Bound) != n {
		t.Fatalf("%d bound transactions, want %d", len(snap.Bound), n)
	}
	for i, tx := range snap.Bound {
		if want := fmt.Sprintf("tx-%03d", i); tx.UID != want {
			t.Errorf("bound %d: %s, want %s", i, tx.UID, want)
		}
	}
}
