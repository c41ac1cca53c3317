package auth

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/httpjson"
)

// A token bucket per principal on an injected clock: a burst, then the
// rate; a request larger than the burst passes on a full bucket and is
// waited off; a refusal takes nothing and says when to come back.
func TestLimiter(t *testing.T) {
	t.Parallel()
	now := time.Unix(0, 0)
	l := NewLimiter(LimiterConfig{Default: Limit{PerSecond: 4, Burst: 2}, Principals: map[string]Limit{"fast": {PerSecond: 100}, "free": {}}},
		func() time.Time { return now })
	type step struct {
		advance   time.Duration
		principal string
		n         int
		retry     time.Duration // 0: allowed
	}
	for i, s := range []step{
		{0, "a", 1, 0},
		{0, "a", 1, 0},
		{0, "a", 1, 250 * time.Millisecond}, // empty: one more in 1/4 s
		{0, "b", 2, 0},                      // b has its own bucket
		{100 * time.Millisecond, "a", 1, 150 * time.Millisecond},
		{150 * time.Millisecond, "a", 1, 0},
		{time.Hour, "a", 5, 0},                                   // full (2): 5 pass, 3 owed
		{0, "a", 1, time.Second},                                 // back to 1 in (3+1)/4 s
		{500 * time.Millisecond, "a", 1, 500 * time.Millisecond}, // the refusal took nothing
		{500 * time.Millisecond, "a", 1, 0},
		{0, "fast", 100, 0}, // its own limit, burst 100 by default
		{0, "fast", 1, 10 * time.Millisecond},
		{0, "free", 1_000_000, 0}, // perSecond 0: exempt
		{0, "a", 0, 0},
	} {
		now = now.Add(s.advance)
		err := l.Take(s.principal, s.n)
		var e *httpjson.Error
		switch {
		case s.retry == 0 && err != nil:
			t.Fatalf("step %d: %v", i, err)
		case s.retry != 0 && (!errors.As(err, &e) || e.Code != CodeRateLimited || e.RetryAfter != s.retry):
			t.Fatalf("step %d: %#v, want rate_limited after %s", i, err, s.retry)
		}
	}
	var none *Limiter
	if err := none.Take("a", 1e9); err != nil {
		t.Fatal(err)
	}
	if NewLimiter(LimiterConfig{Principals: map[string]Limit{"a": {}}}, time.Now) != nil {
		t.Fatal("a limiter with no rate is not nil")
	}
}

// A 429 is answered with its Retry-After in whole seconds, rounded up.
func TestRateLimitedAnswer(t *testing.T) {
	t.Parallel()
	a, _ := New(Config{Open: true})
	rt := NewRouter(a, httpjson.Options{})
	rt.HandleJSON("POST /x", Public, func(*http.Request) (any, error) {
		return nil, &httpjson.Error{Code: CodeRateLimited, Message: "slow down", RetryAfter: 1100 * time.Millisecond}
	})
	req := httptest.NewRequest("POST", "/x", nil)
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	rt.ServeHTTP(w, req)
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "2" {
		t.Fatalf("%d %v %s", w.Code, w.Header(), w.Body)
	}
}
