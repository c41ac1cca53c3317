package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// release is ordo's version number: what `ordo version` prints for a build
// from a clone (with " (devel)"), and the version of the TypeScript SDK
// (sdk/typescript/package.json; TestSDKVersion checks they match). A
// release tag is "v" + release.
const release = "0.1.0"

// commit is the commit the binary was built from, when the build says so
// with -ldflags "-X main.commit=$(git rev-parse HEAD)" (.ci/run does, since
// it builds with -buildvcs=false). Empty otherwise: the go command's own
// VCS stamp (vcs.revision) is read instead.
var commit string

// buildVersion is what `ordo version` prints: the module's version, the
// commit, whether the tree had uncommitted changes, and the Go toolchain.
type buildVersion struct {
	Version  string
	Commit   string
	Modified bool
	Go       string
}

// versionOf reads the version from the build information (nil when the
// binary has none: release; a clone's build: release with " (devel)") and
// the commit set at link time (ldCommit, which wins over the VCS stamp
// when not empty). A commit neither says is "unknown".
func versionOf(info *debug.BuildInfo, ldCommit string) buildVersion {
	v := buildVersion{Version: release, Commit: "unknown", Go: runtime.Version()}
	if info != nil {
		switch m := info.Main.Version; {
		case m == "", m == "(devel)", strings.HasPrefix(m, "v0.0.0-"):
			// A build from a clone: the go command stamps "(devel)", or
			// the pseudo-version of an untagged commit.
			v.Version = release + " (devel)"
		default:
			v.Version = m
		}
		if info.GoVersion != "" {
			v.Go = info.GoVersion
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Commit = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	if ldCommit != "" && ldCommit != v.Commit {
		v.Commit, v.Modified = ldCommit, false // the VCS stamp, if any, was of another tree
	}
	return v
}

// String is the three lines `ordo version` prints.
func (v buildVersion) String() string {
	c := v.Commit
	if v.Modified {
		c += " (modified: built with uncommitted changes)"
	}
	return fmt.Sprintf("ordo %s\ncommit %s\ngo %s %s/%s\n", v.Version, c, v.Go, runtime.GOOS, runtime.GOARCH)
}

func versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print ordo's version, the commit it was built from and the Go version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			info, _ := debug.ReadBuildInfo()
			_, err := fmt.Fprint(cmd.OutOrStdout(), versionOf(info, commit))
			return err
		},
	}
}
