package node

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/httpjson"
	"github.com/ordolabs/ordo/internal/ptx"
)

// countingBackend counts the intents that reach it.
type countingBackend struct {
	ptx.Backend
	n *int
}

func (b countingBackend) Submit(context.Context, string, string, []byte) (string, error) {
	*b.n++
	return "tx", nil
}

func (b countingBackend) Prepare(context.Context, string, string, []byte) (string, error) {
	*b.n++
	return "tx", nil
}

// ptx_ sends and prepares count against their principal's intake rate:
// past it the call is refused rate_limited and reaches nothing.
func TestPTXSendsAreLimited(t *testing.T) {
	t.Parallel()
	now := time.Unix(0, 0)
	lim := auth.NewLimiter(auth.LimiterConfig{Default: auth.Limit{PerSecond: 1, Burst: 2}}, func() time.Time { return now })
	n := 0
	b := limitPTX(countingBackend{n: &n}, lim)
	alice := auth.WithPrincipal(context.Background(), auth.Principal{Name: "alice"})
	bob := auth.WithPrincipal(context.Background(), auth.Principal{Name: "bob"})
	if _, err := b.Submit(alice, "g", "", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Prepare(alice, "g", "", nil); err != nil {
		t.Fatal(err)
	}
	_, err := b.Submit(alice, "g", "", nil)
	var he *httpjson.Error
	if !errors.As(err, &he) || he.Code != auth.CodeRateLimited || n != 2 {
		t.Fatalf("a third send: %v; %d reached the backend", err, n)
	}
	if _, err := b.Prepare(bob, "g", "", nil); err != nil || n != 3 {
		t.Fatalf("another principal: %v", err)
	}
	now = now.Add(time.Second)
	if _, err := b.Submit(alice, "g", "", nil); err != nil || n != 4 {
		t.Fatalf("after a second: %v", err)
	}
	if limitPTX(countingBackend{n: &n}, nil) != (countingBackend{n: &n}) {
		t.Fatal("no limit wraps the backend")
	}
}
