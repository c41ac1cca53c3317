package replog

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

// chainOf seals n entries of queue q under the versions given per clock
// (the last one repeats).
func chainOf(q string, n int, versions ...uint64) []Entry {
	var out []Entry
	var prev Hash
	for i := 1; i <= n; i++ {
		v := versions[min(i-1, len(versions)-1)]
		e := Seal(q, uint64(i), v, prev, []byte(fmt.Sprintf("change %d", i)))
		out = append(out, e)
		prev = e.Hash
	}
	return out
}

func TestSealCoversEveryField(t *testing.T) {
	base := Seal("q", 3, 2, Hash{1}, []byte("p"))
	for name, e := range map[string]Entry{
		"queue":                      Seal("r", 3, 2, Hash{1}, []byte("p")),
		"clock":                      Seal("q", 4, 2, Hash{1}, []byte("p")),
		"version":                    Seal("q", 3, 3, Hash{1}, []byte("p")),
		"prev":                       Seal("q", 3, 2, Hash{2}, []byte("p")),
		"payload":                    Seal("q", 3, 2, Hash{1}, []byte("P")),
		"queue and payload boundary": Seal("qp", 3, 2, Hash{1}, nil),
	} {
		if e.Hash == base.Hash {
			t.Errorf("%s: same hash as the base", name)
		}
	}
	if !base.Valid() {
		t.Fatal("a sealed entry is not valid")
	}
	forged := base
	forged.Payload = []byte("other")
	if forged.Valid() {
		t.Fatal("an entry with a changed payload is valid")
	}
	// Pinned: replicas on different builds must agree.
	if got := fmt.Sprintf("%x", Seal("q", 1, 1, Hash{}, []byte("x")).Hash); got != pinnedSeal {
		t.Errorf("Seal hash %s, pinned %s", got, pinnedSeal)
	}
}

// pinnedSeal was computed independently (Python hashlib over the same encoding).
const pinnedSeal = "39991d01a87beaff56d0ed78ab6abb3940f0ebb96ce9a642fea4e559ee2b9410"

func TestExtend(t *testing.T) {
	log := chainOf("q", 6, 1, 1, 1, 2)
	other := chainOf("q", 6, 1, 1, 1, 1) // the same until clock 3, then another history
	at := func(i int) Head {             // the head after i entries
		if i == 0 {
			return Head{}
		}
		return log[i-1].Head()
	}
	corrupt := log[3]
	corrupt.Payload = []byte("tampered")
	for _, tt := range []struct {
		name        string
		head        Head
		from, known uint64
		batch       []Entry
		err         error
		applied     int
	}{
		{"from nothing", at(0), 2, 0, log, nil, 6},
		{"after the head", at(2), 2, 1, log[2:], nil, 4},
		{"with a prefix already held", at(3), 2, 1, log, nil, 3},
		{"nothing new", at(6), 2, 2, log[4:], nil, 0},
		{"a gap", at(2), 2, 1, log[3:], ErrGap, 0},
		{"a gap inside", at(2), 2, 1, append([]Entry{log[2]}, log[4:]...), ErrGap, 0},
		{"another history that extends the head is news to it", at(3), 2, 1, other[3:], nil, 3},
		{"a batch that does not chain to the head", at(4), 2, 1, other[4:], ErrFork, 0},
		{"another history at the head", at(4), 2, 1, other[3:], ErrFork, 0},
		{"a deposed primary", at(2), 1, 2, log[2:3], ErrStaleVersion, 0},
		{"a version ahead of its sender", at(2), 1, 1, log[2:], ErrCorrupt, 0},
		{"versions going back", at(4), 2, 2, append([]Entry{log[4]}, Seal("q", 6, 1, log[4].Hash, nil)), ErrCorrupt, 0},
		{"a tampered entry", at(3), 2, 1, append([]Entry{corrupt}, log[4:]...), ErrCorrupt, 0},
		{"another queue", at(0), 2, 0, chainOf("r", 1, 1), ErrCorrupt, 0},
	} {
		apply, next, err := Extend("q", tt.head, tt.from, tt.known, tt.batch)
		if !errors.Is(err, tt.err) || len(apply) != tt.applied {
			t.Errorf("%s: applied %d, %v; want %d, %v", tt.name, len(apply), err, tt.applied, tt.err)
			continue
		}
		if err != nil && next != tt.head {
			t.Errorf("%s: the head moved on an error", tt.name)
		}
		if err == nil && tt.applied > 0 && next != apply[len(apply)-1].Head() {
			t.Errorf("%s: head %v, want the last applied", tt.name, next)
		}
	}
}

// FuzzExtend: any batch (JSON-decoded entries) against a replica at any
// point of a log: no panic; what is applied chains from the head without a
// gap, each entry valid; on an error nothing is applied and the head stays.
func FuzzExtend(f *testing.F) {
	log := chainOf("q", 5, 1, 1, 2)
	good, _ := json.Marshal(log)
	f.Add(good, uint8(2), uint64(2), uint64(1))
	f.Add([]byte(`[{"queue":"q","clock":1}]`), uint8(0), uint64(1), uint64(0))
	f.Add([]byte(`[]`), uint8(5), uint64(0), uint64(3))
	f.Fuzz(func(t *testing.T, batch []byte, at uint8, from, known uint64) {
		var entries []Entry
		if json.Unmarshal(batch, &entries) != nil {
			return
		}
		var head Head
		if i := int(at) % (len(log) + 1); i > 0 {
			head = log[i-1].Head()
		}
		apply, next, err := Extend("q", head, from, known, entries)
		if err != nil {
			if len(apply) != 0 || next != head {
				t.Fatalf("error %v with %d applied, head %v", err, len(apply), next)
			}
			return
		}
		cur := head
		for _, e := range apply {
			if !e.Valid() || e.Clock != cur.Clock+1 || e.Prev != cur.Hash || e.Version > from || from < known {
				t.Fatalf("applied %+v after %+v", e, cur)
			}
			cur = e.Head()
		}
		if cur != next {
			t.Fatalf("head %v, the last applied says %v", next, cur)
		}
	})
}

// TestHeadNewer: logs rank by their last entry's replica-set version, then
// by clock: a longer log written under a set since replaced is not newer.
func TestHeadNewer(t *testing.T) {
	for _, tc := range []struct {
		name string
		h, o Head
		want bool
	}{
		{"longer at the same version", Head{Clock: 5, Version: 2}, Head{Clock: 4, Version: 2}, true},
		{"shorter at the same version", Head{Clock: 4, Version: 2}, Head{Clock: 5, Version: 2}, false},
		{"equal", Head{Clock: 4, Version: 2}, Head{Clock: 4, Version: 2}, false},
		{"shorter at a newer version", Head{Clock: 3, Version: 3}, Head{Clock: 9, Version: 2}, true},
		{"longer at an older version", Head{Clock: 9, Version: 2}, Head{Clock: 3, Version: 3}, false},
		{"anything over the empty head", Head{Clock: 1, Version: 1}, Head{}, true},
	} {
		if got := tc.h.Newer(tc.o); got != tc.want {
			t.Errorf("%s: %+v.Newer(%+v) = %v, want %v", tc.name, tc.h, tc.o, got, tc.want)
		}
	}
}
