package processor

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit"
)

func qb(id string) *pbatch { return &pbatch{rec: store.ProcBatch{ID: id}} }

// TestQueueMapModel checks queueMap against a plain slice: random inserts
// and removals at random positions, pushes at the back, pops at the front,
// and runs of inserts at one place that exhaust the key gap and renumber the
// queue. After every operation: the order, At, Len, keys strictly ascending,
// and Insert's returned batches (the inserted one, or all after a renumber:
// exactly those whose keys changed).
func TestQueueMapModel(t *testing.T) {
	seed := testkit.Seed(t)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var q queueMap
	var model []*pbatch
	next := 0
	renumbers := 0
	check := func(op string) {
		t.Helper()
		if q.Len() != len(model) {
			t.Fatalf("%s: Len %d, model %d", op, q.Len(), len(model))
		}
		i := 0
		q.Each(func(j int, b *pbatch) bool {
			if j != i || b != model[i] {
				t.Fatalf("%s: position %d holds %s, model %s", op, j, b.rec.ID, model[i].rec.ID)
			}
			if i > 0 && model[i-1].rec.Key >= b.rec.Key {
				t.Fatalf("%s: keys do not ascend at %d: %d then %d", op, i, model[i-1].rec.Key, b.rec.Key)
			}
			i++
			return true
		})
		if i != len(model) {
			t.Fatalf("%s: Each walked %d of %d", op, i, len(model))
		}
		for k := 0; k < 3 && len(model) > 0; k++ {
			j := rng.IntN(len(model))
			if q.At(j) != model[j] {
				t.Fatalf("%s: At(%d) is not the model's", op, j)
			}
		}
		if q.At(-1) != nil || q.At(len(model)) != nil {
			t.Fatalf("%s: At out of range is not nil", op)
		}
	}
	insert := func(pos int, op string) {
		b := qb("b" + strconv.Itoa(next))
		next++
		keys := map[*pbatch]int64{}
		for _, m := range model {
			keys[m] = m.rec.Key
		}
		var changed []*pbatch
		if op == "push" {
			changed = q.PushBack(b)
		} else {
			changed = q.Insert(pos, b)
		}
		model = slices.Insert(model, min(pos, len(model)), b)
		var moved []*pbatch
		for _, m := range model {
			if k, ok := keys[m]; !ok || k != m.rec.Key {
				moved = append(moved, m)
			}
		}
		switch {
		case len(changed) == 1 && changed[0] == b && len(moved) == 1:
		case len(changed) > 1: // a window respaced (or the whole queue)
			renumbers++
			for _, m := range moved {
				if !slices.Contains(changed, m) {
					t.Fatalf("%s: %s's key changed and Insert did not say", op, m.rec.ID)
				}
			}
		default:
			t.Fatalf("%s: Insert returned %d batches, %d keys changed of %d", op, len(changed), len(moved), len(model))
		}
		check(op)
	}
	for step := range 5000 {
		switch r := rng.IntN(100); {
		case r < 25:
			insert(rng.IntN(len(model)+2), "insert") // one past the end: clamped
		case r < 35:
			insert(len(model), "push")
		case r < 37 && len(model) > 2:
			// A run of inserts right after the front exhausts the gap.
			for range 22 {
				insert(1, "insert at 1")
			}
		case r < 67:
			if len(model) == 0 {
				if q.RemoveAt(0) != nil {
					t.Fatal("RemoveAt of an empty queue")
				}
				continue
			}
			i := rng.IntN(len(model))
			if got := q.RemoveAt(i); got != model[i] {
				t.Fatalf("step %d: RemoveAt(%d) took the wrong batch", step, i)
			}
			model = slices.Delete(model, i, i+1)
			check("remove")
		case r < 87:
			got := q.RemoveAt(0)
			if len(model) == 0 {
				if got != nil {
					t.Fatal("pop of an empty queue")
				}
				continue
			}
			if got != model[0] {
				t.Fatalf("step %d: pop took the wrong batch", step)
			}
			model = model[1:]
			check("pop")
		default:
			if len(model) == 0 {
				continue
			}
			i := rng.IntN(len(model))
			if !q.Remove(model[i]) {
				t.Fatalf("step %d: Remove of %s by key failed", step, model[i].rec.ID)
			}
			model = slices.Delete(model, i, i+1)
			check("remove by key")
		}
		if q.RemoveAt(len(model)) != nil || q.RemoveAt(-1) != nil {
			t.Fatal("RemoveAt out of range took a batch")
		}
	}
	if renumbers == 0 {
		t.Fatal("no insert renumbered the queue: the gap was never exhausted")
	}
	t.Logf("%d renumbers, %d batches left", renumbers, len(model))
}

// benchQueueLen is the length of the benchmarks' queues.
const benchQueueLen = 100_000

// BenchmarkQueueMapInsertRemove inserts at a random position and removes at
// another of a 100,000-batch queueMap (one op: both).
func BenchmarkQueueMapInsertRemove(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	var q queueMap
	bs := make([]*pbatch, benchQueueLen+1)
	for i := range bs {
		bs[i] = qb("b" + strconv.Itoa(i))
	}
	for _, x := range bs[:benchQueueLen] {
		q.PushBack(x)
	}
	spare := bs[benchQueueLen]
	b.ResetTimer()
	for range b.N {
		q.Insert(rng.IntN(benchQueueLen+1), spare)
		spare = q.RemoveAt(rng.IntN(benchQueueLen + 1))
	}
}

// BenchmarkSliceInsertRemove is the baseline: the same on a slice, whose
// insert and removal copy the tail (Valence's O(n)).
func BenchmarkSliceInsertRemove(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	s := make([]*pbatch, 0, benchQueueLen+1)
	for i := range benchQueueLen {
		s = append(s, qb("b"+strconv.Itoa(i)))
	}
	spare := qb("spare")
	b.ResetTimer()
	for range b.N {
		s = slices.Insert(s, rng.IntN(benchQueueLen+1), spare)
		i := rng.IntN(benchQueueLen + 1)
		spare = s[i]
		s = slices.Delete(s, i, i+1)
	}
}

// BenchmarkQueueMapInsertAtOne inserts again and again right behind the
// front of a 100,000-batch queueMap, the pattern that exhausts the key gap
// fastest, and reports the store rows each insert rewrites (rows/op).
func BenchmarkQueueMapInsertAtOne(b *testing.B) {
	var q queueMap
	for i := range benchQueueLen {
		q.PushBack(qb("b" + strconv.Itoa(i)))
	}
	rows := 0
	b.ResetTimer()
	for i := range b.N {
		rows += len(q.Insert(1, qb("x"+strconv.Itoa(i))))
		q.RemoveAt(2)
	}
	b.ReportMetric(float64(rows)/float64(b.N), "rows/op")
}
