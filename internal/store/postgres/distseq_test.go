package postgres

import (
	"context"
	"reflect"
	"testing"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/storetest"
)

func TestDistseqConformance(t *testing.T) {
	storetest.RunDistseq(t, func(t *testing.T) store.DistseqStore {
		s := openIn(t, t.TempDir(), Options{})
		t.Cleanup(func() { _ = s.Close() })
		return s
	})
}

// TestApplyDistseqStateTwice: a batch naming a state twice merges its
// records in order, as two batches would (and as SQLite's upsert does).
func TestApplyDistseqStateTwice(t *testing.T) {
	ctx := context.Background()
	data := store.DistseqState{Contract: "c", ID: "s", Data: []byte("d"), CreatedBy: "tx1", Height: 4}
	spend := func(by string) store.DistseqState {
		return store.DistseqState{Contract: "c", ID: "s", Spent: true, SpentBy: by}
	}
	merged := func(by string) store.DistseqState {
		st := data
		st.Spent, st.SpentBy = true, by
		return st
	}
	for _, tc := range []struct {
		name   string
		states []store.DistseqState
		want   store.DistseqState
	}{
		{"data then spend", []store.DistseqState{data, spend("tx2")}, merged("tx2")},
		{"spend then data", []store.DistseqState{spend("tx2"), data}, merged("tx2")},
		{"first spend kept", []store.DistseqState{data, spend("tx2"), spend("tx3")}, merged("tx2")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openIn(t, t.TempDir(), Options{})
			defer s.Close()
			if err := s.ApplyDistseq(ctx, store.DistseqBatch{States: tc.states}); err != nil {
				t.Fatal(err)
			}
			got, err := s.DistseqStates(ctx, "c", false)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || !reflect.DeepEqual(got[0], tc.want) {
				t.Fatalf("DistseqStates = %+v, want [%+v]", got, tc.want)
			}
		})
	}
}
