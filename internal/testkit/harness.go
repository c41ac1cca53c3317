package testkit

import (
	"strings"
	"testing"
	"time"
)

// Take removes from *out the first element match accepts and returns it
// (an unanswered effect a test answers); false when none does.
func Take[E any](out *[]E, match func(E) bool) (E, bool) {
	for i, e := range *out {
		if match(e) {
			*out = append((*out)[:i], (*out)[i+1:]...)
			return e, true
		}
	}
	var zero E
	return zero, false
}

// NoneBroken fails t when bad (the broken checks of a turn: a core's
// CheckInvariants, a memory store's checks) is not empty, listing them one
// a line under what ("invariants broken").
func NoneBroken(t testing.TB, what string, bad []string) {
	t.Helper()
	if len(bad) > 0 {
		t.Fatalf("%s:\n  %s", what, strings.Join(bad, "\n  "))
	}
}

// Offset prints at as its offset from t0 ("+1m30s"), "never" for the zero
// time.
func Offset(t0, at time.Time) string {
	if at.IsZero() {
		return "never"
	}
	return "+" + at.Sub(t0).String()
}

// Lines prints each of xs, formatted by f, on a line of its own after
// prefix.
func Lines[T any](prefix string, xs []T, f func(T) string) string {
	var b strings.Builder
	for _, x := range xs {
		b.WriteString(prefix + f(x) + "\n")
	}
	return b.String()
}

// Section writes title on a line, then each of xs formatted by f on a line
// of its own indented by two spaces; nothing when xs is empty.
func Section[T any](b *strings.Builder, title string, xs []T, f func(T) string) {
	if len(xs) == 0 {
		return
	}
	b.WriteString(title + "\n")
	b.WriteString(Lines("  ", xs, f))
}

// Core is what a sans-I/O core offers a test that turns it by hand: its
// invariant checks, its Ready of type R, and Advance.
type Core[R any] interface {
	CheckInvariants() []string
	Ready() R
	Advance()
}

// Turn checks c's invariants (failing t when any is broken), takes c's
// Ready and advances c: one turn with nothing committed.
func Turn[R any](t testing.TB, c Core[R]) R {
	t.Helper()
	NoneBroken(t, "invariants broken", c.CheckInvariants())
	r := c.Ready()
	c.Advance()
	return r
}
