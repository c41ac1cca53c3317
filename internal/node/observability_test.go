package node

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/api"
)

// health.chainTimeout: 30s by default (in the example config too), a
// negative one refused naming the field.
func TestHealthConfig(t *testing.T) {
	var c Config
	c.SetDefaults()
	if time.Duration(c.Health.ChainTimeout) != DefaultChainTimeout || DefaultChainTimeout != 30*time.Second {
		t.Fatalf("default chainTimeout %v", time.Duration(c.Health.ChainTimeout))
	}
	ex, err := LoadConfig("../../docs/ordo.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if time.Duration(ex.Health.ChainTimeout) != DefaultChainTimeout {
		t.Fatalf("example chainTimeout %v", time.Duration(ex.Health.ChainTimeout))
	}
	p := filepath.Join(t.TempDir(), "c.yaml")
	if err := writeFile(p, "health:\n  chainTimeout: 5s\n"); err != nil {
		t.Fatal(err)
	}
	if c, err := LoadConfig(p); err != nil || time.Duration(c.Health.ChainTimeout) != 5*time.Second {
		t.Fatalf("chainTimeout 5s: %v %v", time.Duration(c.Health.ChainTimeout), err)
	}
	bad := Config{Data: t.TempDir(), Health: HealthConfig{ChainTimeout: Duration(-time.Second)}}
	if n, err := Build(context.Background(), bad, Options{Logger: slog.New(slog.DiscardHandler)}); err == nil {
		n.Close()
		t.Fatal("a negative chainTimeout was accepted")
	} else if !strings.Contains(err.Error(), "health.chainTimeout") {
		t.Fatalf("error %q does not name health.chainTimeout", err)
	}
}

// A built node's registry has the Go runtime and process collectors, the
// metered chain's metrics and the sequencer's; /healthz reports the chain and
// /readyz the start.
func TestNodeMetricsAndHealth(t *testing.T) {
	ctx := context.Background()
	l, err := StartLocal(ctx, Config{Data: t.TempDir(), DevSenders: 2, Devchain: DevchainConfig{BlockTime: Duration(50 * time.Millisecond)}},
		Options{Logger: slog.New(slog.DiscardHandler)}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := l.Stop(); err != nil {
			t.Error(err)
		}
	}()
	time.Sleep(200 * time.Millisecond) // a few blocks
	mfs, err := l.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, mf := range mfs {
		have[mf.GetName()] = true
	}
	for _, name := range []string{"go_goroutines", "go_memstats_heap_alloc_bytes", "process_start_time_seconds",
		"ordo_chain_call_duration_seconds", "ordo_chain_head_height", "ordo_chain_head_age_seconds", "ordo_chain_reachable", "ordo_chain_unanswered_seconds",
		"ordo_sequencer_queue_depth", "ordo_sequencer_senders", "ordo_sequencer_head_height", "ordo_sequencer_store_commit_seconds",
		"ordo_sequencer_store_commit_batch_records"} {
		if !have[name] {
			t.Errorf("metric %s missing", name)
		}
	}
	get := func(path string) (int, api.HealthResponse) {
		resp, err := http.Get("http://" + l.Addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var h api.HealthResponse
		if err := json.Unmarshal(b, &h); err != nil {
			t.Fatalf("%s: %q: %v", path, b, err)
		}
		return resp.StatusCode, h
	}
	if code, h := get("/healthz"); code != 200 || h.Status != api.StatusOK || h.Chain == nil || !h.Chain.Reachable || h.Chain.Head == 0 || h.Chain.Timeout != "30s" {
		t.Fatalf("/healthz %d %+v %+v", code, h, h.Chain)
	}
	if code, h := get("/readyz"); code != 200 || h.Status != api.StatusReady {
		t.Fatalf("/readyz %d %+v", code, h)
	}
}
