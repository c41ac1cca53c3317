package node

import (
	"context"
	"encoding/hex"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
)

// TestBuildUnreachableChain: a node starts without its chain (startup.go),
// with or without leader.accounts (their channels are read once it
// answers); what needs no chain is still checked at once: a leader
// account that is not a keystore sender is refused, in one sentence.
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
	if err == nil || !strings.Contains(err.Error(), "leader.accounts[0]: "+leaderAcct+" is not one of the node's keystore senders") || strings.Count(err.Error(), "\n") > 0 {
		t.Fatalf("Build against %s with a leader account that is no sender: %v, want one line naming leader.accounts[0]", url, err)
	}
	for _, leader := range []LeaderConfig{{}, {Accounts: []string{leaderAcct}}} {
		cfg.Leader, cfg.Data = leader, t.TempDir()
		if leader.Accounts != nil {
			keyFile := filepath.Join(t.TempDir(), "leader.key")
			if err := os.WriteFile(keyFile, []byte(hex.EncodeToString(chain.KeyFromSeed("leader").Seed())), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg.Senders = []SenderFile{{KeyFile: keyFile}}
		}
		n, err := Build(context.Background(), cfg, Options{Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatalf("Build against %s with leader.accounts %v: %v, want a node that waits for its chain", url, leader.Accounts, err)
		}
		_ = n.Close()
	}
}
