package cost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The /proc readers parse what Linux writes, a command with spaces and
// parentheses included, and say "unknown" on what they cannot read.
func TestProcReaders(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// fields: pid (comm) state ppid ... utime=14 stime=15 cutime=16 cstime=17
	stat := write("stat", "42 (post (gres) x) S 7 42 42 0 -1 4194560 100 0 0 0 250 50 30 20 20 0 1 0 100 0 0\n")
	if got := procCPU(stat, false); got != 300*clockTick {
		t.Errorf("cpu %v, want %v", got, 300*clockTick)
	}
	if got := procCPU(stat, true); got != 350*clockTick {
		t.Errorf("cpu with children %v, want %v", got, 350*clockTick)
	}
	if got := procPPID(stat); got != 7 {
		t.Errorf("ppid %d, want 7", got)
	}
	io := write("io", "rchar: 10\nwchar: 20\nread_bytes: 4096\nwrite_bytes: 81920\ncancelled_write_bytes: 0\n")
	if got := procWriteBytes(io); got != 81920 {
		t.Errorf("write_bytes %d", got)
	}
	missing := filepath.Join(dir, "none")
	if procCPU(missing, false) != 0 || procPPID(missing) != -1 || procWriteBytes(missing) != -1 || postmasterTreeCPU(missing) != -1 {
		t.Error("a missing file must read as unknown")
	}
	if got := postmasterTreeCPU(write("postmaster.pid", "notapid\n")); got != -1 {
		t.Errorf("a bad pid file: %v", got)
	}
}

func TestCostString(t *testing.T) {
	t.Parallel()
	c := Cost{NodeCPU: 140 * time.Microsecond, DBCPU: -1, Commits: 0.022, Rows: 6.1, RowsKind: "stats", Bytes: 2700, BytesKind: "WAL"}
	want := "cost per intent: node CPU 140 µs, database CPU n/a, 0.022 commits, 6.1 rows (stats), 2700 B WAL"
	if got := c.String(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	c.DBCPU, c.Bytes = 126*time.Microsecond, -1
	if got := c.String(); !strings.Contains(got, "database CPU 126 µs") || !strings.Contains(got, "n/a B WAL") {
		t.Errorf("got %q", got)
	}
	// River's: per job, no commits or rows counted
	c = Cost{Unit: "job", NodeCPU: 30 * time.Microsecond, DBCPU: -1, Commits: -1, RowsKind: "n/a", Bytes: 900, BytesKind: "written"}
	if got, want := c.String(), "cost per job: node CPU 30 µs, database CPU n/a, 900 B written"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
