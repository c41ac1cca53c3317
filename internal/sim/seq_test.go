package sim

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strconv"
	"testing"

	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/testkit"
)

// simSeeds is how many seeds TestSequencerSeeds runs: ORDO_SIM_SEEDS
// overrides it (CI runs more through `ordo sim sequencer`).
func simSeeds(t *testing.T, def int) int {
	if s := os.Getenv("ORDO_SIM_SEEDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("ORDO_SIM_SEEDS=%q: %v", s, err)
		}
		return n
	}
	return def
}

// TestSequencerSeeds runs the simulation over a few seeds; a broken
// invariant prints the seed and the shortest failing trace.
func TestSequencerSeeds(t *testing.T) {
	steps := 400
	if !testkit.Long() {
		steps = 150
	}
	for seed := uint64(1); seed <= uint64(simSeeds(t, 4)); seed++ {
		res, err := RunSequencer(context.Background(), SequencerConfig{Seed: seed, Steps: steps, Dir: t.TempDir(), ShrinkBudget: 20e9})
		var v *Violation
		if errors.As(err, &v) {
			t.Errorf("%v\nreplay: go run ./cmd/ordo sim sequencer --seed %d --steps %d\nshortest trace (%d actions):", v, seed, steps, len(v.Trace))
			for i, a := range v.Trace {
				t.Logf("  %4d %s", i+1, a)
			}
			continue
		}
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if res.Intents == 0 || res.Done == 0 {
			t.Errorf("seed %d: %+v: the run did nothing", seed, res)
		}
		t.Logf("seed %d: intents %d done %d failed %d blocks %d faults %d crashes %d drain %v digest %.12s",
			seed, res.Intents, res.Done, res.Failed, res.Blocks, res.Faults, res.Crashes, res.Drain, res.Digest)
	}
}

// TestSequencerDigestRepeats runs one seed twice: the same digest.
func TestSequencerDigestRepeats(t *testing.T) {
	cfg := SequencerConfig{Seed: 7, Steps: 200, Dir: t.TempDir(), ShrinkBudget: -1}
	a, err := RunSequencer(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := RunSequencer(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if a.Digest != b.Digest || a != b {
		t.Fatalf("same seed, two runs:\n%+v\n%+v", a, b)
	}
	cfg.Seed = 8
	c, err := RunSequencer(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c.Digest == a.Digest {
		t.Fatalf("seeds 7 and 8 gave one digest %s", a.Digest)
	}
}

// TestSequencerTraceReplays records a randomized run of the real driver
// (with crashes: one core start per restart) and replays the file into fresh
// cores: every Ready is identical.
func TestSequencerTraceReplays(t *testing.T) {
	var trace bytes.Buffer
	res, err := RunSequencer(context.Background(), SequencerConfig{Seed: 3, Steps: 300, Dir: t.TempDir(), Trace: &trace, ShrinkBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	st, err := sequencer.Replay(bytes.NewReader(trace.Bytes()))
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	if st.Starts != res.Crashes+1 || st.Inputs == 0 || st.Readys == 0 {
		t.Fatalf("replay %+v of a run with %d crashes", st, res.Crashes)
	}
	// A changed input diverges: the replay is a real check.
	bad := bytes.Replace(trace.Bytes(), []byte(`"minFee":1000`), []byte(`"minFee":1001`), 1)
	if _, err := sequencer.Replay(bytes.NewReader(bad)); !errors.Is(err, sequencer.ErrReplayDiverged) {
		t.Fatalf("replay of a changed trace: %v, want ErrReplayDiverged", err)
	}
	t.Logf("replayed %d starts, %d inputs, %d Readys", st.Starts, st.Inputs, st.Readys)
}

// TestSequencerSimCatchesMutant runs a node that trusts inclusions a reorg
// can undo (one confirmation under reorgs of depth 2): the simulation must
// report a broken invariant, with a failing trace shorter than the run.
func TestSequencerSimCatchesMutant(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		_, err := RunSequencer(context.Background(), SequencerConfig{Seed: seed, Steps: 600, Confirmations: 1, Dir: t.TempDir(), ShrinkBudget: 10e9})
		var v *Violation
		if !errors.As(err, &v) {
			continue
		}
		t.Logf("seed %d: %v; shortest trace %d actions (of %d)", seed, v, len(v.Trace), v.Step)
		for i, a := range v.Trace {
			t.Logf("  %4d %s", i+1, a)
		}
		if len(v.Trace) == 0 || len(v.Trace) > v.Step {
			t.Fatalf("trace of %d actions for a break at step %d", len(v.Trace), v.Step)
		}
		return
	}
	t.Fatal("no seed of 1..5 broke an invariant with confirmations 1 under reorgs of depth 2")
}

// newTestWorld builds a world from cfg (defaults filled in) and closes it
// when the test ends.
func newTestWorld(t *testing.T, cfg *SequencerConfig) *seqWorld {
	t.Helper()
	cfg.setDefaults()
	w, err := newSeqWorld(context.Background(), *cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.close)
	return w
}
