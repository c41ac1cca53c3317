package sim

import (
	"context"
	"errors"
	"testing"
)

// monitorAll runs every node's due jobs, n nodes.
func monitorAll(n int) []SMMAction {
	var out []SMMAction
	for i := range n {
		out = append(out, SMMAction{Kind: SMonitor, Node: i})
	}
	return out
}

// ticks moves the clock by 1s k times, every node's due jobs run after
// each.
func ticks(k, nodes int) []SMMAction {
	var out []SMMAction
	for range k {
		out = append(out, SMMAction{Kind: SAdvance, DtMs: 1000})
		out = append(out, monitorAll(nodes)...)
	}
	return out
}

// TestSMMNoFaults: without faults every intent is acknowledged (its
// primary's manual syncs run by the next round of jobs), applied once,
// and the sets converge.
func TestSMMNoFaults(t *testing.T) {
	var actions []SMMAction
	for i := range 24 {
		actions = append(actions, SMMAction{Kind: SIntake, Node: i, Queue: i / 3})
		actions = append(actions, monitorAll(5)...)
		actions = append(actions, SMMAction{Kind: SAdvance, DtMs: 100})
		if i%4 == 0 {
			actions = append(actions, SMMAction{Kind: SDispatch, Queue: i})
		}
	}
	for _, ack := range []int{1, -1} {
		res, err := RunSMMActions(context.Background(), SMMConfig{Seed: 7, AckAfter: ack}, actions)
		if err != nil {
			t.Fatalf("ack %d: %v", ack, err)
		}
		if res.Intents != 24 || res.Acked != 24 || res.Applied != 24 || res.Duplicates != 0 {
			t.Fatalf("ack %d: %+v", ack, res)
		}
	}
}

// TestSMMTooFewSecondariesNotAcked: with ackAfter 1 a set with no
// secondary (one node) refuses the ack; the intent is committed and
// applied.
func TestSMMTooFewSecondariesNotAcked(t *testing.T) {
	actions := []SMMAction{{Kind: SIntake}, {Kind: SMonitor}, {Kind: SAdvance, DtMs: 1000}, {Kind: SDispatch}}
	res, err := RunSMMActions(context.Background(), SMMConfig{Seed: 1, Nodes: 1, Replicas: 1}, actions)
	if err != nil {
		t.Fatal(err)
	}
	if res.Intents != 1 || res.Acked != 0 || res.Applied != 1 {
		t.Fatalf("%+v", res)
	}
}

// TestSMMWipedPrimaryCatchesUp: a primary that lost its disk and restarts
// takes its members' log back before its next intake: both intents are
// acknowledged and applied once.
func TestSMMWipedPrimaryCatchesUp(t *testing.T) {
	actions := append([]SMMAction{{Kind: SIntake}}, monitorAll(5)...) // q0's primary A, acked
	actions = append(actions, SMMAction{Kind: SWipe}, SMMAction{Kind: SRestart}, SMMAction{Kind: SIntake})
	actions = append(actions, monitorAll(5)...)
	actions = append(actions, SMMAction{Kind: SDispatch}, SMMAction{Kind: SDispatch})
	res, err := RunSMMActions(context.Background(), SMMConfig{Seed: 1}, actions)
	if err != nil {
		t.Fatal(err)
	}
	if res.Wipes != 1 || res.Acked != 2 || res.Applied != 2 {
		t.Fatalf("%+v", res)
	}
}

// TestSMMFailover: q0's primary crashes; within a few seconds past
// unhealthyAfter another member signs the failover and takes the queue's
// intake.
func TestSMMFailover(t *testing.T) {
	actions := append([]SMMAction{{Kind: SIntake}}, monitorAll(5)...) // q0's primary A, acked
	actions = append(actions, SMMAction{Kind: SCrash})
	actions = append(actions, ticks(12, 5)...) // A found lost, replaced after unhealthyAfter (5s)
	actions = append(actions, SMMAction{Kind: SIntake, Node: 1})
	actions = append(actions, monitorAll(5)...)
	res, err := RunSMMActions(context.Background(), SMMConfig{Seed: 1}, actions)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", res)
	// one set made, one failover; the second intent taken by the new
	// primary and acknowledged before the quiet phase restarts A
	if res.Intents != 2 || res.Acked != 2 || res.SetUpdates < 2 {
		t.Fatalf("%+v", res)
	}
}

// TestSMMShrunkSetGrowsBack: with three nodes, a lost secondary has no
// replacement: the set shrinks to two; once the node is back the quiet
// phase asks the set full again (it grows back).
func TestSMMShrunkSetGrowsBack(t *testing.T) {
	actions := append([]SMMAction{{Kind: SIntake}}, monitorAll(3)...) // q0: A, B, C
	actions = append(actions, SMMAction{Kind: SCrash, Node: 2})
	actions = append(actions, ticks(12, 3)...)
	actions = append(actions, SMMAction{Kind: SRestart, Node: 2})
	res, err := RunSMMActions(context.Background(), SMMConfig{Seed: 1, Nodes: 3}, actions)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", res)
	// the set made, shrunk, grown back
	if res.SetUpdates < 3 {
		t.Fatalf("%+v", res)
	}
}

// TestSMMCoreTracesReplay: every node's core trace of a run, across its
// crashes and restarts, replays into fresh cores (what ordo replay checks).
func TestSMMCoreTracesReplay(t *testing.T) {
	res, v := runSMMOnce(t, SMMConfig{Seed: 3, Steps: 150, ShrinkBudget: -1, Replay: true})
	if v != nil {
		t.Fatal(v)
	}
	if res.Replayed == 0 || res.Crashes == 0 {
		t.Fatalf("no step replayed, or no crash: %+v", res)
	}
}

// runSMMOnce runs seed and gives its result or its violation.
func runSMMOnce(t *testing.T, cfg SMMConfig) (SMMResult, *SMMViolation) {
	t.Helper()
	res, err := RunSMM(context.Background(), cfg)
	var v *SMMViolation
	if errors.As(err, &v) {
		return res, v
	}
	if err != nil {
		t.Fatalf("seed %d: %v", cfg.Seed, err)
	}
	return res, nil
}

func TestSMMSameSeedSameRun(t *testing.T) {
	for seed := uint64(1); seed <= 2; seed++ {
		cfg := SMMConfig{Seed: seed, Steps: 150, ShrinkBudget: -1}
		a, va := runSMMOnce(t, cfg)
		b, vb := runSMMOnce(t, cfg)
		if va != nil || vb != nil {
			t.Fatalf("seed %d: %v / %v", seed, va, vb)
		}
		if a != b {
			t.Fatalf("seed %d: two runs differ:\n%+v\n%+v", seed, a, b)
		}
	}
}

// TestSMMBrokenRulesCaught: a planted bug is caught by the invariants
// (the no-nullifier bug from seed 8: its first second dispatch of an
// intent there).
func TestSMMBrokenRulesCaught(t *testing.T) {
	for _, tc := range []struct {
		name        string
		bug         smmBug
		inv         string
		first, last uint64
	}{
		{"no nullifier", smmBugNoNullifier, SMMAppliedOnce, 8, 12},
		{"a log corrupted", smmBugCorruptLog, SMMLogChain, 1, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for seed := tc.first; seed <= tc.last; seed++ {
				_, v := runSMMOnce(t, SMMConfig{Seed: seed, ShrinkBudget: -1, bug: tc.bug})
				if v != nil && v.Invariant == tc.inv {
					t.Logf("seed %d: %v", seed, v)
					return
				}
			}
			t.Fatalf("the bug was not caught as %s in seeds %d-%d", tc.inv, tc.first, tc.last)
		})
	}
}

func TestParseSMMAction(t *testing.T) {
	t.Parallel()
	for _, a := range genSMMActions(3, 200, 5, 4) {
		b, err := ParseSMMAction(a.String())
		if err != nil || b != a {
			t.Fatalf("%s: %+v, %v", a, b, err)
		}
	}
	if _, err := ParseSMMAction("explode"); err == nil {
		t.Fatal("an unknown action parsed")
	}
}
