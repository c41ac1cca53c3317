package sim

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/distseq/cluster"
	"github.com/ordolabs/ordo/internal/store"
)

// distSeeds are the seeds the tests run: ORDO_SEED alone when set.
func distSeeds(t *testing.T, def ...uint64) []uint64 {
	t.Helper()
	if s := os.Getenv("ORDO_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("ORDO_SEED: %v", err)
		}
		return []uint64{n}
	}
	return def
}

func TestDistseqSeedsPass(t *testing.T) {
	for _, seed := range distSeeds(t, 1, 2, 3) {
		t.Logf("seed %d (replay: ORDO_SEED=%d)", seed, seed)
		res, err := RunDistseq(context.Background(), DistConfig{Seed: seed, Steps: 200, ShrinkBudget: -1})
		var v *DistViolation
		if errors.As(err, &v) {
			t.Fatalf("seed %d: %v\ntrace: %v", seed, v, v.Trace)
		}
		if err != nil {
			t.Fatal(err)
		}
		if res.Intents == 0 || res.Confirmed+res.Reverted != res.Intents {
			t.Fatalf("seed %d: %d intents, %d confirmed, %d reverted", seed, res.Intents, res.Confirmed, res.Reverted)
		}
	}
}

func TestDistseqSameSeedSameDigest(t *testing.T) {
	seed := distSeeds(t, 2)[0]
	t.Logf("seed %d (replay: ORDO_SEED=%d)", seed, seed)
	cfg := DistConfig{Seed: seed, Steps: 120, ShrinkBudget: -1}
	a, err := RunDistseq(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := RunDistseq(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if a.Digest != b.Digest || a.Messages != b.Messages || a.Intents != b.Intents {
		t.Fatalf("seed %d: two runs differ: %+v\n%+v", seed, a, b)
	}
	cfg.Seed++
	c, err := RunDistseq(context.Background(), cfg)
	if err == nil && c.Digest == a.Digest {
		t.Fatalf("seeds %d and %d give the same digest", seed, cfg.Seed)
	}
}

// TestDistseqPlantedViolation plants a broken invariant (a Confirmed
// intent put back to pending in its sender's store) and expects the
// checker to name it, with a shrunk trace that still breaks it.
func TestDistseqPlantedViolation(t *testing.T) {
	seed := distSeeds(t, 3)[0]
	t.Logf("seed %d (replay: ORDO_SEED=%d)", seed, seed)
	planted := false
	cfg := DistConfig{Seed: seed, Steps: 150, ShrinkBudget: -1}
	cfg.mutate = func(w *distWorld, _ int) {
		if planted {
			return
		}
		for _, id := range w.acked {
			if w.seen.final[id] != distseq.Confirmed {
				continue
			}
			ctx := context.Background()
			st := w.c.Node(w.sender[id]).Store
			rec, err := st.DistseqIntent(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			rec.Status = store.DistseqPending
			if err := st.ApplyDistseq(ctx, store.DistseqBatch{Intents: []store.DistseqIntent{rec}}); err != nil {
				t.Fatal(err)
			}
			planted = true
			return
		}
	}
	_, err := RunDistseq(context.Background(), cfg)
	var v *DistViolation
	if !errors.As(err, &v) {
		t.Fatalf("planted violation not caught (planted %v): %v", planted, err)
	}
	if v.Invariant != "final-stays" || v.Seed != seed || v.Step < 1 || len(v.Trace) != v.Step {
		t.Fatalf("caught %q at step %d with %d actions: %v", v.Invariant, v.Step, len(v.Trace), v)
	}
}

func TestDistActionRoundTrip(t *testing.T) {
	for _, a := range genDistActions(7, 200, 4, 3, 2) {
		b, err := ParseDistAction("  12 " + a.String())
		if err != nil {
			t.Fatal(err)
		}
		if b != a {
			t.Fatalf("%v read back as %v", a, b)
		}
	}
	if _, err := ParseDistAction("explode {}"); err == nil {
		t.Fatal("an unknown action was read")
	}
}

// TestDistseqPlantedOwnerViolation plants a spend by the wrong owner: a
// confirmation, as the checker reads it from the chain, of an intent that
// spent the first minted coin of every member (owned round robin by the
// members' owners, so all but one of another node's). The owner-spends
// check must name it.
func TestDistseqPlantedOwnerViolation(t *testing.T) {
	seed := distSeeds(t, 3)[0]
	t.Logf("seed %d (replay: ORDO_SEED=%d)", seed, seed)
	planted := false
	cfg := DistConfig{Seed: seed, Steps: 150, ShrinkBudget: -1}
	cfg.mutate = func(w *distWorld, _ int) {
		for _, id := range w.acked {
			if planted || w.seen.final[id] != distseq.Confirmed {
				continue
			}
			var spends []string
			for i := range w.c.Nodes() {
				spends = append(spends, fmt.Sprintf("%s-mint-%d", cluster.Group(0), i))
			}
			w.audit.fresh = append(w.audit.fresh, devchain.IntentConfirmed{Group: cluster.Group(0), TxID: id, Spends: spends})
			planted = true
		}
	}
	_, err := RunDistseq(context.Background(), cfg)
	var v *DistViolation
	if !errors.As(err, &v) || v.Invariant != "owner-spends" {
		t.Fatalf("planted owner violation not caught (planted %v): %v", planted, err)
	}
	t.Log(v)
}
