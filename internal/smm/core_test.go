package smm

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/replog"
)

func testCoreConfig() CoreConfig {
	return CoreConfigOf("a", Config{Secondaries: 2, UnhealthyAfter: 30 * time.Second, RequestTimeout: time.Second,
		MonitorEvery: time.Second, MappingEvery: 10 * time.Minute, MaxFailedSyncs: 3})
}

// randomInput draws one input over nodes a..e and queues q0..q3.
func randomInput(r *rand.Rand, now time.Time) Input {
	nodes := []string{"a", "b", "c", "d", "e"}
	node := func() string { return nodes[r.IntN(len(nodes))] }
	state := func(q string) QueueState {
		perm := r.Perm(len(nodes))
		set := ReplicaSet{Queue: q, Primary: nodes[perm[0]], Secondaries: []string{nodes[perm[1]], nodes[perm[2]]}, Version: uint64(1 + r.IntN(3))}
		st := QueueState{Set: set, Members: map[string]Member{}}
		for _, m := range set.Members() {
			mem := Member{Node: m, Reached: r.IntN(4) > 0, Version: set.Version}
			if mem.Reached {
				mem.Head = replog.Head{Clock: uint64(r.IntN(5)), Hash: replog.Hash{byte(r.IntN(2))}, Version: uint64(r.IntN(2))}
			} else {
				mem.UnhealthySince = now.Add(-time.Duration(r.IntN(60)) * time.Second)
			}
			st.Members[m] = mem
		}
		return st
	}
	states := func() []QueueState {
		var out []QueueState
		for i := range r.IntN(4) {
			out = append(out, state("q"+strconv.Itoa(i)))
		}
		return out
	}
	asked := now.Add(-time.Duration(r.IntN(3000)) * time.Millisecond)
	switch r.IntN(13) {
	case 12:
		return Asked(Request(1+r.IntN(3)), node(), "q"+strconv.Itoa(r.IntN(3)), uint64(r.IntN(4)))
	case 9:
		old, set := state("q"+strconv.Itoa(r.IntN(3))).Set, state("q0").Set
		set.Queue = old.Queue
		set.Version = old.Version + 1
		return SetHeld(old, set)
	case 10:
		return Adopted("q" + strconv.Itoa(r.IntN(3)))
	case 11:
		return Acked("q"+strconv.Itoa(r.IntN(3)), nodes[1+r.IntN(4)], uint64(r.IntN(6)))
	case 0, 1, 2:
		return Answered(node(), asked, r.IntN(2) == 0)
	case 3:
		return Monitored(r.IntN(3), r.IntN(3), states(), nodes)
	case 4:
		return Plan(states(), []Candidate{{Node: "d", Load: r.IntN(3)}, {Node: "e", Load: r.IntN(3)}, {Node: "b"}}, r.IntN(2) == 0)
	case 5:
		return FindSyncs([]string{"q0", "q1", "q2"})
	case 6:
		return SyncFailed("q"+strconv.Itoa(r.IntN(3)), node())
	case 7:
		if r.IntN(2) == 0 {
			return Mapped()
		}
		return LossDone(node(), asked)
	default:
		return LossDue(node(), asked)
	}
}

// TestCoreRandomRunReplays steps a core with random inputs on a moving
// clock, checks CheckInvariants after every step, and replays the trace
// it recorded into a fresh core: every Ready the same. ORDO_SEED replays a
// run.
func TestCoreRandomRunReplays(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	if v, err := strconv.ParseUint(os.Getenv("ORDO_SEED"), 10, 64); err == nil {
		seed = v
	}
	t.Logf("seed %d (ORDO_SEED=%d replays it)", seed, seed)
	r := rand.New(rand.NewPCG(seed, 1))
	var buf bytes.Buffer
	tw := newTraceWriter(&buf)
	now := clock.Epoch
	c, err := NewCore(testCoreConfig(), now, Snapshot{})
	if err != nil {
		t.Fatal(err)
	}
	tw.Start(testCoreConfig(), now, Snapshot{})
	lost, inserts := 0, 0
	for i := range 5000 {
		now = now.Add(time.Duration(r.IntN(2000)) * time.Millisecond)
		in := randomInput(r, now)
		in.At = now
		tw.Input(in)
		c.Step(in)
		rd := c.Ready()
		tw.Ready(rd)
		c.Advance()
		tw.Advance()
		for _, e := range rd.Effects {
			switch e.Kind {
			case EffectLost:
				lost++
				if e.Node == "a" {
					t.Fatalf("step %d: this node found lost", i)
				}
			case EffectInsert:
				inserts++
			default: // gates and acknowledgements: not counted
			}
		}
		if errs := c.CheckInvariants(); len(errs) > 0 {
			t.Fatalf("step %d (%v): %v", i, in.Kind, errs)
		}
	}
	if err := tw.Flush(); err != nil {
		t.Fatal(err)
	}
	if lost == 0 || inserts == 0 {
		t.Fatalf("the run found %d losses and asked %d inserts: it exercised nothing", lost, inserts)
	}
	st, err := Replay(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if st.Inputs != 5000 || st.Readys != 5000 {
		t.Fatalf("replayed %d inputs, %d Readys", st.Inputs, st.Readys)
	}
	t.Logf("%d losses, %d inserts; replay digest %s", lost, inserts, st.Digest)
}

// TestCoreHealth: the transitions of a peer's health, as the driver steps
// them.
func TestCoreHealth(t *testing.T) {
	t.Parallel()
	t0 := clock.Epoch
	cases := []struct {
		name      string
		steps     []Input
		wantSince time.Time
		wantLost  int
	}{
		{"answered", []Input{Answered("b", t0, true)}, time.Time{}, 0},
		{"unanswered", []Input{Answered("b", t0, false)}, t0, 1},
		{"lost once", []Input{Answered("b", t0, false), Answered("b", t0.Add(time.Second), false)}, t0, 1},
		{"an older timeout after a later answer", []Input{Answered("b", t0.Add(time.Second), true), Answered("b", t0, false)}, time.Time{}, 0},
		{"back", []Input{Answered("b", t0, false), Answered("b", t0.Add(time.Second), true)}, time.Time{}, 1},
		{"self never lost", []Input{Answered("a", t0, false)}, time.Time{}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := NewCore(testCoreConfig(), t0, Snapshot{})
			if err != nil {
				t.Fatal(err)
			}
			lost := 0
			for _, in := range tc.steps {
				in.At = t0.Add(2 * time.Second)
				c.Step(in)
				for _, e := range c.Ready().Effects {
					if e.Kind == EffectLost {
						lost++
					}
				}
				c.Advance()
			}
			node := tc.steps[0].Node
			since, _ := c.UnhealthySince(node)
			if !since.Equal(tc.wantSince) || lost != tc.wantLost {
				t.Fatalf("%s: unhealthy since %v, %d lost effects; want %v, %d", node, since, lost, tc.wantSince, tc.wantLost)
			}
			if errs := c.CheckInvariants(); len(errs) > 0 {
				t.Fatal(errs)
			}
		})
	}
}

// ExampleCore steps a core through a loss: a request to b goes
// unanswered, the next monitor-state queues the loss's job due
// UnhealthyAfter later, and that job, once due, proceeds.
func ExampleCore() {
	t0 := clock.Epoch
	c, _ := NewCore(testCoreConfig(), t0, Snapshot{})
	step := func(in Input, at time.Time) Ready {
		in.At = at
		c.Step(in)
		rd := c.Ready()
		c.Advance()
		return rd
	}
	for _, e := range step(Answered("b", t0, false), t0.Add(time.Second)).Effects {
		fmt.Println(e.Kind, e.Node)
	}
	for _, e := range step(Monitored(0, 0, nil, []string{"a", "b"}), t0.Add(time.Second)).Effects {
		due := "now"
		if !e.Job.At.IsZero() {
			due = "+" + e.Job.At.Sub(t0).String()
		}
		fmt.Println(e.Kind, e.Job.Kind, e.Job.Lane, due)
	}
	fmt.Println("proceed:", step(LossDue("b", t0), t0.Add(31*time.Second)).Reply.Proceed)
	// Output:
	// EffectLost b
	// EffectInsert probe-node LaneManualSync now
	// EffectInsert find-replica-set-updates LaneReplicaSetUpdate +30s
	// EffectInsert monitor-state LaneMonitoring +2s
	// proceed: true
}

// TestCoreAsked: the core's admission of other nodes' requests, before
// and after the driver read the set from the chain.
func TestCoreAsked(t *testing.T) {
	t.Parallel()
	set := ReplicaSet{Queue: "q", Primary: "b", Secondaries: []string{"a", "c"}, Version: 2}
	cases := []struct {
		name      string
		in        Input
		refreshed bool
		refresh   bool
		refused   string
	}{
		{"push from the primary", Asked(RequestPush, "b", "q", 2), false, false, ""},
		{"push under a newer version: read first", Asked(RequestPush, "b", "q", 3), false, true, ""},
		{"push under a newer version, read", Asked(RequestPush, "b", "q", 3), true, false, ""},
		{"push under an older version", Asked(RequestPush, "b", "q", 1), false, false, CodeStale},
		{"push from another: read first", Asked(RequestPush, "c", "q", 2), false, true, ""},
		{"push from another, read", Asked(RequestPush, "c", "q", 2), true, false, CodeNotPrimary},
		{"sync from the primary", Asked(RequestSync, "b", "q", 0), false, false, ""},
		{"sync from another, read", Asked(RequestSync, "d", "q", 0), true, false, CodeNotPrimary},
		{"pull by a member", Asked(RequestPull, "c", "q", 2), false, false, ""},
		{"pull under a newer version: the fence reads first", Asked(RequestPull, "c", "q", 3), false, true, ""},
		{"pull by a stranger, read", Asked(RequestPull, "d", "q", 2), true, false, CodeNotMember},
		{"push of a queue never held, read", Asked(RequestPush, "b", "r", 1), true, false, CodeNotPrimary},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := NewCore(testCoreConfig(), clock.Epoch, Snapshot{Sets: []ReplicaSet{set}})
			if err != nil {
				t.Fatal(err)
			}
			in := tc.in
			in.Refreshed = tc.refreshed
			c.Step(in)
			rep := c.Ready().Reply
			if rep.Refresh != tc.refresh || rep.Refused != tc.refused {
				t.Fatalf("refresh %v refused %q (%s); want %v %q", rep.Refresh, rep.Refused, rep.Reason, tc.refresh, tc.refused)
			}
			if !tc.refresh && tc.refused == "" && rep.Set.Version != set.Version {
				t.Fatalf("admitted with set %+v", rep.Set)
			}
		})
	}
}
