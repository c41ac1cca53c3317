package clock

import (
	"context"
	"time"
)

// Every calls fn at once and then every d on c, until ctx ends (a call in
// progress finishes first).
func Every(ctx context.Context, c Clock, d time.Duration, fn func(context.Context)) {
	for {
		fn(ctx)
		t := c.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C():
		}
	}
}
