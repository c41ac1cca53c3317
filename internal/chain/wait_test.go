package chain

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/clock"
)

// statuses answers pending for a hash its first polls, then its outcome.
type statuses struct {
	pending map[Hash]int
	failed  map[Hash]string
	polls   int
}

func (s *statuses) TxStatus(_ context.Context, h Hash) (TxStatus, error) {
	s.polls++
	if s.pending[h] > 0 {
		s.pending[h]--
		return TxStatus{Hash: h, State: TxPending}, nil
	}
	reason, failed := s.failed[h]
	return TxStatus{Hash: h, State: TxIncluded, Success: !failed, Reason: reason}, nil
}

// TestWaitIncluded: it polls until each hash is included, names a failed
// one's reason, and stops when ctx ends.
func TestWaitIncluded(t *testing.T) {
	ctx := context.Background()
	s := &statuses{pending: map[Hash]int{"a": 2, "b": 1}, failed: map[Hash]string{"c": "state_spent"}}
	if err := WaitIncluded(ctx, s, clock.Real{}, time.Millisecond, "a", "b"); err != nil || s.polls != 5 {
		t.Fatalf("a, b: %v after %d polls, want nil after 5", err, s.polls)
	}
	if err := WaitIncluded(ctx, s, clock.Real{}, time.Millisecond, "c"); err == nil || !strings.Contains(err.Error(), "state_spent") {
		t.Fatalf("a failed transaction: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	s.pending["d"] = 1 << 30
	if err := WaitIncluded(cctx, s, clock.Real{}, time.Hour, "d"); !errors.Is(err, context.Canceled) {
		t.Fatalf("ctx ended: %v", err)
	}
}
