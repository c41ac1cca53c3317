package procs_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/testkit"
)

// TestVersionNamesTheCommit builds ordo as a clone's `go build` does (VCS
// stamps on) and as .ci/run does (-buildvcs=false, the commit passed with
// -ldflags -X main.commit), and checks that `ordo version` names the
// commit HEAD is at, and the Go version.
func TestVersionNamesTheCommit(t *testing.T) {
	if !testkit.Long() {
		t.Skip("builds the binary: a long run (ORDO_LONG=1; .ci/run sets it)")
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not in a git checkout: %v", err)
	}
	root, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatal(err)
	}
	rev := strings.TrimSpace(string(head))
	const clone = "a clone's go build"
	for _, tc := range []struct {
		name  string
		flags []string
	}{
		{clone, []string{"-buildvcs=true"}},
		{".ci/run's -buildvcs=false and ldflags", []string{"-buildvcs=false", "-ldflags=-X=main.commit=" + rev}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if fi, err := os.Stat(filepath.Join(strings.TrimSpace(string(root)), ".git")); tc.name == clone && (err != nil || !fi.IsDir()) {
				t.Skip("a git worktree (.git is a file): the go command stamps VCS information only under a .git directory")
			}
			bin := filepath.Join(t.TempDir(), "ordo")
			cmd := exec.CommandContext(t.Context(), "go", append(append([]string{"build"}, tc.flags...), "-o", bin, "./cmd/ordo")...)
			cmd.Dir = strings.TrimSpace(string(root))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("go build: %v\n%s", err, out)
			}
			out, err := exec.Command(bin, "version").CombinedOutput()
			if err != nil {
				t.Fatalf("ordo version: %v\n%s", err, out)
			}
			lines := strings.Split(string(out), "\n")
			if len(lines) < 3 || !strings.HasPrefix(lines[1], "commit "+rev) || !strings.HasPrefix(lines[2], "go go1.") {
				t.Fatalf("ordo version printed %q, want its second line to start %q and the third to name the Go version", out, "commit "+rev)
			}
		})
	}
}
