package node

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/api"
	"github.com/ordolabs/ordo/internal/testkit"
)

// TestDashboardRoutes: a running node answers GET /v1/session with its
// engines, chain and explorer link, samples its figures for GET
// /v1/stats/history, and ends an open change stream at its shutdown
// (else the server's Shutdown waits out its timeout).
func TestDashboardRoutes(t *testing.T) {
	const explorer = "https://explorer.example/tx/{hash}"
	l, err := StartLocal(context.Background(), Config{DevSenders: 1, DevMode: true,
		Dashboard: DashboardConfig{ExplorerTxURL: explorer, SampleInterval: Duration(time.Second), HistorySamples: 4}}, Options{Logger: slog.New(slog.DiscardHandler)}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = l.Stop()
		}
	})
	base := "http://" + l.Addr
	get := func(path string, v any) {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", path, resp.StatusCode)
		}
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
	}
	var s api.SessionResponse
	get("/v1/session", &s)
	if s.Principal != "dev" || !s.DevMode || s.Chain.Name != "devchain" || s.Chain.ExplorerTxURL != explorer ||
		len(s.Engines) < 2 || s.Engines[0] != "sequencer" || s.Version == "" {
		t.Fatalf("GET /v1/session = %+v", s)
	}
	testkit.WaitFor(t, 20*time.Second, 50*time.Millisecond, "two samples", func() bool {
		var h api.StatsHistoryResponse
		get("/v1/stats/history", &h)
		return h.Capacity == 4 && h.IntervalSeconds == 1 && len(h.Samples) >= 2 && h.Samples[1].At.After(h.Samples[0].At) &&
			h.Samples[1].Intents != nil && h.Samples[1].SendersFree+h.Samples[1].SendersBusy == 1
	})

	// A change stream open when the node stops ends.
	resp, err := http.Get(base + "/v1/changes")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET /v1/changes: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	ended := make(chan struct{})
	sc := bufio.NewScanner(resp.Body)
	go func() {
		defer close(ended)
		for sc.Scan() {
		}
	}()
	stopped = true
	t0 := time.Now()
	if err := l.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	// Unended, the stream would hold the server's Shutdown for its whole
	// 5s timeout (ServeHTTP).
	if took := time.Since(t0); took >= 4500*time.Millisecond {
		t.Fatalf("Stop took %v with a change stream open: the stream did not end at shutdown", took)
	}
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the change stream outlived the node")
	}
}
