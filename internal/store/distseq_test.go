package store_test

import (
	"reflect"
	"testing"

	"github.com/ordolabs/ordo/internal/store"
)

// TestDecodeGranted: what EncodeGranted wrote reads back, and so does the
// older form (a list of spend lists, without creators).
func TestDecodeGranted(t *testing.T) {
	t.Parallel()
	g := []store.DistseqGrant{{Spends: []string{"a", "b"}, Creators: map[string]string{"b": "tx1"}}, {Spends: []string{}}}
	for _, tt := range []struct {
		name string
		in   []byte
		want []store.DistseqGrant
	}{
		{"none", nil, nil},
		{"encoded", store.EncodeGranted(g), g},
		{"older form", []byte(`[["a","b"],[]]`), []store.DistseqGrant{{Spends: []string{"a", "b"}}, {Spends: []string{}}}},
	} {
		got, err := store.DecodeGranted(tt.in)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %+v, %v; want %+v", tt.name, got, err, tt.want)
		}
	}
	if _, err := store.DecodeGranted([]byte(`{"x":1}`)); err == nil {
		t.Error("an object decoded as grants")
	}
}
