package cost

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ordolabs/ordo/internal/clock"
)

// wall is the clock the meter waits with (it measures real work).
var wall clock.Real

// Cost is what a benchmark's run spent per unit (an intent, a job), so
// that its distance to the physical limits shows: the CPU of signing, the
// fsyncs of the commits.
type Cost struct {
	// NodeCPU is this process's user and system CPU per intent.
	NodeCPU time.Duration
	// DBCPU is the database server's CPU per intent: every process of a
	// PostgreSQL server on this machine (its postmaster's tree). Negative
	// when it cannot be read (a remote server; SQLite runs in NodeCPU).
	DBCPU time.Duration
	// Commits is the store's commits per intent in the work phase (the
	// node's Apply calls, each a synchronous commit: an fsync at least);
	// negative when not counted.
	Commits float64
	// Rows is rows written (inserted, updated or deleted) per intent: on
	// PostgreSQL its statistics (pg_stat_database); on SQLite the rows of
	// the work phase's batches (transactions, attempts, queues, senders,
	// history) and of intake (a transaction row an intent).
	Rows float64
	// Bytes is bytes written per intent: on PostgreSQL its WAL (the
	// difference of pg_current_wal_lsn); on SQLite what this process wrote
	// to storage (/proc/self/io write_bytes: the database, its WAL and
	// checkpoints). Negative when it cannot be read.
	Bytes float64
	// BytesKind names Bytes: "WAL" or "written".
	BytesKind string
	// RowsKind says where Rows comes from: "stats", "batches", or "n/a"
	// (not counted).
	RowsKind string
	// Unit names what the cost is per: "intent" when empty, "job".
	Unit string
}

// String is the cost's part of a benchmark's line; what could not be
// read says n/a, and what was not counted is left out.
func (c Cost) String() string {
	unit := c.Unit
	if unit == "" {
		unit = "intent"
	}
	parts := []string{fmt.Sprintf("node CPU %.0f µs", float64(c.NodeCPU.Nanoseconds())/1e3)}
	if c.DBCPU >= 0 {
		parts = append(parts, fmt.Sprintf("database CPU %.0f µs", float64(c.DBCPU.Nanoseconds())/1e3))
	} else {
		parts = append(parts, "database CPU n/a")
	}
	if c.Commits >= 0 {
		parts = append(parts, fmt.Sprintf("%.3f commits", c.Commits))
	}
	if c.RowsKind != "n/a" {
		parts = append(parts, fmt.Sprintf("%.1f rows (%s)", c.Rows, c.RowsKind))
	}
	if c.Bytes >= 0 {
		parts = append(parts, fmt.Sprintf("%.0f B %s", c.Bytes, c.BytesKind))
	} else {
		parts = append(parts, "n/a B "+c.BytesKind)
	}
	return "cost per " + unit + ": " + strings.Join(parts, ", ")
}

// Meter reads the counters a Cost is the difference of: this
// process's, and those of the PostgreSQL server at PostgresURL ("" for
// SQLite, which runs in this process).
type Meter struct {
	PostgresURL string
}

// Sample is one reading of a Meter's counters.
type Sample struct {
	nodeCPU, dbCPU time.Duration // dbCPU < 0: unknown
	walLSN         string        // PostgreSQL
	rows           int64         // PostgreSQL's statistics
	written        int64         // /proc/self/io write_bytes; < 0 unknown
}

// Read reads the counters now. On PostgreSQL it waits (at most 12 s)
// for the server's statistics to settle: backends report theirs at most
// once a second, and an idle one after 10 s.
func (m Meter) Read(ctx context.Context) (Sample, error) {
	s := Sample{nodeCPU: procCPU("/proc/self/stat", false), dbCPU: -1, written: procWriteBytes("/proc/self/io")}
	if m.PostgresURL == "" {
		return s, nil
	}
	conn, err := pgx.Connect(ctx, m.PostgresURL)
	if err != nil {
		return s, fmt.Errorf("bench: cost: %w", err)
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	const rowsSQL = `SELECT tup_inserted + tup_updated + tup_deleted FROM pg_stat_database WHERE datname = current_database()`
	deadline := wall.Now().Add(12 * time.Second)
	last, stable := int64(-1), time.Time{}
	for {
		var rows int64
		if _, err := conn.Exec(ctx, `SELECT pg_stat_clear_snapshot()`); err != nil {
			return s, fmt.Errorf("bench: cost: %w", err)
		}
		if err := conn.QueryRow(ctx, rowsSQL).Scan(&rows); err != nil {
			return s, fmt.Errorf("bench: cost: rows: %w", err)
		}
		now := wall.Now()
		if rows != last {
			last, stable = rows, now
		}
		if now.Sub(stable) >= 1500*time.Millisecond || now.After(deadline) {
			s.rows = rows
			break
		}
		t := wall.NewTimer(250 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return s, ctx.Err()
		case <-t.C():
		}
	}
	if err := conn.QueryRow(ctx, `SELECT pg_current_wal_lsn()::text`).Scan(&s.walLSN); err != nil {
		return s, fmt.Errorf("bench: cost: WAL: %w", err)
	}
	var dataDir string
	if err := conn.QueryRow(ctx, `SELECT current_setting('data_directory')`).Scan(&dataDir); err == nil {
		s.dbCPU = postmasterTreeCPU(filepath.Join(dataDir, "postmaster.pid"))
	}
	s.nodeCPU = procCPU("/proc/self/stat", false) // the wait above is not the run's
	return s, nil
}

// Diff is the cost per unit (intent, job) between two samples: CPU,
// bytes and, on PostgreSQL, rows; Commits is -1 and, on SQLite, RowsKind
// "n/a" (neither can be read from outside the store).
func (m Meter) Diff(ctx context.Context, a, b Sample, units int) (Cost, error) {
	n := float64(units)
	out := Cost{NodeCPU: (b.nodeCPU - a.nodeCPU) / time.Duration(units), DBCPU: -1, Commits: -1, Bytes: -1, RowsKind: "n/a"}
	if a.dbCPU >= 0 && b.dbCPU >= 0 {
		out.DBCPU = (b.dbCPU - a.dbCPU) / time.Duration(units)
	}
	if m.PostgresURL == "" {
		out.BytesKind = "written"
		if a.written >= 0 && b.written >= 0 {
			out.Bytes = float64(b.written-a.written) / n
		}
		return out, nil
	}
	out.RowsKind, out.BytesKind = "stats", "WAL"
	out.Rows = float64(b.rows-a.rows) / n
	conn, err := pgx.Connect(ctx, m.PostgresURL)
	if err != nil {
		return out, fmt.Errorf("bench: cost: %w", err)
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	var wal int64
	if err := conn.QueryRow(ctx, `SELECT pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn)::bigint`, b.walLSN, a.walLSN).Scan(&wal); err != nil {
		return out, fmt.Errorf("bench: cost: WAL: %w", err)
	}
	out.Bytes = float64(wal) / n
	return out, nil
}

// clockTick is Linux's USER_HZ: /proc's CPU times count in it.
const clockTick = 10 * time.Millisecond

// procCPU reads utime and stime (and, with children, cutime and cstime)
// from a /proc/<pid>/stat file (0 when it cannot).
func procCPU(path string, children bool) time.Duration {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	// the command, field 2, is in parentheses and may hold spaces
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:])) // f[0] is field 3 (state)
	if len(f) < 15 {
		return 0
	}
	sum := int64(0)
	fields := []int{11, 12} // utime, stime: fields 14 and 15
	if children {
		fields = append(fields, 13, 14) // cutime, cstime
	}
	for _, k := range fields {
		v, err := strconv.ParseInt(f[k], 10, 64)
		if err != nil {
			return 0
		}
		sum += v
	}
	return time.Duration(sum) * clockTick
}

// procPPID reads the parent's pid from a /proc/<pid>/stat file (-1 when
// it cannot).
func procPPID(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return -1
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return -1
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return -1
	}
	p, err := strconv.Atoi(f[1])
	if err != nil {
		return -1
	}
	return p
}

// postmasterTreeCPU is the CPU of a PostgreSQL server on this machine:
// its postmaster's, with the children it has reaped, plus each live
// child's (-1 when the postmaster's pid file or /proc cannot be read: a
// server elsewhere).
func postmasterTreeCPU(pidFile string) time.Duration {
	b, err := os.ReadFile(pidFile)
	if err != nil {
		return -1
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pm, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil {
		return -1
	}
	self := fmt.Sprintf("/proc/%d/stat", pm)
	if _, err := os.Stat(self); err != nil {
		return -1
	}
	total := procCPU(self, true)
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return -1
	}
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat := filepath.Join("/proc", e.Name(), "stat")
		if procPPID(stat) == pm {
			total += procCPU(stat, false)
		}
	}
	return total
}

// procWriteBytes reads write_bytes from a /proc/<pid>/io file (-1 when it
// cannot).
func procWriteBytes(path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "write_bytes:"); ok {
			v, err := strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
			if err != nil {
				return -1
			}
			return v
		}
	}
	return -1
}
