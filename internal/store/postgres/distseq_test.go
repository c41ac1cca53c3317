package postgres

import (
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
