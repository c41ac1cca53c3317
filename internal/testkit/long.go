package testkit

import (
	"os"
	"testing"
)

// LongEnv is the environment switch that turns the long runs on: the
// process-level tests (nodes as child processes, kill -9, geth, browsers)
// and the full-length simulations and property runs. `.ci/run` sets it;
// a plain `go test ./...` leaves it off and stays within minutes.
const LongEnv = "ORDO_LONG"

// Long reports whether the long runs are on: LongEnv is "1" and the test
// binary does not run under -short.
func Long() bool {
	return os.Getenv(LongEnv) == "1" && !testing.Short()
}

// NeedLong skips t, saying what it runs and how to turn it on, unless the
// long runs are on.
func NeedLong(t testing.TB, what string) {
	t.Helper()
	if !Long() {
		t.Skipf("SKIPPED: %s; a long run: set %s=1 to run it (.ci/run does)", what, LongEnv)
	}
}
