package postgres

import (
	"testing"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/storetest"
)

func TestProcessorConformance(t *testing.T) {
	storetest.RunProcessor(t, func(t *testing.T, dir string) store.ProcessorStore {
		return openIn(t, dir, Options{})
	})
}
