package distseq

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/testkit"
)

func TestRangeOf(t *testing.T) {
	max := uint64(math.MaxUint64)
	for _, tc := range []struct {
		height, n uint64
		want      Range
	}{
		{0, 4, Range{0, 0, 3}},
		{3, 4, Range{0, 0, 3}},
		{4, 4, Range{1, 4, 7}}, // the seed's switchover: height 4 opens the next range
		{7, 4, Range{1, 4, 7}},
		{9, 4, Range{2, 8, 11}},
		{5, 1, Range{5, 5, 5}},
		{max, 1, Range{max, max, max}},
		{max, 10, Range{max / 10, max / 10 * 10, max}}, // the last range is cut at the largest height
		{max, max, Range{1, max, max}},
	} {
		got, err := RangeOf(tc.height, tc.n)
		if err != nil || got != tc.want {
			t.Errorf("RangeOf(%d, %d) = %+v, %v; want %+v", tc.height, tc.n, got, err, tc.want)
		}
	}
	if _, err := RangeOf(7, 0); !errors.Is(err, ErrRangeSize) {
		t.Errorf("RangeOf(7, 0): err %v, want ErrRangeSize", err)
	}
	if _, err := Preference([]NodeID{"a"}, "c", 7, 0, nil); !errors.Is(err, ErrRangeSize) {
		t.Errorf("Preference with n=0: err %v, want ErrRangeSize", err)
	}
	for _, v := range []int{0, -1, MaxVirtualNodes + 1} {
		if _, err := NewRing([]NodeID{"a"}, WithVirtualNodes(v)); !errors.Is(err, ErrVirtualNodes) {
			t.Errorf("NewRing with %d virtual nodes: err %v, want ErrVirtualNodes", v, err)
		}
	}
}

var committee5 = []NodeID{"node-a", "node-b", "node-c", "node-d", "node-e"}

func mustRing(t testing.TB, committee []NodeID, opts ...RingOption) *Ring {
	t.Helper()
	r, err := NewRing(committee, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustPref(t testing.TB, r *Ring, contract string, height, n uint64, unavailable map[NodeID]bool) []NodeID {
	t.Helper()
	got, err := r.Preference(contract, height, n, unavailable)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// Every block of a range gives the same list; the list moves between ranges.
func TestSameWithinRangeMovesBetween(t *testing.T) {
	r := mustRing(t, committee5)
	for _, n := range []uint64{1, 4, 100} {
		for _, contract := range []string{"0a11ce", "b0b0", ""} {
			changes, firsts := 0, map[NodeID]int{}
			var prev []NodeID
			const ranges = 200
			for idx := range uint64(ranges) {
				want := mustPref(t, r, contract, idx*n, n, nil)
				for b := idx * n; b < (idx+1)*n; b++ {
					if got := mustPref(t, r, contract, b, n, nil); !slices.Equal(got, want) {
						t.Fatalf("n=%d %q: block %d gives %v, block %d gave %v", n, contract, b, got, idx*n, want)
					}
				}
				if prev != nil && prev[0] != want[0] {
					changes++
				}
				firsts[want[0]]++
				prev = want
			}
			// With 5 members, a new range keeps its coordinator about 1 time
			// in 5: over 199 boundaries, far more than 100 changes.
			if changes < 100 || len(firsts) != len(committee5) {
				t.Errorf("n=%d %q: %d coordinator changes over %d ranges, coordinators %v", n, contract, changes, ranges, firsts)
			}
		}
	}
}

// degrees maps an angle on the seed's 0-360 circle to a ring position.
func degrees(d uint64) uint64 { return d * (math.MaxUint64 / 360) }

// angleHash is a test-only hash that places each key where the table says,
// and fails the test on a key it does not know.
func angleHash(t *testing.T, table map[string]uint64) func([]byte) uint64 {
	return func(b []byte) uint64 {
		pos, ok := table[string(b)]
		if !ok {
			t.Fatalf("angleHash: no angle for key %q", b)
		}
		return pos
	}
}

// The seed's worked example ("Coordinator selection"): A at 315°, B at 45°,
// C at 225°, D at 135°; ranges 1, 2 and 3 at 310°, 55° and 120° pick A, B
// and D. Its availability walkthrough: with A unavailable, the next closest
// is C.
func TestWorkedExample(t *testing.T) {
	const contract = "pente-group"
	table := map[string]uint64{
		string(memberKey("A", 0)):     degrees(315),
		string(memberKey("B", 0)):     degrees(45),
		string(memberKey("C", 0)):     degrees(225),
		string(memberKey("D", 0)):     degrees(135),
		string(rangeKey(contract, 1)): degrees(310),
		string(rangeKey(contract, 2)): degrees(55),
		string(rangeKey(contract, 3)): degrees(120),
	}
	r := mustRing(t, []NodeID{"A", "B", "C", "D"}, WithVirtualNodes(1), WithHash(angleHash(t, table)))
	const n = 4 // range 1 is blocks 4-7 (floor(b/n)), range 2 blocks 8-11, range 3 blocks 12-15
	for _, tc := range []struct {
		height      uint64
		unavailable []NodeID
		want        []NodeID
	}{
		// Distances from 310°: A 5, C 85, B 95, D 175.
		{4, nil, []NodeID{"A", "C", "B", "D"}},
		{7, nil, []NodeID{"A", "C", "B", "D"}},
		// From 55°: B 10 (anticlockwise: a clockwise-only walk would pick D), D 80, A 100, C 170.
		{8, nil, []NodeID{"B", "D", "A", "C"}},
		// From 120°: D 15, B 75, C 105, A 165.
		{12, nil, []NodeID{"D", "B", "C", "A"}},
		{15, nil, []NodeID{"D", "B", "C", "A"}},
		// "Node B and D each independently select node C as the next closest node."
		{5, []NodeID{"A"}, []NodeID{"C", "B", "D"}},
		{5, []NodeID{"A", "C"}, []NodeID{"B", "D"}},
		{9, []NodeID{"B"}, []NodeID{"D", "A", "C"}},
		{13, []NodeID{"A", "B", "C", "D"}, []NodeID{}},
	} {
		un := map[NodeID]bool{}
		for _, m := range tc.unavailable {
			un[m] = true
		}
		got := mustPref(t, r, contract, tc.height, n, un)
		if !slices.Equal(got, tc.want) {
			t.Errorf("height %d, unavailable %v: %v, want %v", tc.height, tc.unavailable, got, tc.want)
		}
	}
}

func filterOut(list []NodeID, unavailable map[NodeID]bool) []NodeID {
	return slices.DeleteFunc(slices.Clone(list), func(m NodeID) bool { return unavailable[m] })
}

func TestUnavailableSkipped(t *testing.T) {
	r := mustRing(t, committee5)
	for _, tc := range []struct {
		name        string
		unavailable []NodeID
	}{
		{"none", nil},
		{"one", []NodeID{"node-c"}},
		{"two", []NodeID{"node-a", "node-e"}},
		{"all but one", []NodeID{"node-a", "node-b", "node-c", "node-e"}},
		{"all", committee5},
		{"a stranger", []NodeID{"node-z"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			un := map[NodeID]bool{}
			for _, m := range tc.unavailable {
				un[m] = true
			}
			for idx := range uint64(50) {
				full := mustPref(t, r, "c0ffee", idx, 1, nil)
				got := mustPref(t, r, "c0ffee", idx, 1, un)
				if want := filterOut(full, un); !slices.Equal(got, want) {
					t.Fatalf("range %d: %v, want %v (the full list %v without %v)", idx, got, want, full, tc.unavailable)
				}
				for _, m := range got {
					if un[m] {
						t.Fatalf("range %d: unavailable %s listed: %v", idx, m, got)
					}
				}
			}
		})
	}
}

// rangeOnlyHash is the seed's own point: floor(b/n) alone, the contract
// address dropped from the range's key before hashing.
func rangeOnlyHash(b []byte) uint64 {
	tag := []byte("distseq/range\x00")
	if !bytes.HasPrefix(b, tag) {
		return SHA256First8(b)
	}
	return SHA256First8(append(slices.Clone(tag), b[len(b)-8:]...))
}

// Mixing the address into the point spreads one committee's contracts over
// its members at one range; the seed's floor(b/n) alone sends them all to
// one member.
func TestAddressSpreadsContracts(t *testing.T) {
	const contracts = 1000
	for _, tc := range []struct {
		name   string
		hash   func([]byte) uint64
		spread bool
	}{
		{"contract and range (ordo)", SHA256First8, true},
		{"range alone (the seed)", rangeOnlyHash, false},
	} {
		r := mustRing(t, committee5, WithHash(tc.hash))
		for _, idx := range []uint64{0, 1, 77} {
			counts := map[NodeID]int{}
			for c := range contracts {
				counts[mustPref(t, r, fmt.Sprintf("contract-%d", c), idx*10, 10, nil)[0]]++
			}
			t.Logf("%s, range %d: coordinators of %d contracts %v", tc.name, idx, contracts, counts)
			if tc.spread {
				for _, m := range committee5 {
					if counts[m] < contracts/len(committee5)/3 {
						t.Errorf("%s, range %d: %s coordinates %d of %d contracts", tc.name, idx, m, counts[m], contracts)
					}
				}
			} else if len(counts) != 1 {
				t.Errorf("%s, range %d: want one coordinator for every contract, got %v", tc.name, idx, counts)
			}
		}
	}
}

// arcShares computes each member's share of the circle (where it is the
// closest member) from the ring's points, independently of the walk: the arc
// between two neighbouring points is split at its midpoint.
func arcShares(r *Ring) map[NodeID]float64 {
	shares := map[NodeID]float64{}
	n := len(r.points)
	for i, a := range r.points {
		b := r.points[(i+1)%n]
		arc := float64(b.pos-a.pos) / math.Exp2(64) // wraps for the last pair
		if n == 1 {
			arc = 1
		}
		shares[a.member] += arc / 2
		shares[b.member] += arc / 2
	}
	return shares
}

// chiSquareCritical holds the chi-square critical values at significance
// 0.001, by degrees of freedom.
var chiSquareCritical = map[int]float64{1: 10.828, 2: 13.816, 3: 16.266, 4: 18.467, 5: 20.515, 6: 22.458, 7: 24.322, 8: 26.124, 9: 27.877}

// Over many ranges and contracts each member coordinates its share of the
// ring (a chi-square goodness-of-fit at significance 0.001: the range points
// are uniform), and virtual nodes keep every share near 1/m.
func TestEvenShare(t *testing.T) {
	for _, tc := range []struct {
		vnodes int
		// maxDev bounds |share·m - 1|: a member's share of the ring has a
		// relative spread of about 1/sqrt(vnodes); the bound is over 3 of it.
		maxDev float64
	}{
		{DefaultVirtualNodes, 0.4},
		{1024, 0.1},
	} {
		r := mustRing(t, committee5, WithVirtualNodes(tc.vnodes))
		const contracts, ranges = 200, 100
		counts := map[NodeID]int{}
		for c := range contracts {
			for idx := range uint64(ranges) {
				counts[r.PreferenceAt(fmt.Sprintf("contract-%d", c), idx, nil)[0]]++
			}
		}
		shares := arcShares(r)
		m := len(committee5)
		total := float64(contracts * ranges)
		var chiRing, chiUniform, dev float64
		var line strings.Builder
		for _, member := range committee5 {
			obs := float64(counts[member])
			exp := total * shares[member]
			chiRing += (obs - exp) * (obs - exp) / exp
			uni := total / float64(m)
			chiUniform += (obs - uni) * (obs - uni) / uni
			dev = max(dev, math.Abs(shares[member]*float64(m)-1))
			fmt.Fprintf(&line, " %s %d (ring share %.4f)", member, counts[member], shares[member])
		}
		crit := chiSquareCritical[m-1]
		t.Logf("vnodes %d, %d samples:%s", tc.vnodes, int(total), line.String())
		t.Logf("vnodes %d: chi-square against the ring's shares %.2f (df %d, critical %.3f at 0.001); against 1/m %.2f; max |share·m-1| %.3f (bound %.2f)",
			tc.vnodes, chiRing, m-1, crit, chiUniform, dev, tc.maxDev)
		if chiRing > crit {
			t.Errorf("vnodes %d: chi-square %.2f over %.3f: the range points are not spread evenly", tc.vnodes, chiRing, crit)
		}
		if dev > tc.maxDev {
			t.Errorf("vnodes %d: a member's ring share is %.3f off 1/m (bound %.2f)", tc.vnodes, dev, tc.maxDev)
		}
	}
}

// checkList fails t unless got is the available distinct members of
// committee, each once.
func checkList(t testing.TB, committee []NodeID, unavailable map[NodeID]bool, got []NodeID) {
	t.Helper()
	want := filterOut(slices.Compact(slices.Sorted(slices.Values(committee))), unavailable)
	sorted := slices.Sorted(slices.Values(got))
	if !slices.Equal(sorted, want) {
		t.Fatalf("list %v is not a permutation of the available committee %v", got, want)
	}
}

// Any committee, contract, height, range size, unavailable set and number of
// virtual nodes: the list is a permutation of the available committee, the
// same whatever the committee's order, the same at every block of the range,
// and marking one more member unavailable only removes it.
func TestPreferenceProperties(t *testing.T) {
	testkit.Seeds(t, func(t *testing.T, seed uint64, steps int) {
		rng := rand.New(rand.NewPCG(seed, 0x5eed))
		for step := range steps / 3 {
			size := rng.IntN(12) + 1
			committee := make([]NodeID, size)
			for i := range committee {
				committee[i] = NodeID(fmt.Sprintf("n%d", rng.IntN(16))) // repeats on purpose
			}
			unavailable := map[NodeID]bool{}
			for range rng.IntN(4) {
				unavailable[NodeID(fmt.Sprintf("n%d", rng.IntN(18)))] = true // strangers too
			}
			contract := fmt.Sprintf("%x", rng.Uint64())
			height, n := rng.Uint64N(1<<40), rng.Uint64N(1000)+1
			vnodes := rng.IntN(64) + 1
			opts := []RingOption{WithVirtualNodes(vnodes)}

			got, err := Preference(committee, contract, height, n, unavailable, opts...)
			if err != nil {
				t.Fatal(err)
			}
			where := fmt.Sprintf("step %d: committee %v contract %s height %d n %d vnodes %d unavailable %v", step, committee, contract, height, n, vnodes, unavailable)
			checkList(t, committee, unavailable, got)
			shuffled := slices.Clone(committee)
			rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			rg, _ := RangeOf(height, n)
			other := rg.First + rng.Uint64N(n)
			again, err := Preference(shuffled, contract, other, n, unavailable, opts...)
			if err != nil || !slices.Equal(again, got) {
				t.Fatalf("%s: %v, then %v (err %v) with committee %v at height %d", where, got, again, err, shuffled, other)
			}
			if len(got) > 0 {
				drop := got[rng.IntN(len(got))]
				fewer := maps1(unavailable, drop)
				less, err := Preference(committee, contract, height, n, fewer, opts...)
				if want := filterOut(got, fewer); err != nil || !slices.Equal(less, want) {
					t.Fatalf("%s: without %s %v (err %v), want %v", where, drop, less, err, want)
				}
			}
		}
	})
}

// maps1 returns a copy of set with m added.
func maps1(set map[NodeID]bool, m NodeID) map[NodeID]bool {
	out := map[NodeID]bool{m: true}
	for k, v := range set {
		out[k] = v
	}
	return out
}

// FuzzPreference decodes a committee (comma-separated ids), a contract,
// height, range size, unavailable mask (bit i: the i-th listed id) and a
// number of virtual nodes, and checks the list's invariants.
func FuzzPreference(f *testing.F) {
	f.Add("a,b,c,d", "pente", uint64(9), uint64(4), uint16(0), uint8(1))
	f.Add("a,a,b", "", uint64(0), uint64(1), uint16(1), uint8(64))
	f.Add("x", "0xdeadbeef", uint64(math.MaxUint64), uint64(3), uint16(0xffff), uint8(0))
	f.Fuzz(func(t *testing.T, ids, contract string, height, n uint64, mask uint16, vn uint8) {
		committee := []NodeID{}
		if ids != "" {
			for _, id := range strings.Split(ids, ",") {
				committee = append(committee, NodeID(id))
			}
		}
		if len(committee) > 32 {
			committee = committee[:32]
		}
		unavailable := map[NodeID]bool{}
		for i, m := range committee {
			if i < 16 && mask&(1<<i) != 0 {
				unavailable[m] = true
			}
		}
		vnodes := int(vn%64) + 1
		got, err := Preference(committee, contract, height, n, unavailable, WithVirtualNodes(vnodes))
		if n == 0 {
			if !errors.Is(err, ErrRangeSize) {
				t.Fatalf("n=0: err %v", err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		checkList(t, committee, unavailable, got)
		rev := slices.Clone(committee)
		slices.Reverse(rev)
		again, err := Preference(rev, contract, height, n, unavailable, WithVirtualNodes(vnodes))
		if err != nil || !slices.Equal(again, got) {
			t.Fatalf("reversed committee: %v (err %v), want %v", again, err, got)
		}
	})
}

// The keys never collide across members, virtual nodes, contracts and
// ranges: a length prefix separates the id from what follows.
func TestKeysAreUnambiguous(t *testing.T) {
	seen := map[string]string{}
	add := func(k []byte, what string) {
		if prev, ok := seen[string(k)]; ok {
			t.Fatalf("%s and %s share the key %q", prev, what, k)
		}
		seen[string(k)] = what
	}
	for _, id := range []NodeID{"", "a", "ab", "a\x00", "distseq/range\x00"} {
		for i := range uint32(3) {
			add(memberKey(id, i), fmt.Sprintf("member %q/%d", id, i))
		}
	}
	for _, c := range []string{"", "a", "ab", "a\x00"} {
		for i := range uint64(3) {
			add(rangeKey(c, i), fmt.Sprintf("range %q/%d", c, i))
		}
	}
	// A member key ends in 4 bytes of the virtual node's number.
	if k := memberKey("a", 7); binary.BigEndian.Uint32(k[len(k)-4:]) != 7 {
		t.Fatalf("member key %q", k)
	}
}
