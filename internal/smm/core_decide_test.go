package smm

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/replog"
)

var t0 = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func head(clock uint64, h byte) replog.Head { return replog.Head{Clock: clock, Hash: replog.Hash{h}} }

func up(n string, hd replog.Head) Member { return Member{Node: n, Reached: true, Head: hd} }

func down(n string, since time.Duration) Member {
	return Member{Node: n, UnhealthySince: t0.Add(-since)}
}

func state(members ...Member) QueueState {
	q := QueueState{Set: ReplicaSet{Queue: "q", Primary: members[0].Node, Version: 4}, Members: map[string]Member{}}
	for i, m := range members {
		if i > 0 {
			q.Set.Secondaries = append(q.Set.Secondaries, m.Node)
		}
		q.Members[m.Node] = m
	}
	return q
}

func TestFindSyncRequests(t *testing.T) {
	for _, tt := range []struct {
		name   string
		q      QueueState
		budget Budget
		want   string
	}{
		{"in sync", state(up("a", head(5, 1)), up("b", head(5, 1)), up("c", head(5, 1))), nil, "[]"},
		{"one behind", state(up("a", head(5, 1)), up("b", head(3, 7)), up("c", head(5, 1))), nil, "[b:behind]"},
		{"a fork at an equal clock", state(up("a", head(5, 1)), up("b", head(5, 2)), up("c", head(4, 9))), nil, "[b:diverged c:behind]"},
		{"ahead of its primary", state(up("a", head(5, 1)), up("b", head(6, 2))), nil, "[b:diverged]"},
		{"an unreached secondary is not asked", state(up("a", head(5, 1)), down("b", time.Minute)), nil, "[]"},
		{"no primary reached", state(down("a", time.Minute), up("b", head(1, 1))), nil, "[]"},
		{"the budget is spent", state(up("a", head(5, 1)), up("b", head(3, 7)), up("c", head(2, 7))),
			func(_, s string) bool { return s != "b" }, "[c:behind]"},
	} {
		var got []string
		for _, r := range FindSyncRequests(tt.q, tt.budget) {
			got = append(got, r.Secondary+":"+string(r.Reason))
			if r.Target != tt.q.Members[tt.q.Set.Primary].Head || r.Queue != "q" {
				t.Errorf("%s: request %+v", tt.name, r)
			}
		}
		if fmt.Sprint(got) != tt.want && (len(got) != 0 || tt.want != "[]") {
			t.Errorf("%s: %v, want %s", tt.name, got, tt.want)
		}
	}
}

func TestFindReplicaSetUpdates(t *testing.T) {
	q := state(down("a", 10*time.Minute), up("b", head(1, 1)), down("c", 30*time.Second), down("d", 2*time.Minute))
	if got := FindReplicaSetUpdates(q, t0, time.Minute); !slices.Equal(got, []string{"a", "d"}) {
		t.Fatalf("unhealthy for a minute: %v, want [a d]", got)
	}
	if got := FindReplicaSetUpdates(q, t0, time.Hour); len(got) != 0 {
		t.Fatalf("unhealthy for an hour: %v", got)
	}
}

func TestPlanReplicaSetUpdate(t *testing.T) {
	pool := []Candidate{{"x", 5}, {"y", 1}, {"z", 1}, {"b", 0}}
	for _, tt := range []struct {
		name      string
		q         QueueState
		unhealthy []string
		pool      []Candidate
		stale     bool
		want      string // primary/secondaries/added, or the error
		err       error
	}{
		{"a secondary replaced by the least loaded", state(up("a", head(9, 1)), up("b", head(9, 1)), down("c", time.Hour)),
			[]string{"c"}, pool, false, "a/[b y]/[y]", nil},
		{"the primary replaced by the secondary with the highest clock", state(down("a", time.Hour), up("b", head(7, 1)), up("c", head(9, 2))),
			[]string{"a"}, pool, false, "c/[b y]/[y]", nil},
		{"a tie in clocks goes to the lowest id", state(down("a", time.Hour), up("c", head(9, 1)), up("b", head(9, 1))),
			[]string{"a"}, pool, false, "b/[c y]/[y]", nil},
		{"primary and a secondary: a minority answers", state(down("a", time.Hour), up("b", head(9, 1)), down("c", time.Hour)),
			[]string{"a", "c"}, pool, false, "", ErrNoQuorum},
		{"primary and a secondary of five", state(down("a", time.Hour), up("b", head(9, 1)), down("c", time.Hour), up("d", head(8, 1)), up("e", head(9, 2))),
			[]string{"a", "c"}, pool, false, "b/[d e y z]/[y z]", nil},
		{"a secondary unanswered, not yet replaceable: wait for it", state(down("a", time.Hour), down("b", time.Minute), up("c", head(3, 1))),
			[]string{"a"}, pool, false, "", ErrUnsettled},
		{"no healthy secondary", state(down("a", time.Hour), down("b", time.Hour)),
			[]string{"a", "b"}, pool, false, "", ErrNoQuorum},
		{"not enough candidates: the set shrinks", state(up("a", head(1, 1)), up("b", head(1, 1)), down("c", time.Hour)),
			[]string{"c"}, []Candidate{{"b", 0}}, false, "a/[b]/[]", nil},
		{"no candidate: the dead primary is dropped all the same", state(down("a", time.Hour), up("b", head(4, 1)), up("c", head(5, 1))),
			[]string{"a"}, nil, false, "c/[b]/[]", nil},
		{"a member healthy again stays", state(up("a", head(1, 1)), up("b", head(1, 1))),
			[]string{"b"}, pool, false, "", ErrNothingToReplace},
		{"the mapping is stale", state(up("a", head(1, 1)), down("b", time.Hour)),
			[]string{"b"}, pool, true, "", ErrMappingStale},
	} {
		next, added, err := PlanReplicaSetUpdate(tt.q, tt.unhealthy, tt.pool, !tt.stale)
		if !errors.Is(err, tt.err) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.err)
			continue
		}
		if err != nil {
			continue
		}
		if got := fmt.Sprintf("%s/%v/%v", next.Primary, next.Secondaries, added); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
		if next.Version != tt.q.Set.Version || next.Queue != "q" || len(next.Secondaries) > len(tt.q.Set.Secondaries) {
			t.Errorf("%s: %+v", tt.name, next)
		}
		all := append([]string{next.Primary}, next.Secondaries...)
		slices.Sort(all)
		if len(slices.Compact(all)) != len(next.Secondaries)+1 {
			t.Errorf("%s: a node named twice: %+v", tt.name, next)
		}
	}
}

func TestPlanGrow(t *testing.T) {
	set := func(secs ...string) QueueState {
		return QueueState{Set: ReplicaSet{Queue: "q", Primary: "a", Secondaries: secs, Version: 3}}
	}
	for _, tt := range []struct {
		name  string
		q     QueueState
		want  int
		pool  []Candidate
		stale bool
		out   string
		err   error
	}{
		{"grows least loaded first", set("b"), 3, []Candidate{{"z", 2}, {"y", 0}, {"x", 1}}, false, "a/[b y x]/[y x]", nil},
		{"never adds a member twice", set("b"), 2, []Candidate{{"b", 0}, {"a", 0}, {"c", 5}}, false, "a/[b c]/[c]", nil},
		{"at its size", set("b", "c"), 2, []Candidate{{"x", 0}}, false, "", ErrNothingToReplace},
		{"no candidate", set(), 2, []Candidate{{"a", 0}}, false, "", ErrNoCandidate},
		{"stale mapping", set(), 2, []Candidate{{"x", 0}}, true, "", ErrMappingStale},
	} {
		next, added, err := PlanGrow(tt.q, tt.want, tt.pool, !tt.stale)
		if !errors.Is(err, tt.err) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.err)
			continue
		}
		if err != nil {
			continue
		}
		if got := fmt.Sprintf("%s/%v/%v", next.Primary, next.Secondaries, added); got != tt.out || next.Version != 3 {
			t.Errorf("%s: %s v%d, want %s v3", tt.name, got, next.Version, tt.out)
		}
	}
}

// TestPlanPromotesTheMostUpToDate: a secondary whose log is longer but
// ends under an older set version is not promoted over one whose last
// entry is newer (replog.Head.Newer).
func TestPlanPromotesTheMostUpToDate(t *testing.T) {
	q := state(down("a", time.Hour), up("b", replog.Head{Clock: 9, Version: 1}), up("c", replog.Head{Clock: 5, Version: 2}))
	next, _, err := PlanReplicaSetUpdate(q, []string{"a"}, nil, true)
	if err != nil || next.Primary != "c" {
		t.Fatalf("promoted %q (%v), want c: its log ends under version 2", next.Primary, err)
	}
}
