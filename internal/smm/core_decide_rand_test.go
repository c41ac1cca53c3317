package smm

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"
)

// TestPlanProperties: random sets, healths, clocks and pools (ORDO_SEED
// replays one seed); every plan names no node twice, keeps the set's size unless no candidate is left,
// holds no member unhealthy for the bound, and promotes only a healthy secondary that no healthy kept member is
// ahead of.
func TestPlanProperties(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("ORDO_SEED"); v != "" {
		seed, _ = strconv.ParseUint(v, 10, 64)
	}
	t.Logf("seed %d (replay: ORDO_SEED=%d)", seed, seed)
	r := rand.New(rand.NewPCG(seed, 4))
	for i := range 5000 {
		n := 1 + r.IntN(4)
		var ms []Member
		for j := range n {
			node := fmt.Sprintf("m%d", j)
			if r.IntN(3) == 0 {
				ms = append(ms, down(node, time.Duration(r.IntN(120))*time.Minute))
			} else {
				ms = append(ms, up(node, head(uint64(r.IntN(5)), byte(r.IntN(2)))))
			}
		}
		q := state(ms...)
		unhealthy := FindReplicaSetUpdates(q, t0, time.Duration(r.IntN(60))*time.Minute)
		var pool []Candidate
		for j := range r.IntN(5) {
			pool = append(pool, Candidate{Node: fmt.Sprintf("c%d", j), Load: r.IntN(3)})
		}
		next, added, err := PlanReplicaSetUpdate(q, unhealthy, pool, true)
		if err != nil {
			continue
		}
		seen := map[string]bool{}
		for _, m := range append([]string{next.Primary}, next.Secondaries...) {
			if seen[m] {
				t.Fatalf("case %d: %s named twice in %+v", i, m, next)
			}
			seen[m] = true
			if slices.Contains(unhealthy, m) {
				t.Fatalf("case %d: member %s, unhealthy for the bound, kept in %+v", i, m, next)
			}
		}
		if len(next.Secondaries) > len(q.Set.Secondaries) || len(added) > len(next.Secondaries) {
			t.Fatalf("case %d: %+v from %+v", i, next, q.Set)
		}
		if len(next.Secondaries) < len(q.Set.Secondaries) {
			for _, c := range pool {
				if !seen[c.Node] && !slices.Contains(unhealthy, c.Node) && !q.Set.Holds(c.Node) {
					t.Fatalf("case %d: the set shrank to %+v and candidate %s was left out", i, next, c.Node)
				}
			}
		}
		if next.Primary != q.Set.Primary {
			p := q.Members[next.Primary]
			for _, s := range next.Secondaries {
				if m, ok := q.Members[s]; ok && m.Healthy() && m.Head.Clock > p.Head.Clock {
					t.Fatalf("case %d: promoted %s at %d, %s is at %d", i, next.Primary, p.Head.Clock, s, m.Head.Clock)
				}
			}
		}
	}
}
