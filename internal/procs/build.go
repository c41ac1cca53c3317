package procs

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Build compiles ./cmd/ordo of the module the go command finds from the
// current directory into dir/ordo and returns the binary's path.
func Build(ctx context.Context, dir string) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("procs: go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("procs: not inside a module (go env GOMOD: %q)", gomod)
	}
	bin := filepath.Join(dir, "ordo")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/ordo")
	cmd.Dir = filepath.Dir(gomod)
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("procs: go build ./cmd/ordo: %w\n%s", err, b)
	}
	return bin, nil
}
