package sim

import (
	"context"
	"errors"
	"testing"
)

// TestProcessorSeeds runs the processor simulation over a few seeds; a
// broken invariant prints the seed and the shortest failing trace.
func TestProcessorSeeds(t *testing.T) {
	steps := 300
	if testing.Short() {
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
