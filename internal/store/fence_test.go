package store_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/store"
)

// FenceCheck: a fence holds only when every lease it names is read, the
// holder's, with its token, and live; Stale names the first that is not.
func TestFenceCheck(t *testing.T) {
	f := &store.Fence{Holder: "n1", Leases: map[string]int64{"queue/b": 2, "queue/a": 1}}
	if got := f.Names(); !slices.Equal(got, []string{"queue/a", "queue/b"}) {
		t.Fatalf("Names: %v", got)
	}
	a := store.Lease{Name: "queue/a", Holder: "n1", Token: 1}
	b := store.Lease{Name: "queue/b", Holder: "n1", Token: 2}
	for _, tc := range []struct {
		name  string
		read  []store.Lease
		live  bool
		stale string // a part of Stale's answer; "" when the fence holds
	}{
		{"holds", []store.Lease{a, b}, true, ""},
		{"expired", []store.Lease{a, b}, false, "queue/a: held by \"n1\" with token 1 (live false)"},
		{"another holder", []store.Lease{a, {Name: "queue/b", Holder: "n2", Token: 2}}, true, "queue/b: held by \"n2\""},
		{"a new token", []store.Lease{{Name: "queue/a", Holder: "n1", Token: 3}, b}, true, "with token 3 (live true), want \"n1\" with 1"},
		{"never taken", []store.Lease{b}, true, "1 of 2 leases never taken"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			chk := f.Check()
			for _, l := range tc.read {
				chk.Lease(l, tc.live)
			}
			got := chk.Stale()
			if (tc.stale == "") != (got == "") || !strings.Contains(got, tc.stale) {
				t.Fatalf("Stale() = %q, want %q", got, tc.stale)
			}
		})
	}
}
