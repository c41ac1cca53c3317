package sqlite

import (
	"context"
	"sync"
	"testing"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/storetest"
)

func TestChainConformance(t *testing.T) {
	storetest.RunChain(t, func(t *testing.T, dir string) storetest.ChainStored {
		return openIn(t, dir, Options{})
	})
}

// TestStorageFull: SQLITE_FULL, made by bounding the database to the pages
// it has (SetMaxPages), is store.ErrStorageFull, and the store carries on
// once the bound is lifted.
func TestStorageFull(t *testing.T) {
	storetest.RunStorageFull(t, func(t *testing.T, dir string) store.Store {
		return openIn(t, dir, Options{})
	}, func(t *testing.T, _ string, st store.Store) func() {
		s := st.(*Store)
		if _, err := s.SetMaxPages(context.Background(), 1); err != nil {
			t.Fatalf("SetMaxPages: %v", err)
		}
		var once sync.Once
		return func() {
			once.Do(func() {
				if _, err := s.SetMaxPages(context.Background(), 0); err != nil {
					t.Errorf("SetMaxPages: %v", err)
				}
			})
		}
	})
}
