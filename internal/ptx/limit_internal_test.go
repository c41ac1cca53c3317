package ptx

import (
	"fmt"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/distseq"
)

// A send refused by its principal's intake rate answers a server error
// whose data carries the stable code rate_limited and when to retry.
func TestEngineErrorRateLimited(t *testing.T) {
	t.Parallel()
	lim := auth.NewLimiter(auth.LimiterConfig{Default: auth.Limit{PerSecond: 1}}, func() time.Time { return time.Unix(0, 0) })
	if err := lim.Take("p", 1); err != nil {
		t.Fatal(err)
	}
	err := lim.Take("p", 1)
	e := engineError(fmt.Errorf("submit: %w", err))
	d, ok := e.Data.(map[string]any)
	if e.Code != CodeServer || !ok || d["code"] != auth.CodeRateLimited || d["retryAfter"] != int64(1) {
		t.Fatalf("%+v", e)
	}
}

// TestEngineErrorKeyConflict: the core's refusal of a key that names
// another intent (a concurrent send won) is the conflict a caller gets
// when ptx finds it first, not an internal error.
func TestEngineErrorKeyConflict(t *testing.T) {
	t.Parallel()
	e := engineError(fmt.Errorf("submit: %w: key %q names %s", distseq.ErrKeyConflict, "k", "A-tx1"))
	d, ok := e.Data.(map[string]string)
	if e.Code != CodeConflict || !ok || d["code"] != "idempotency_conflict" {
		t.Fatalf("%+v, want %d idempotency_conflict", e, CodeConflict)
	}
}
