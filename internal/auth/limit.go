package auth

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"sync"
	"time"

	"github.com/ordolabs/ordo/internal/httpjson"
)

// CodeRateLimited (429) is the code of an intake request past its
// principal's rate (Limiter): the answer carries Retry-After.
const CodeRateLimited = "rate_limited"

// Limit is one principal's intake rate: a token bucket that holds up to
// Burst intents and refills at PerSecond.
type Limit struct {
	// PerSecond is the sustained rate, in intents a second. 0 means no
	// limit. Defaults to 0.
	PerSecond float64 `yaml:"perSecond"`
	// Burst is how many intents may come at once, on a full bucket.
	// Defaults to PerSecond rounded up, at least 1.
	Burst int `yaml:"burst"`
}

// burst is Burst or its default.
func (l Limit) burst() float64 {
	if l.Burst > 0 {
		return float64(l.Burst)
	}
	return max(1, math.Ceil(l.PerSecond))
}

// Validate checks the limit's fields, named under field.
func (l Limit) Validate(field string) error {
	if l.PerSecond < 0 || math.IsNaN(l.PerSecond) || math.IsInf(l.PerSecond, 0) {
		return fmt.Errorf("%s.perSecond: must be 0 (no limit) or a positive rate, got %v", field, l.PerSecond)
	}
	if l.Burst < 0 {
		return fmt.Errorf("%s.burst: must be 0 (the default) or more, got %d", field, l.Burst)
	}
	return nil
}

// LimiterConfig is every principal's intake rate.
type LimiterConfig struct {
	// Default is the limit of each principal without its own. Defaults to
	// no limit.
	Default Limit
	// Principals are limits of their own, by principal name. Defaults to
	// none.
	Principals map[string]Limit
}

// Limiter limits each principal's intake with a token bucket of its own
// (LimiterConfig), on an injected clock. A nil *Limiter limits nothing. It
// is safe for concurrent use.
//
// A request of n intents is let through when the bucket holds
// min(n, burst) of them, and takes n: the bucket may go below empty (a
// batch larger than the burst passes on a full bucket, then the principal
// waits it off), so the sustained rate is PerSecond whatever the sizes.
type Limiter struct {
	cfg LimiterConfig
	now func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
}

// bucket is one principal's tokens at a time.
type bucket struct {
	tokens float64
	at     time.Time
}

// NewLimiter returns a Limiter of cfg whose time is now (the node's
// clock), or nil when no limit is set (every rate 0).
func NewLimiter(cfg LimiterConfig, now func() time.Time) *Limiter {
	on := cfg.Default.PerSecond > 0
	for _, l := range cfg.Principals {
		on = on || l.PerSecond > 0
	}
	if !on {
		return nil
	}
	return &Limiter{cfg: cfg, now: now, buckets: map[string]*bucket{}}
}

// limitOf is principal's limit.
func (l *Limiter) limitOf(principal string) Limit {
	if lim, ok := l.cfg.Principals[principal]; ok {
		return lim
	}
	return l.cfg.Default
}

// Take takes n intents from principal's bucket. Past its rate it returns
// an *httpjson.Error with code rate_limited (429) whose RetryAfter is when
// the bucket will hold them, and takes nothing.
func (l *Limiter) Take(principal string, n int) error {
	if l == nil || n <= 0 {
		return nil
	}
	lim := l.limitOf(principal)
	if lim.PerSecond <= 0 {
		return nil
	}
	burst := lim.burst()
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[principal]
	if b == nil {
		b = &bucket{tokens: burst, at: now}
		l.buckets[principal] = b
	}
	if el := now.Sub(b.at); el > 0 {
		b.tokens = min(burst, b.tokens+el.Seconds()*lim.PerSecond)
		b.at = now
	}
	need := min(float64(n), burst)
	if b.tokens >= need {
		b.tokens -= float64(n)
		return nil
	}
	wait := time.Duration(math.Ceil((need - b.tokens) / lim.PerSecond * float64(time.Second)))
	return &httpjson.Error{Code: CodeRateLimited, RetryAfter: wait,
		Message: fmt.Sprintf("principal %s is past its intake rate (%g intents a second, bursts of %g): nothing of this request was taken; retry in %s",
			principal, lim.PerSecond, burst, retryText(wait))}
}

// TakeRequest takes n intents for the principal of r (see Take; a caller
// without one counts as the principal "").
func (l *Limiter) TakeRequest(r *http.Request, n int) error {
	return l.TakeContext(r.Context(), n)
}

// TakeContext takes n intents for the principal of ctx (see Take).
func (l *Limiter) TakeContext(ctx context.Context, n int) error {
	if l == nil {
		return nil
	}
	p, _ := PrincipalFrom(ctx)
	return l.Take(p.Name, n)
}

// retryText is a wait as Retry-After gives it: whole seconds, at least 1.
func retryText(d time.Duration) string {
	return fmt.Sprintf("%ds", httpjson.RetryAfterSeconds(d))
}
