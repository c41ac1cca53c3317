package bench

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/testkit"
)

// TestSMM runs a small `ordo bench smm` (100 queues, 200 intents/s for
// 2s) and checks its line carries each figure.
func TestSMM(t *testing.T) {
	if !testkit.Long() {
		t.Skip("three nodes on the wall clock")
	}
	var progress *os.File
	if testing.Verbose() {
		progress = os.Stderr
	}
	o := SMMOptions{Queues: 100, Rate: 200, LoadQueues: 10, Load: 2 * time.Second, BlockTime: 200 * time.Millisecond, UnhealthyAfter: time.Second}
	if progress != nil {
		o.Progress = progress
	}
	if v := os.Getenv("ORDO_BENCH_SMM_QUEUES"); v != "" {
		o.Queues, o.Rate, o.LoadQueues, o.Load, o.BlockTime, o.UnhealthyAfter = 10000, 1000, 100, 10*time.Second, time.Second, 2*time.Second
	}
	r, err := SMM(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(r)
	if r.Cycle <= 0 || r.Synced == 0 || r.LagP50 <= 0 || r.FailoverBlocks == 0 || !strings.HasPrefix(r.String(), "smm: 3 nodes x ") {
		t.Errorf("a figure is missing: %+v", r)
	}
}
