package sim

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"sort"
	"testing"

	"github.com/ordolabs/ordo/internal/processor"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit"
)

// TestProcessorSeeds runs the processor simulation over a few seeds; a
// broken invariant prints the seed and the shortest failing trace.
func TestProcessorSeeds(t *testing.T) {
	steps := 300
	if !testkit.Long() {
		steps = 120
	}
	for seed := uint64(1); seed <= uint64(simSeeds(t, 4)); seed++ {
		res, err := RunProcessor(context.Background(), ProcessorConfig{Seed: seed, Steps: steps, Dir: t.TempDir(), ShrinkBudget: 20e9})
		var v *ProcViolation
		if errors.As(err, &v) {
			t.Errorf("%v\nreplay: go run ./cmd/ordo sim processor --seed %d --steps %d\nshortest trace (%d actions):", v, seed, steps, len(v.Trace))
			for i, a := range v.Trace {
				t.Logf("  %4d %s", i+1, a)
			}
			continue
		}
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if res.Batches == 0 || res.Landings == 0 {
			t.Errorf("seed %d: %+v: the run did nothing", seed, res)
		}
		t.Logf("seed %d: %+v", seed, res)
	}
}

// TestProcessorDigestRepeats runs one seed twice: the same digest; another
// seed, another digest.
func TestProcessorDigestRepeats(t *testing.T) {
	cfg := ProcessorConfig{Seed: 7, Steps: 200, Dir: t.TempDir(), ShrinkBudget: -1}
	a, err := RunProcessor(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := RunProcessor(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if a.Digest != b.Digest || !reflect.DeepEqual(a, b) {
		t.Fatalf("same seed, two runs:\n%+v\n%+v", a, b)
	}
	cfg.Seed = 8
	c, err := RunProcessor(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c.Digest == a.Digest {
		t.Fatalf("seeds 7 and 8 gave one digest %s", a.Digest)
	}
}

// TestProcessorSimCatchesMutants plants faults the checker must find: a
// second outcome of an ended batch in the store, a delivery under a key
// that names no ended batch, a delivery with another outcome. Each must
// break its invariant, with a failing trace no longer than the run.
func TestProcessorSimCatchesMutants(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		inv    string
		mutate func(t *testing.T, w *procWorld) bool // reports whether it planted its fault
	}{
		{"double outcome", InvProcOutcome, func(t *testing.T, w *procWorld) bool {
			b := firstEnded(w)
			if b == "" {
				return false
			}
			cb := w.chk.cbs[b]
			cb.Seq += 1000
			cb.Key += "#again" // the store refuses a key twice
			if err := w.st.ApplyProcessor(ctx, store.ProcChanges{Callbacks: []store.Callback{cb}}); err != nil {
				t.Fatal(err)
			}
			return true
		}},
		{"delivery under a stray key", InvProcDelivery, func(t *testing.T, w *procWorld) bool {
			w.recv.got = append(w.recv.got, delivery{key: "p0/never", ok: true,
				body: processor.CallbackBody{Processor: "p0", BatchID: "never", Key: "p0/never"}})
			return true
		}},
		{"delivery of another outcome", InvProcDelivery, func(t *testing.T, w *procWorld) bool {
			b := firstEnded(w)
			if b == "" {
				return false
			}
			var body processor.CallbackBody
			if err := json.Unmarshal(w.chk.cbs[b].Body, &body); err != nil {
				t.Fatal(err)
			}
			body.Outcome.Executed += 7
			w.recv.got = append(w.recv.got, delivery{key: body.Key, ok: true, body: body})
			return true
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			planted := false
			cfg := ProcessorConfig{Seed: 3, Steps: 200, Dir: t.TempDir(), ShrinkBudget: 10e9, mutate: func(w *procWorld) {
				if !planted {
					planted = tc.mutate(t, w)
				}
			}}
			_, err := RunProcessor(ctx, cfg)
			var v *ProcViolation
			if !errors.As(err, &v) || v.Invariant != tc.inv {
				t.Fatalf("planted %s: %v, want a violation of %q", tc.name, err, tc.inv)
			}
			if len(v.Trace) == 0 || len(v.Trace) > v.Step {
				t.Fatalf("trace of %d actions for a break at step %d", len(v.Trace), v.Step)
			}
			t.Logf("%v; shortest trace %d actions (of %d)", v, len(v.Trace), v.Step)
		})
	}
}

// firstEnded is the first batch (in id order) with a callback, "" when
// none has one yet.
func firstEnded(w *procWorld) string {
	var ids []string
	for b := range w.chk.cbs {
		ids = append(ids, b)
	}
	sort.Strings(ids)
	if len(ids) == 0 {
		return ""
	}
	return ids[0]
}

// TestProcActionsRoundTrip: every action drawn prints to a line that reads
// back as the same action, so a printed failing trace can be run again.
func TestProcActionsRoundTrip(t *testing.T) {
	kinds := map[ProcKind]int{}
	for _, a := range genProcActions(5, 5000) {
		kinds[a.Kind]++
		got, err := ParseProcAction(" 17 " + a.String())
		if err != nil || !reflect.DeepEqual(got, a) {
			t.Fatalf("%q read back as %+v (%v), want %+v", a.String(), got, err, a)
		}
	}
	if len(kinds) != 12 {
		t.Fatalf("5000 actions drew kinds %v, want all 12", kinds)
	}
	for _, bad := range []string{"", "tick {", "nope", "add {\"x\":1}", "17"} {
		if a, err := ParseProcAction(bad); err == nil {
			t.Errorf("%q read as %+v", bad, a)
		}
	}
}
