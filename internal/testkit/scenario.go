package testkit

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
)

// RunScenarios runs every datadriven script under dir (a package's
// testdata/scenarios), each in a world of its own: newWorld is called once
// a file and returns the function that runs one directive of it and
// returns its output, checked against the file (or written with -rewrite).
// The function is handed each directive's own t.
func RunScenarios(t *testing.T, dir string, newWorld func() func(t *testing.T, d *datadriven.TestData) string) {
	datadriven.Walk(t, dir, func(t *testing.T, path string) {
		run := newWorld()
		datadriven.RunTest(t, path, run)
	})
}

// SubCommands parses the input of a directive that steps several commands
// at once (a scenario's together or crash): one command a line, blank lines
// skipped, a line starting with a digit added to the input of the command
// before it (an events command's rows).
func SubCommands(t *testing.T, d *datadriven.TestData) []*datadriven.TestData {
	var subs []*datadriven.TestData
	for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		if line[0] >= '0' && line[0] <= '9' && len(subs) > 0 {
			last := subs[len(subs)-1]
			last.Input += line + "\n"
			continue
		}
		cmd, args, err := datadriven.ParseLine(line)
		if err != nil {
			d.Fatalf(t, "%s: %v", d.Cmd, err)
		}
		subs = append(subs, &datadriven.TestData{Pos: d.Pos, Cmd: cmd, CmdArgs: args})
	}
	return subs
}

// Arg returns the value of d's argument key (its values joined by ", "), or
// def when d has no such argument.
func Arg(d *datadriven.TestData, key, def string) string {
	for _, a := range d.CmdArgs {
		if a.Key == key {
			return strings.Join(a.Vals, ", ")
		}
	}
	return def
}

// Pos returns d's i-th positional argument (an argument without values); it
// fails the directive with "usage: " and usage when there is none.
func Pos(t *testing.T, d *datadriven.TestData, i int, usage string) string {
	if len(d.CmdArgs) <= i || len(d.CmdArgs[i].Vals) > 0 {
		d.Fatalf(t, "usage: %s", usage)
	}
	return d.CmdArgs[i].Key
}

// PosInt64 is Pos read as a decimal int64.
func PosInt64(t *testing.T, d *datadriven.TestData, i int, usage string) int64 {
	v, err := strconv.ParseInt(Pos(t, d, i, usage), 10, 64)
	if err != nil {
		d.Fatalf(t, "%s: %v", usage, err)
	}
	return v
}

// PosUint64 is Pos read as a decimal uint64 (a cursor, a height).
func PosUint64(t *testing.T, d *datadriven.TestData, i int, usage string) uint64 {
	v, err := strconv.ParseUint(Pos(t, d, i, usage), 10, 64)
	if err != nil {
		d.Fatalf(t, "%s: %v", d.Cmd, err)
	}
	return v
}

// PosDuration is Pos read as a Go duration, a leading "+" allowed ("time
// +5s").
func PosDuration(t *testing.T, d *datadriven.TestData, i int, usage string) time.Duration {
	v, err := time.ParseDuration(strings.TrimPrefix(Pos(t, d, i, usage), "+"))
	if err != nil {
		d.Fatalf(t, "%s: %v", d.Cmd, err)
	}
	return v
}

// OkFail reads d's i-th positional argument, ok (true) or fail (false).
func OkFail(t *testing.T, d *datadriven.TestData, i int, usage string) bool {
	switch v := Pos(t, d, i, usage); v {
	case "ok":
		return true
	case "fail":
		return false
	default:
		d.Fatalf(t, "usage: %s (ok or fail, not %q)", usage, v)
	}
	return false
}

// ScanDuration sets *dst to the Go duration of d's argument key, when d has
// it; a malformed one fails the directive.
func ScanDuration(t *testing.T, d *datadriven.TestData, key string, dst *time.Duration) {
	a, ok := d.Arg(key)
	if !ok {
		return
	}
	v, err := time.ParseDuration(a.SingleVal(t))
	if err != nil {
		d.Fatalf(t, "%s: %v", key, err)
	}
	*dst = v
}

// Indent indents every line of s by two spaces (a step's output nested
// under a label).
func Indent(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "  " + l
		}
	}
	return strings.Join(lines, "")
}
