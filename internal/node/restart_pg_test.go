package node

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit"
	"github.com/ordolabs/ordo/internal/testkit/pgtest"
)

// TestPostgresStartLogsNoError: a node on PostgreSQL started over a
// backlog in 40 queues (taken in by a node built on the same data
// directory and database, then closed as a kill -9 leaves it: leases
// held) takes the leases of its previous run back at once, with higher
// tokens, and logs nothing at ERROR while it drains the backlog. Before the
// fix, the lease keeper's first cycles changed the leases held while the
// sequencer loaded its queues, and each load canceled by the reload
// logged "load waiting transactions … context canceled".
func TestPostgresStartLogsNoError(t *testing.T) {
	u := pgtest.URL(t)
	data := t.TempDir()
	// A shared store takes a chain of its own process (an in-process
	// devchain is refused there).
	_, chainURL := standaloneChain(t, DevchainConfig{BlockTime: Duration(itBlockTime)})
	cfg := Config{
		Data: data, Chain: chainURL, DevSenders: itSenders, RetryDelay: Duration(itRetryDelay), InclusionTimeoutBlocks: itInclusionTimeout,
		Principals: []auth.PrincipalConfig{{Principal: "it", Token: itToken, Roles: []auth.Role{auth.RoleRead}}},
		Store:      StoreConfig{URL: u, LeaseTTL: Duration(2 * time.Second)},
	}
	flow := votingFlow("pgstart", 40, 3)
	first, err := Build(t.Context(), cfg, Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.Sequencer.Submit(t.Context(), flow); err != nil {
		t.Fatal(err)
	}
	if err := first.leases.cycle(t.Context()); err != nil { // takes the queues with work
		t.Fatal(err)
	}
	before := first.leases.Held().Fence
	if err := first.Close(); err != nil { // no Serve: its leases stay held, as after a kill -9
		t.Fatal(err)
	}

	var logs testkit.LogBuffer
	n, err := Build(t.Context(), cfg, Options{Logger: logs.JSONLogger(slog.LevelInfo)})
	if err != nil {
		t.Fatal(err)
	}
	// The same data directory is the same holder: it holds its leases
	// again at once, each with a higher token (the first run's writes are
	// fenced), without waiting for the ttl.
	after := n.leases.Held().Fence
	if after.Holder != before.Holder || len(before.Leases) != 40+itSenders || len(after.Leases) != len(before.Leases) {
		t.Fatalf("restarted as holder %q with %d leases; before, %q held %d (want 40 queues and %d senders)", after.Holder, len(after.Leases), before.Holder, len(before.Leases), itSenders)
	}
	for name, tok := range before.Leases {
		if after.Leases[name] <= tok {
			t.Fatalf("lease %s: token %d after the restart, %d before: want it higher", name, after.Leases[name], tok)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- n.Serve(ctx, ln) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
		if err := n.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	}()
	testkit.WaitFor(t, 60*time.Second, 50*time.Millisecond, "the backlog DONE", func() bool {
		done := 0
		for after := int64(0); ; {
			txs, err := n.store.List(t.Context(), store.Filter{After: after, Limit: 500})
			if err != nil {
				t.Fatal(err)
			}
			for _, tx := range txs {
				if tx.State == store.Done {
					done++
				}
			}
			if len(txs) < 500 {
				break
			}
			after = txs[len(txs)-1].Seq
		}
		return done == len(flow)
	})
	var errs []string
	for line := range strings.Lines(logs.String()) {
		if strings.Contains(line, `"level":"ERROR"`) {
			errs = append(errs, line)
		}
	}
	if len(errs) > 0 {
		t.Fatalf("%d ERROR records at a normal start, the first:\n%s", len(errs), strings.Join(errs[:min(len(errs), 3)], ""))
	}
}
