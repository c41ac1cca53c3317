package ui_test

import (
	"os"
	"os/exec"
	"testing"
)

// TestModules runs the modules' own tests under Node (testdata/
// modules.test.mjs, node --test): fmtWei and fmtInt exact past 2^53, and
// stream() against a real server-sent event stream (events split across
// reads, the token sent, the reconnection from the last id), and the
// API's errors as ApiError. It skips loudly without node (ORDO_NODE, else
// node on PATH), and fails then under CI=true.
func TestModules(t *testing.T) {
	t.Parallel()
	bin := os.Getenv("ORDO_NODE")
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("node"); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("node is missing: the modules' tests need Node 20 or later under CI")
			}
			t.Skipf("SKIPPED: the modules' tests need Node 20 or later (node on PATH, or ORDO_NODE): %v", err)
		}
	}
	out, err := exec.Command(bin, "--test", "--test-timeout=20000", "testdata/modules.test.mjs").CombinedOutput()
	if err != nil {
		t.Fatalf("node --test testdata/modules.test.mjs: %v\n%s", err, out)
	}
}
