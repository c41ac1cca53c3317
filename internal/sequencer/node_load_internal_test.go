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
	"github.com/ordolabs/ordo/internal/store/sqlite"
)

// gatedAccounts holds each Account read until accountReads of them are in
// flight at once: reads made one after the other never get through.
type gatedAccounts struct {
	chain.Chain
	mu       sync.Mutex
	inFlight int
	most     int
	full     chan struct{} // closed once accountReads were in flight
	opened   bool
}

func (g *gatedAccounts) Account(ctx context.Context, a chain.Address) (chain.Account, error) {
	g.mu.Lock()
	g.inFlight++
	g.most = max(g.most, g.inFlight)
	if g.inFlight == accountReads && !g.opened {
		g.opened = true
		close(g.full)
	}
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.inFlight--
		g.mu.Unlock()
	}()
	select {
	case <-g.full:
	case <-ctx.Done():
		return chain.Account{}, ctx.Err()
	}
	return g.Chain.Account(ctx, a)
}

// TestSyncSendersReadsAccountsAtOnce: a start reads accountReads senders'
// accounts at once, never more, and saves every sender with the chain's
// nonce, in the configured order.
func TestSyncSendersReadsAccountsAtOnce(t *testing.T) {
	t.Parallel()
	dc, err := devchain.New(devchain.Config{})
	if err != nil {
		t.Fatal(err)
	}
	g := &gatedAccounts{Chain: dc, full: make(chan struct{})}
	var senders []SenderConfig
	for i := range 3*accountReads + 1 {
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
		t.Fatalf("syncSenders: %v (reads in flight at most %d, want %d at once)", err, g.most, accountReads)
	}
	if g.most != accountReads {
		t.Errorf("at most %d reads in flight, want %d", g.most, accountReads)
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
