package memstore

import (
	"testing"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/storetest"
)

func TestJobsConformance(t *testing.T) {
	storetest.RunJobs(t, func(*testing.T) store.JobStore { return NewJobs() })
}
