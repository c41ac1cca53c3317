package node

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/testkit"
)

// TestStopWaitsAtMostTheGrace: a node whose chain makes no block (a stall)
// cannot settle what it sent; stopped, it waits for its shutdownGrace
// (700ms), no longer, then stops its engines and says what was left.
func TestStopWaitsAtMostTheGrace(t *testing.T) {
	const grace = 700 * time.Millisecond
	cfg := Config{
		Data: t.TempDir(), DevSenders: itSenders, RetryDelay: Duration(itRetryDelay), InclusionTimeoutBlocks: itInclusionTimeout,
		Devchain:      DevchainConfig{BlockTime: Duration(itBlockTime), Faults: FaultConfig{Stall: Duration(time.Hour)}},
		Principals:    []auth.PrincipalConfig{{Principal: "it", Token: itToken, Roles: []auth.Role{auth.RoleRead}}},
		ShutdownGrace: Duration(grace),
	}
	var logs testkit.LogBuffer
	n, err := Build(t.Context(), cfg, Options{Logger: logs.JSONLogger(slog.LevelInfo)})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- n.Serve(ctx, ln) }()
	if _, err := n.Sequencer.Submit(t.Context(), votingFlow("stall", 3, 1)); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, 30*time.Second, 10*time.Millisecond, "a transaction sent", func() bool {
		c, err := n.inFlight(t.Context())
		return err == nil && c > 0
	})
	stopped := time.Now()
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(grace + 10*time.Second):
		t.Fatalf("Serve did not return %s after the grace", 10*time.Second)
	}
	if took := time.Since(stopped); took < grace {
		t.Fatalf("stopped after %s, before the grace (%s) ran out, with transactions in flight", took, grace)
	}
	if !strings.Contains(logs.String(), "stopped after the shutdown grace ran out") || strings.Contains(logs.String(), `"stopped cleanly"`) {
		t.Fatalf("the log does not say the grace ran out:\n%s", logs.String())
	}
	if recs := logs.Records(t, "stopped after the shutdown grace ran out"); len(recs) != 1 || recs[0]["inFlightLeft"].(float64) < 1 {
		t.Fatalf("records %v, want one naming what was left in flight", recs)
	}
}
