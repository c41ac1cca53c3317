package dispatch_test

import (
	"context"
	"crypto/ed25519"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/store/sqlite"
)

// testEnv is a running devchain with blocks every blockTime, a funded key
// and a SQLite store, all closed when the test ends.
type testEnv struct {
	dc  *devchain.Chain
	st  *sqlite.Store
	key ed25519.PrivateKey
}

func newTestEnv(ctx context.Context, t *testing.T, blockTime time.Duration, keySeed string) testEnv {
	t.Helper()
	dc, err := devchain.New(devchain.Config{BlockTime: blockTime})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dc.Close() })
	go func() { _ = dc.Run(ctx) }()
	key := chain.KeyFromSeed(keySeed)
	if _, err := dc.Faucet(ctx, chain.KeyAddress(key), 1e12); err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(ctx, t.TempDir()+"/ordo.db", sqlite.Options{Synchronous: "NORMAL"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return testEnv{dc: dc, st: st, key: key}
}

// startNode builds a node on the env's store and chain from cfg, runs it
// until ctx ends and waits for it to start.
func (e testEnv) startNode(ctx context.Context, t *testing.T, cfg sequencer.Config) *sequencer.Node {
	t.Helper()
	cfg.Store, cfg.Chain, cfg.PollInterval = e.st, e.dc, 20*time.Millisecond
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	n, err := sequencer.NewNode(cfg)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = n.Run(ctx) }()
	<-n.Started()
	return n
}
