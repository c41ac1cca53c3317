package store

import (
	"slices"
	"testing"
)

func TestRowUpdates(t *testing.T) {
	u := func(uid string, only bool) TxUpdate { return TxUpdate{UID: uid, AttemptOnly: only} }
	tests := []struct {
		name        string
		us          []TxUpdate
		rows        []int
		attemptOnly []string
	}{
		{"none", nil, nil, nil},
		{"own changes, last of each", []TxUpdate{u("a", false), u("b", false), u("a", false)}, []int{2, 1}, nil},
		{"attempt-only after an own change", []TxUpdate{u("a", false), u("a", true)}, []int{0}, nil},
		{"attempt-only alone", []TxUpdate{u("a", true), u("b", false), u("a", true)}, []int{1}, []string{"a"}},
		{"own change after attempt-only", []TxUpdate{u("a", true), u("b", true), u("a", false)}, []int{2}, []string{"b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rows, only := RowUpdates(tc.us)
			if !slices.Equal(rows, tc.rows) || !slices.Equal(only, tc.attemptOnly) {
				t.Fatalf("RowUpdates = %v, %v; want %v, %v", rows, only, tc.rows, tc.attemptOnly)
			}
		})
	}
}
