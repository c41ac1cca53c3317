package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionOf(t *testing.T) {
	t.Parallel()
	const rev = "0123456789abcdef0123456789abcdef01234567"
	vcs := func(modified string) *debug.BuildInfo {
		return &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}}
	}
	for _, tc := range []struct {
		name     string
		info     *debug.BuildInfo
		ld       string
		want     buildVersion
		contains string
	}{
		{"clone, clean", vcs("false"), "", buildVersion{Version: release + " (devel)", Commit: rev, Go: "go1.26.8"}, "commit " + rev + "\n"},
		{"clone, modified", vcs("true"), "", buildVersion{Version: release + " (devel)", Commit: rev, Modified: true, Go: "go1.26.8"}, "(modified"},
		{"ci: -buildvcs=false with the ldflags commit", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, "fedcba",
			buildVersion{Version: release + " (devel)", Commit: "fedcba", Go: "go1.26.8"}, "commit fedcba\n"},
		{"ldflags commit wins over another stamp", vcs("true"), "fedcba", buildVersion{Version: release + " (devel)", Commit: "fedcba", Go: "go1.26.8"}, "commit fedcba\n"},
		{"clone with a VCS pseudo-version", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261128083141-98b97d4cfc3f+dirty"}}, "",
			buildVersion{Version: release + " (devel)", Commit: "unknown", Go: "go1.26.8"}, "ordo " + release + " (devel)\n"},
		{"go install module@version", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}}, "",
			buildVersion{Version: "v1.2.3", Commit: "unknown", Go: "go1.26.8"}, "ordo v1.2.3\n"},
		{"no build information", nil, "", buildVersion{Version: release, Commit: "unknown", Go: runtime.Version()}, "commit unknown\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := versionOf(tc.info, tc.ld)
			if got != tc.want {
				t.Fatalf("versionOf = %+v, want %+v", got, tc.want)
			}
			if s := got.String(); !strings.Contains(s, tc.contains) || !strings.Contains(s, "go "+tc.want.Go+" "+runtime.GOOS) {
				t.Fatalf("printed %q: want it to contain %q and the Go version", s, tc.contains)
			}
		})
	}
}

// TestVersionCommand runs `ordo version` in process: three lines, the
// last naming the toolchain that built the test.
func TestVersionCommand(t *testing.T) {
	t.Parallel()
	cmd := versionCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs(nil)
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "ordo ") || !strings.HasPrefix(lines[1], "commit ") || lines[2] != "go "+runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH {
		t.Fatalf("ordo version printed %q", out.String())
	}
}

// The TypeScript SDK is versioned with the node: its package.json carries
// release.
func TestSDKVersion(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "..", "sdk", "typescript", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatal(err)
	}
	if pkg.Version != release {
		t.Fatalf("sdk/typescript/package.json has version %q, ordo is %q: they must match", pkg.Version, release)
	}
}
