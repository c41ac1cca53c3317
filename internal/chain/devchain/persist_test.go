package devchain

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/clock"
)

// logFixture is a chain log with every kind of record, and what a replay of
// each prefix of whole records gives.
type logFixture struct {
	data []byte
	// starts[i] is record i's offset; starts[len(starts)-1] is len(data).
	starts []int64
	// heights[i] is the head height after records 0..i-1 (heights[0] is
	// for no record: a new chain, height 0).
	heights []uint64
	// heads[i] is the head hash after records 0..i-1, "" for genesis.
	heads []chain.Hash
}

func (f logFixture) records() int { return len(f.starts) - 1 }

// newLogFixture runs a durable chain through blocks with transactions, a
// faucet credit and a reorg, closes it and reads its log.
func newLogFixture(t *testing.T) logFixture {
	t.Helper()
	ctx := context.Background()
	clk := clock.NewVirtual(clock.Epoch)
	dir := t.TempDir()
	c, err := New(Config{Clock: clk, DataDir: dir, DevAccounts: 2, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	devs, _ := c.DevAccounts(ctx)
	a := devs[0].Address
	send := func(nonce uint64, method, args string) {
		t.Helper()
		if _, err := c.SendTx(ctx, chain.Tx{From: a, Nonce: nonce, Fee: 1000, Contract: "zkapp", Method: method, Args: json.RawMessage(args), Memo: "m"}); err != nil {
			t.Fatalf("send %s: %v", method, err)
		}
	}
	mine := func() {
		t.Helper()
		clk.Advance(time.Second)
		if _, ok, err := c.Mine(ctx); err != nil || !ok {
			t.Fatalf("Mine: %v %v", ok, err)
		}
	}
	send(0, "deploy", `{"zkapp":"z"}`)
	mine()
	if _, err := c.Faucet(ctx, chain.KeyAddress(chain.KeyFromSeed("persist/stranger")), 5000); err != nil {
		t.Fatal(err)
	}
	send(1, "set", `{"zkapp":"z","key":"a","value":1}`)
	send(2, "set", `{"zkapp":"z","key":"b","value":2}`)
	mine()
	mine()
	if _, err := c.SetFaults(ctx, FaultUpdate{Reorg: ptr(uint64(1))}); err != nil {
		t.Fatal(err)
	}
	send(3, "set", `{"zkapp":"z","key":"c","value":3}`)
	mine()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, logName))
	if err != nil {
		t.Fatal(err)
	}
	f := logFixture{data: data, heights: []uint64{0}, heads: []chain.Hash{""}}
	var stack []chain.BlockHeader
	for off := int64(0); off < int64(len(data)); {
		f.starts = append(f.starts, off)
		end := off + int64(bytes.IndexByte(data[off:], '\n')) + 1
		payload, reason := testParseFrame(data[off:end])
		if reason != "" {
			t.Fatalf("fixture record at %d: %s", off, reason)
		}
		var rec logRecord
		if err := json.Unmarshal(payload, &rec); err != nil {
			t.Fatal(err)
		}
		switch {
		case rec.Block != nil:
			stack = append(stack, rec.Block.BlockHeader)
		case rec.Reorg > 0:
			stack = stack[:len(stack)-int(rec.Reorg)]
		}
		h, hash := uint64(0), chain.Hash("")
		if len(stack) > 0 {
			h, hash = stack[len(stack)-1].Height, stack[len(stack)-1].Hash
		}
		f.heights = append(f.heights, h)
		f.heads = append(f.heads, hash)
		off = end
	}
	f.starts = append(f.starts, int64(len(data)))
	if f.records() != 8 {
		t.Fatalf("fixture has %d records, want 8 (genesis, block, faucet, block, block, reorg, block, block)", f.records())
	}
	return f
}

// testParseFrame checks one whole log line the way the reader does.
func testParseFrame(line []byte) ([]byte, string) {
	plen, sum, ok := parseHeader(line)
	if !ok {
		return nil, "bad header"
	}
	if int(plen)+frameHeader+1 != len(line) {
		return nil, "bad length"
	}
	if r := checkBody(line[frameHeader:], sum); r != "" {
		return nil, r
	}
	return line[frameHeader : len(line)-1], ""
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// openLog writes data as the chain log of a new directory and opens a chain
// on it, with what it logs.
func openLog(t *testing.T, data []byte) (*Chain, string, *bytes.Buffer, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, logName), data, 0o644); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	c, err := New(Config{Clock: clock.NewVirtual(clock.Epoch), DataDir: dir, DevAccounts: 2,
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err == nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, dir, &logs, err
}

// wholeRecords is how many records of f lie entirely below off.
func (f logFixture) wholeRecords(off int64) int {
	n := 0
	for n < f.records() && f.starts[n+1] <= off {
		n++
	}
	return n
}

// checkHead checks that c's head is what records 0..n-1 of f give.
func (f logFixture) checkHead(t *testing.T, c *Chain, n int) {
	t.Helper()
	hd, _ := c.Head(context.Background())
	if hd.Height != f.heights[n] || (f.heads[n] != "" && hd.Hash != f.heads[n]) {
		t.Fatalf("head %d %s, want %d %s (the last whole record)", hd.Height, hd.Hash, f.heights[n], f.heads[n])
	}
}

// checkStillWorks mines on c, reopens its directory and checks that the
// log reads back clean, without a warning.
func checkStillWorks(t *testing.T, c *Chain, dir string) {
	t.Helper()
	ctx := context.Background()
	c.cfg.Clock.(*clock.Virtual).Advance(time.Hour)
	hd, ok, err := c.Mine(ctx)
	if err != nil || !ok {
		t.Fatalf("Mine after the open: %v %v", ok, err)
	}
	c.Close()
	var logs bytes.Buffer
	c2, err := New(Config{Clock: clock.NewVirtual(clock.Epoch), DataDir: dir, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer c2.Close()
	if got, _ := c2.Head(ctx); got != hd {
		t.Fatalf("head after reopen %+v, want %+v", got, hd)
	}
	if logs.Len() != 0 {
		t.Fatalf("reopen logged %s", logs.String())
	}
}

// A crash in the middle of an append leaves part of a record: the start
// truncates it, warns naming the height kept, and the chain goes on from the
// last whole record. A cut on a record boundary is a clean log: no warning.
func TestLogTornTailTruncated(t *testing.T) {
	f := newLogFixture(t)
	type tc struct {
		name string
		cut  int64
	}
	var cases []tc
	for i := range f.records() {
		s, e := f.starts[i], f.starts[i+1]
		cases = append(cases,
			tc{fmt.Sprintf("record %d first byte", i), s + 1},
			tc{fmt.Sprintf("record %d inside header", i), s + frameHeader/2},
			tc{fmt.Sprintf("record %d header only", i), s + frameHeader},
			tc{fmt.Sprintf("record %d mid payload", i), (s + e) / 2},
			tc{fmt.Sprintf("record %d without newline", i), e - 1},
			tc{fmt.Sprintf("record %d boundary", i), e},
		)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ch, dir, logs, err := openLog(t, f.data[:c.cut])
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			n := f.wholeRecords(c.cut)
			f.checkHead(t, ch, n)
			clean := f.starts[n] == c.cut
			if clean {
				if logs.Len() != 0 {
					t.Fatalf("a clean log logged %s", logs)
				}
			} else {
				want := fmt.Sprintf("keeping height %d", f.heights[n])
				if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), want) {
					t.Fatalf("log %q, want a warning with %q", logs, want)
				}
				if n > 0 { // with no whole record, a new genesis is written
					st, _ := os.Stat(filepath.Join(dir, logName))
					if st.Size() != f.starts[n] {
						t.Fatalf("log is %d bytes after the open, want %d", st.Size(), f.starts[n])
					}
				}
			}
			checkStillWorks(t, ch, dir)
		})
	}
}

// A damaged record with intact records after it is not a crash's torn tail:
// the start fails naming its offset, and the log is left as it was.
func TestLogCorruptMiddleRefused(t *testing.T) {
	f := newLogFixture(t)
	last := f.records() - 1
	cases := []struct {
		name   string
		record int
		at     func(s, e int64) int64 // the byte flipped, from the record's bounds
	}{
		{"genesis payload", 0, func(s, e int64) int64 { return s + frameHeader + 3 }},
		{"block payload", 1, func(s, e int64) int64 { return (s + e) / 2 }},
		{"faucet payload", 2, func(s, e int64) int64 { return e - 3 }},
		{"length digit", 3, func(s, e int64) int64 { return s + 7 }},
		{"checksum digit", 4, func(s, e int64) int64 { return s + 12 }},
		{"header space", 5, func(s, e int64) int64 { return s + 8 }},
		{"newline", 3, func(s, e int64) int64 { return e - 1 }},
		{"newline before the last record", last - 1, func(s, e int64) int64 { return e - 1 }},
		{"payload before the last record", last - 1, func(s, e int64) int64 { return s + frameHeader + 1 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, e := f.starts[c.record], f.starts[c.record+1]
			data := bytes.Clone(f.data)
			data[c.at(s, e)] ^= 0x01
			_, dir, _, err := openLog(t, data)
			var ce *CorruptLogError
			if !errors.Is(err, ErrCorruptLog) || !errors.As(err, &ce) {
				t.Fatalf("open: %v, want a *CorruptLogError", err)
			}
			if ce.Offset != s || !strings.Contains(err.Error(), fmt.Sprintf("at byte %d ", s)) {
				t.Fatalf("error %q names offset %d, want %d", err, ce.Offset, s)
			}
			got, _ := os.ReadFile(filepath.Join(dir, logName))
			if !bytes.Equal(got, data) {
				t.Fatalf("a refused log was changed")
			}
		})
	}
}

// Bytes after the last whole record that hold no intact record (garbage,
// half a record, a damaged last record) are a torn tail: truncated with a
// warning.
func TestLogDamagedTailTruncated(t *testing.T) {
	f := newLogFixture(t)
	n := f.records()
	s, e := f.starts[n-1], f.starts[n]
	lastFrame := f.data[s:e]
	flip := func(at int64) []byte {
		d := bytes.Clone(f.data)
		d[at] ^= 0x01
		return d
	}
	cases := []struct {
		name string
		data []byte
		keep int // whole records kept
	}{
		{"garbage appended", append(bytes.Clone(f.data), "garbage"...), n},
		{"garbage lines appended", append(bytes.Clone(f.data), "x\n\n{\"block\":{}}\nzz"...), n},
		{"newlines appended", append(bytes.Clone(f.data), "\n\n\n"...), n},
		{"zero bytes appended", append(bytes.Clone(f.data), make([]byte, 4096)...), n},
		{"half a record appended", append(bytes.Clone(f.data), lastFrame[:len(lastFrame)/2]...), n},
		{"a header appended", append(bytes.Clone(f.data), lastFrame[:frameHeader]...), n},
		{"last record payload flipped", flip((s + e) / 2), n - 1},
		{"last record checksum flipped", flip(s + 10), n - 1},
		{"last record length flipped", flip(s + 7), n - 1},
		{"last record newline flipped", flip(e - 1), n - 1},
		{"last record damaged, garbage after", append(flip(s+frameHeader), "more garbage\n"...), n - 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ch, dir, logs, err := openLog(t, c.data)
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			f.checkHead(t, ch, c.keep)
			want := fmt.Sprintf("keeping height %d", f.heights[c.keep])
			if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), want) {
				t.Fatalf("log %q, want a warning with %q", logs, want)
			}
			got, _ := os.ReadFile(filepath.Join(dir, logName))
			if !bytes.Equal(got, f.data[:f.starts[c.keep]]) {
				t.Fatalf("log after the open is %d bytes, want the %d of its whole records", len(got), f.starts[c.keep])
			}
			checkStillWorks(t, ch, dir)
		})
	}
}

// A log from before records were framed (JSON lines) is migrated on open:
// the same chain, the log rewritten framed, a warning saying so.
func TestLogOldFormatMigrated(t *testing.T) {
	f := newLogFixture(t)
	var old []byte
	for i := range f.records() {
		payload, _ := testParseFrame(f.data[f.starts[i]:f.starts[i+1]])
		old = append(append(old, payload...), '\n')
	}
	cases := []struct {
		name string
		data []byte
		torn bool
	}{
		{"whole", old, false},
		{"partial last line", append(bytes.Clone(old), `{"block":{"hei`...), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ch, dir, logs, err := openLog(t, c.data)
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			f.checkHead(t, ch, f.records())
			if !strings.Contains(logs.String(), "migrated from the old format") {
				t.Fatalf("log %q, want the migration reported", logs)
			}
			if got := strings.Contains(logs.String(), "torn record"); got != c.torn {
				t.Fatalf("torn tail reported: %v, want %v (%s)", got, c.torn, logs)
			}
			got, _ := os.ReadFile(filepath.Join(dir, logName))
			if !bytes.Equal(got, f.data) {
				t.Fatalf("migrated log differs from the framed one:\n%s\nwant\n%s", got, f.data)
			}
			if _, err := os.Stat(filepath.Join(dir, logName+".migrating")); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("temporary file left behind: %v", err)
			}
			checkStillWorks(t, ch, dir)
		})
	}
	t.Run("corrupt old line", func(t *testing.T) {
		data := bytes.Replace(bytes.Clone(old), []byte(`"faucet"`), []byte(`"fau"cet"`), 1)
		if _, _, _, err := openLog(t, data); err == nil || !strings.Contains(err.Error(), "old format") {
			t.Fatalf("open: %v, want an error about the old format", err)
		}
	})
}

// An append that fails leaves no partial record: the next append starts on
// a record boundary, so one failed write cannot turn into corruption in the
// middle of the log.
func TestLogFailedAppendLeavesNoPartialRecord(t *testing.T) {
	dir := t.TempDir()
	c, err := New(Config{Clock: clock.NewVirtual(clock.Epoch), DataDir: dir, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	size := c.log.size
	// A partial record written after the last whole one, as a failed write
	// can leave: cutBack removes it.
	if _, err := c.log.f.Write([]byte("0000ffff 12345678 {\"blo")); err != nil {
		t.Fatal(err)
	}
	if err := c.log.cutBack(); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(filepath.Join(dir, logName)); st.Size() != size {
		t.Fatalf("log is %d bytes after cutBack, want %d", st.Size(), size)
	}
	// A log whose sync failed refuses every later append.
	c.log.err = errors.New("sync failed")
	if _, _, err := c.Mine(context.Background()); err == nil {
		t.Fatal("Mine on a broken log succeeded")
	}
}
