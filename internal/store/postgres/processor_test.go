package postgres

import (
	"context"
	"reflect"
	"testing"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/storetest"
)

func TestProcessorConformance(t *testing.T) {
	storetest.RunProcessor(t, func(t *testing.T, dir string) store.ProcessorStore {
		return openIn(t, dir, Options{})
	})
}

func TestEngRuns(t *testing.T) {
	for _, tc := range []struct {
		keys string
		want [][2]int
	}{
		{"", nil},
		{"a", [][2]int{{0, 1}}},
		{"abc", [][2]int{{0, 3}}},
		{"aa", [][2]int{{0, 1}, {1, 2}}},
		{"abca", [][2]int{{0, 3}, {3, 4}}},
		{"abab", [][2]int{{0, 2}, {2, 4}}},
		{"abba", [][2]int{{0, 2}, {2, 4}}},
		{"aaa", [][2]int{{0, 1}, {1, 2}, {2, 3}}},
	} {
		got := engRuns(len(tc.keys), func(i int) byte { return tc.keys[i] })
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("engRuns(%q) = %v, want %v", tc.keys, got, tc.want)
		}
	}
}

// TestApplyProcessorRepeatedKeys: a call naming a key twice is written in
// its order, as SQLite writes it (the later record wins, and a callback
// key given up earlier in the call may be taken later in it).
func TestApplyProcessorRepeatedKeys(t *testing.T) {
	ctx := context.Background()
	cb := func(seq int64, key string) store.Callback {
		return store.Callback{Processor: "p", Seq: seq, Key: key, State: store.CallbackPending}
	}
	for _, tc := range []struct {
		name  string
		first []store.Callback // an earlier call's
		call  []store.Callback
		want  map[int64]string // seq → key
	}{
		{"later wins", nil, []store.Callback{cb(1, "a"), cb(1, "b")}, map[int64]string{1: "b"}},
		{"handover in a run", []store.Callback{cb(1, "a")},
			[]store.Callback{cb(1, "b"), cb(2, "a")}, map[int64]string{1: "b", 2: "a"}},
		{"handover across runs", []store.Callback{cb(1, "a")},
			[]store.Callback{cb(1, "b"), cb(2, "a"), cb(1, "c")}, map[int64]string{1: "c", 2: "a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openIn(t, t.TempDir(), Options{})
			defer s.Close()
			if tc.first != nil {
				if err := s.ApplyProcessor(ctx, store.ProcChanges{Callbacks: tc.first}); err != nil {
					t.Fatal(err)
				}
			}
			c := store.ProcChanges{
				Batches: []store.ProcBatch{
					{Processor: "p", ID: "b", State: store.BatchQueued, Key: 1},
					{Processor: "p", ID: "b", State: store.BatchExecuting, Key: 2},
				},
				Callbacks: tc.call,
			}
			if err := s.ApplyProcessor(ctx, c); err != nil {
				t.Fatal(err)
			}
			if b, err := s.GetBatch(ctx, "p", "b"); err != nil || b.State != store.BatchExecuting || b.Key != 2 {
				t.Fatalf("GetBatch = %+v, %v; want the later record", b, err)
			}
			cs, err := s.Callbacks(ctx, "p", 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			got := map[int64]string{}
			for _, c := range cs {
				got[c.Seq] = c.Key
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("callbacks' keys %v, want %v", got, tc.want)
			}
		})
	}
}
