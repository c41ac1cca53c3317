package bench

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A small run of the leader benchmark: every request ends Successful with
// one result on chain.
func TestLeaderBenchSmall(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r, err := Leader(ctx, LeaderOptions{Requests: 40, Channels: 4, Requesters: 2, BlockTime: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if r.Successful != 40 || r.Dead != 0 || r.P50 == 0 || r.P99 < r.P50 || r.Rate <= 0 {
		t.Fatalf("%+v", r)
	}
	t.Log(r)
}

// The same on a simulated EVM chain: every walk has its result on the
// Workflow contract, read back over JSON-RPC.
func TestLeaderBenchEVM(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r, err := Leader(ctx, LeaderOptions{Requests: 40, Channels: 4, Requesters: 2, BlockTime: 50 * time.Millisecond, Chain: "evm"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Successful != 40 || r.Dead != 0 || r.P50 == 0 || r.P99 < r.P50 || r.Rate <= 0 || !strings.Contains(r.String(), "(simulated EVM chain)") {
		t.Fatalf("%+v", r)
	}
	t.Log(r)
}
