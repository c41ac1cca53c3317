package procs_test

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/procs"
	"github.com/ordolabs/ordo/internal/testkit"
	"github.com/ordolabs/ordo/internal/testkit/pgtest"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	buildDir  string
)

// TestMain removes the binary's directory and stops the PostgreSQL cluster at the end.
func TestMain(m *testing.M) {
	code := pgtest.Main(m) // runs the tests, then stops the PostgreSQL cluster if one was started
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// ordoBin builds ./cmd/ordo once per test binary.
func ordoBin(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "ordo-procs-bin-")
		if buildErr == nil {
			binPath, buildErr = procs.Build(context.Background(), buildDir)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// startCommittee starts a committee for t, stopped at its end; on a
// failure the tail of every node's log is printed.
func startCommittee(t *testing.T, cfg procs.Config) *procs.Committee {
	t.Helper()
	if !testkit.Long() {
		t.Skip("processes: a long run (ORDO_LONG=1; .ci/run sets it)")
	}
	cfg.Bin = ordoBin(t)
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	c, err := procs.Start(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Stop(context.Background())
		if t.Failed() {
			for i := range c.Nodes() {
				t.Logf("--- node%d (%s) ---\n%s", i+1, c.LogPath(i), c.Tail(i, 30))
			}
		}
	})
	return c
}

// waitUntil polls cond every 50ms until it holds or d passes.
func waitUntil(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
