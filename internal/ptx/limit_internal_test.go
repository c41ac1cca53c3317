package ptx

import (
	"fmt"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/auth"
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
