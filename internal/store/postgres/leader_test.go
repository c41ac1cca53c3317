package postgres

import (
	"testing"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/storetest"
)

func TestLeaderConformance(t *testing.T) {
	storetest.RunLeader(t, func(t *testing.T, dir string) store.LeaderStore {
		return openIn(t, dir, Options{})
	})
}
