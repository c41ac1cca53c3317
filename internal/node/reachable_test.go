package node

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
)

// TestBuildUnreachableChain: a node starts without its chain (startup.go),
// but for what it cannot build without it: the leader's channels, read
// from the chain's caps. That refusal is one sentence naming the URL.
func TestBuildUnreachableChain(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0") // a free port, closed again: nothing answers there
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	_ = ln.Close()
	leaderAcct := string(chain.KeyAddress(chain.KeyFromSeed("leader")))
	cfg := Config{Data: t.TempDir(), Chain: url, DevSenders: 1, Leader: LeaderConfig{Accounts: []string{leaderAcct}}}
	_, err = Build(context.Background(), cfg, Options{Logger: slog.New(slog.DiscardHandler)})
	if !errors.Is(err, ErrChainUnreachable) || !strings.Contains(err.Error(), url) || !strings.Contains(err.Error(), "leader.accounts") || strings.Count(err.Error(), "\n") > 0 {
		t.Fatalf("Build against %s with leader.accounts: %v, want one line with ErrChainUnreachable naming the URL and leader.accounts", url, err)
	}
	cfg.Leader.Accounts, cfg.Data = nil, t.TempDir()
	n, err := Build(context.Background(), cfg, Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("Build against %s: %v, want a node that waits for its chain", url, err)
	}
	_ = n.Close()
}
