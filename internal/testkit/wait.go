package testkit

import (
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/clock"
)

// WaitFor polls cond every period on the wall clock (clock.Real) until it
// holds, and fails t with what once within has passed: a test waits on a
// condition, never a fixed time.
func WaitFor(t testing.TB, within, every time.Duration, what string, cond func() bool) {
	t.Helper()
	var wall clock.Real
	deadline := wall.Now().Add(within)
	for !cond() {
		if !wall.Now().Before(deadline) {
			t.Fatalf("%s: not within %s", what, within)
		}
		tm := wall.NewTimer(every)
		<-tm.C()
	}
}
