package sim

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestDeepReorgFlagsDone: a reorg deeper than the chain declares, replacing
// the block that held a DONE transaction's inclusion, is detected by the
// node's loop and flags that record in its history (DONE stays DONE); a
// reorg within the declared depth flags nothing.
func TestDeepReorgFlagsDone(t *testing.T) {
	ctx := context.Background()
	m := sequencer.NewMetrics(nil)
	cfg := SequencerConfig{Seed: 5, ReorgDepth: 1, Dir: t.TempDir(), metrics: m}
	w := newTestWorld(t, &cfg)
	if err := w.submit(ctx, Action{Kind: ActSubmit, Queue: 0, N: 1}); err != nil {
		t.Fatal(err)
	}
	uid := w.chk.uids()[0]
	for w.chk.recs[uid].end == "" && w.res.Blocks < 30 {
		if err := w.advance(ctx, time.Second); err != nil {
			t.Fatal(err)
		}
	}
	if w.chk.recs[uid].end != store.Done {
		t.Fatalf("%s is %q", uid, w.chk.recs[uid].end)
	}
	flags := func() []string {
		hist, err := w.st.History(ctx, uid)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range hist {
			if strings.HasPrefix(h.Note, "anomaly:") {
				out = append(out, h.Note)
			}
		}
		return out
	}
	// Within the declared depth (1): no flag.
	if err := w.do(ctx, Action{Kind: ActFault, Fault: FaultReorg, K: 1}); err != nil {
		t.Fatal(err)
	}
	if f := flags(); len(f) != 0 || testutil.ToFloat64(m.DeepReorgs) != 0 {
		t.Fatalf("a declared reorg flagged %s: %v (counted %v)", uid, f, testutil.ToFloat64(m.DeepReorgs))
	}
	// Deeper than declared, down past the inclusion: flagged.
	if err := w.do(ctx, Action{Kind: ActFault, Fault: FaultReorg, K: 4}); err != nil {
		t.Fatal(err)
	}
	f := flags()
	if got := testutil.ToFloat64(m.DeepReorgs); got != 1 {
		t.Fatalf("deep reorgs counted %v, want 1", got)
	}
	if len(f) != 1 || !strings.Contains(f[0], "deeper than the 1 the chain declares") {
		t.Fatalf("flags after a reorg of depth 4: %v", f)
	}
	tx, err := w.st.Get(ctx, uid)
	if err != nil || tx.State != store.Done {
		t.Fatalf("%s: %s %v; DONE stays DONE", uid, tx.State, err)
	}
	t.Log(f[0])
}
