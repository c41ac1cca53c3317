package devchain

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/fslock"
)

// The block log is a file of records, one a line: a genesis record first,
// then blocks, faucet credits and reorgs in the order they happened. A
// restart replays it.
//
// Each record is framed so that a damaged one is found rather than replayed:
//
//	LLLLLLLL CCCCCCCC {json}\n
//
// L is the JSON payload's length in bytes and C its CRC-32C (Castagnoli),
// each 8 lowercase hex digits, then one space; the payload is one JSON
// logRecord (encoding/json never writes a raw newline in it).
//
// At open, a damaged record (incomplete, bad frame, wrong length or
// checksum) with no intact record after it is a torn tail, what a crash in
// the middle of an append leaves: it is truncated and a warning names the
// height kept. A damaged record with an intact one after it is corruption:
// the open fails with a *CorruptLogError naming its offset, rather than
// restart the chain at another height.
//
// A log written before records were framed (JSON lines, the first byte '{')
// is migrated on open: it is replayed as before, then rewritten framed
// (through a temporary file and a rename) before the chain starts.
const logName = "chain.log"

// frameHeader is the length of a record's frame before its payload.
const frameHeader = 18

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrCorruptLog is what a *CorruptLogError wraps: errors.Is(err,
// ErrCorruptLog) tells a damaged chain log from other start failures.
var ErrCorruptLog = errors.New("devchain log is corrupt")

// CorruptLogError is New's error for a chain log with a damaged record that
// intact records follow: not a torn tail a crash can leave, so the chain
// refuses to start rather than drop the blocks after it.
type CorruptLogError struct {
	// Path is the log's path.
	Path string
	// Offset is the damaged record's byte offset in the log.
	Offset int64
	// Reason says what is wrong with the record.
	Reason string
}

// Error names the log, the offset and what to do.
func (e *CorruptLogError) Error() string {
	return fmt.Sprintf("devchain log %s: damaged record at byte %d (%s) with intact records after it; "+
		"the chain will not start at another height: restore the data directory from a backup, "+
		"or remove it to start a new chain", e.Path, e.Offset, e.Reason)
}

// Unwrap returns ErrCorruptLog.
func (e *CorruptLogError) Unwrap() error { return ErrCorruptLog }

type faucetRecord struct {
	Address chain.Address `json:"address"`
	Amount  uint64        `json:"amount"`
}

type logRecord struct {
	Genesis *genesis      `json:"genesis,omitempty"`
	Block   *chain.Block  `json:"block,omitempty"`
	Faucet  *faucetRecord `json:"faucet,omitempty"`
	Reorg   uint64        `json:"reorg,omitempty"`
}

type blockLog struct {
	f    *os.File
	size int64 // bytes of whole records: where the next one goes
	err  error // set when the file may hold a partial record: appends fail
	lock *fslock.Lock
}

// openReport is what opening the log found, for the chain to log once it
// knows its height.
type openReport struct {
	path string
	// torn is set when a torn tail was truncated.
	torn *tornTail
	// migrated is how many records were rewritten from the old format, or
	// -1 when the log was not in the old format.
	migrated int
}

type tornTail struct {
	offset  int64  // where the damaged record started: the log's new size
	dropped int64  // bytes truncated
	reason  string // what was wrong with it
}

// openBlockLog opens (or creates) the log in dir. For an existing log it
// calls replay with its records and returns the stored genesis; for a new one
// it calls replay with g as the genesis record and writes it.
// The directory is locked first: a second devchain on the same directory
// fails at once instead of interleaving its blocks into the log.
func openBlockLog(dir string, g genesis, replay func(logRecord) error) (*blockLog, *genesis, openReport, error) {
	lock, err := fslock.Acquire(dir)
	if err != nil {
		return nil, nil, openReport{}, fmt.Errorf("devchain data dir: %w", err)
	}
	l, stored, rep, err := readBlockLog(dir, g, replay)
	if err != nil {
		return nil, nil, rep, errors.Join(err, lock.Release())
	}
	l.lock = lock
	return l, stored, rep, nil
}

func readBlockLog(dir string, g genesis, replay func(logRecord) error) (*blockLog, *genesis, openReport, error) {
	path := filepath.Join(dir, logName)
	rep := openReport{path: path, migrated: -1}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, rep, fmt.Errorf("devchain log: %w", err)
	}
	var stored *genesis
	apply := func(off int64, rec logRecord) error {
		if stored == nil {
			if rec.Genesis == nil {
				return fmt.Errorf("devchain log %s: first record is not a genesis", path)
			}
			stored = rec.Genesis
		}
		if err := replay(rec); err != nil {
			return fmt.Errorf("devchain log %s at byte %d: %w", path, off, err)
		}
		return nil
	}
	r := bufio.NewReaderSize(f, 1<<20)
	var size int64
	if first, err := r.Peek(1); err == nil && first[0] == '{' {
		var n int
		if f, size, n, rep.torn, err = migrateOldLog(f, r, path, apply); err != nil {
			return nil, nil, rep, err
		}
		rep.migrated = n
	} else {
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, nil, rep, fmt.Errorf("devchain log: %w", err)
		}
		var torn *tornTail
		size, torn, err = readFrames(f, r, st.Size(), path, apply)
		if err != nil {
			f.Close()
			return nil, nil, rep, err
		}
		if torn != nil {
			rep.torn = torn
			if err := f.Truncate(size); err != nil {
				f.Close()
				return nil, nil, rep, fmt.Errorf("devchain log: truncating a torn tail: %w", err)
			}
			if err := f.Sync(); err != nil {
				f.Close()
				return nil, nil, rep, fmt.Errorf("devchain log: %w", err)
			}
		}
	}
	if _, err := f.Seek(size, io.SeekStart); err != nil {
		f.Close()
		return nil, nil, rep, fmt.Errorf("devchain log: %w", err)
	}
	l := &blockLog{f: f, size: size}
	if stored == nil {
		if err := replay(logRecord{Genesis: &g}); err != nil {
			f.Close()
			return nil, nil, rep, err
		}
		if err := l.append(logRecord{Genesis: &g}); err != nil {
			f.Close()
			return nil, nil, rep, err
		}
	}
	return l, stored, rep, nil
}

// readFrames replays the framed records of f, size bytes, read through r
// from its start. It returns the size of the whole records before a torn
// tail (or of the file), and the torn tail if there is one; a damaged record
// that intact ones follow is a *CorruptLogError.
func readFrames(f *os.File, r *bufio.Reader, size int64, path string, apply func(int64, logRecord) error) (int64, *tornTail, error) {
	var off int64
	var buf []byte
	for off < size {
		payload, n, next, reason, err := nextFrame(r, size-off, &buf)
		if err != nil {
			return 0, nil, fmt.Errorf("devchain log: %w", err)
		}
		if reason != "" {
			hint := int64(-1)
			if next > 0 {
				hint = off + next
			}
			found, err := intactAfter(f, off, size, hint)
			if err != nil {
				return 0, nil, fmt.Errorf("devchain log: %w", err)
			}
			if found {
				return 0, nil, &CorruptLogError{Path: path, Offset: off, Reason: reason}
			}
			return off, &tornTail{offset: off, dropped: size - off, reason: reason}, nil
		}
		var rec logRecord
		if err := json.Unmarshal(payload, &rec); err != nil {
			// The checksum holds: this is what was written, not damage.
			return 0, nil, fmt.Errorf("devchain log %s at byte %d: %w", path, off, err)
		}
		if err := apply(off, rec); err != nil {
			return 0, nil, err
		}
		off += n
	}
	return off, nil, nil
}

// nextFrame reads one record from r, which has remaining bytes left. It
// returns the payload and the frame's length, or why the record is damaged
// and, when its header could be read, where it says the next record starts
// (relative to this one). buf is reused between calls.
func nextFrame(r *bufio.Reader, remaining int64, buf *[]byte) (payload []byte, n, next int64, reason string, err error) {
	if remaining < frameHeader+1 {
		return nil, 0, 0, "incomplete record at the end of the file", nil
	}
	hdr, err := r.Peek(frameHeader)
	if err != nil {
		return nil, 0, 0, "", err
	}
	plen, sum, ok := parseHeader(hdr)
	if !ok {
		return nil, 0, 0, "bad record header", nil
	}
	n = frameHeader + int64(plen) + 1
	if n > remaining {
		return nil, 0, 0, "incomplete record at the end of the file", nil
	}
	if cap(*buf) < int(n) {
		*buf = make([]byte, n)
	}
	b := (*buf)[:n]
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, 0, 0, "", err
	}
	if reason := checkBody(b[frameHeader:], sum); reason != "" {
		return nil, 0, n, reason, nil
	}
	return b[frameHeader : n-1], n, 0, "", nil
}

// intactAfter reports whether an intact record starts anywhere in f after
// the damaged one at off: at hint (where the damaged record's header says
// the next starts; -1 for none), or right after any newline.
func intactAfter(f *os.File, off, size, hint int64) (bool, error) {
	if hint > off {
		ok, err := frameAt(f, hint, size)
		if ok || err != nil {
			return ok, err
		}
	}
	br := bufio.NewReaderSize(io.NewSectionReader(f, off, size-off), 1<<16)
	for p := off; ; {
		c, err := br.ReadByte()
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		p++
		if c == '\n' && p != hint && p < size {
			ok, err := frameAt(f, p, size)
			if ok || err != nil {
				return ok, err
			}
		}
	}
}

// frameAt reports whether an intact record starts at off in f, size bytes.
func frameAt(f *os.File, off, size int64) (bool, error) {
	var hdr [frameHeader]byte
	if size-off < frameHeader+1 {
		return false, nil
	}
	if _, err := f.ReadAt(hdr[:], off); err != nil {
		return false, err
	}
	plen, sum, ok := parseHeader(hdr[:])
	if !ok || int64(plen)+1 > size-off-frameHeader {
		return false, nil
	}
	b := make([]byte, int(plen)+1)
	if _, err := f.ReadAt(b, off+frameHeader); err != nil {
		return false, err
	}
	return checkBody(b, sum) == "", nil
}

// frame returns payload framed as one log line.
func frame(payload []byte) []byte {
	b := make([]byte, 0, frameHeader+len(payload)+1)
	b = fmt.Appendf(b, "%08x %08x ", uint32(len(payload)), crc32.Checksum(payload, castagnoli))
	b = append(b, payload...)
	return append(b, '\n')
}

// parseHeader reads a frame header: "LLLLLLLL CCCCCCCC ".
func parseHeader(h []byte) (plen, sum uint32, ok bool) {
	if len(h) < frameHeader || h[8] != ' ' || h[17] != ' ' {
		return 0, 0, false
	}
	plen, ok1 := parseHex32(h[:8])
	sum, ok2 := parseHex32(h[9:17])
	return plen, sum, ok1 && ok2
}

// checkBody checks a record's payload followed by its newline against the
// header's checksum, and returns what is wrong, or "".
func checkBody(b []byte, sum uint32) string {
	if b[len(b)-1] != '\n' {
		return "record does not end where its header says"
	}
	if crc32.Checksum(b[:len(b)-1], castagnoli) != sum {
		return "checksum mismatch"
	}
	return ""
}

// parseHex32 reads 8 lowercase hex digits.
func parseHex32(b []byte) (uint32, bool) {
	var v [4]byte
	for _, c := range b {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return 0, false
		}
	}
	if _, err := hex.Decode(v[:], b); err != nil {
		return 0, false
	}
	return uint32(v[0])<<24 | uint32(v[1])<<16 | uint32(v[2])<<8 | uint32(v[3]), true
}

// migrateOldLog replays a log of unframed JSON lines (the format before
// records carried a checksum) as that format was read: a partial last line
// is a torn write and dropped (and reported). It writes the records framed
// to a temporary file, syncs it and renames it over the log, and returns the
// new log, its size and the number of records.
func migrateOldLog(old *os.File, r *bufio.Reader, path string, apply func(int64, logRecord) error) (*os.File, int64, int, *tornTail, error) {
	tmpPath := path + ".migrating"
	tmp, err := os.OpenFile(tmpPath, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		old.Close()
		return nil, 0, 0, nil, fmt.Errorf("devchain log: migrating the old format: %w", err)
	}
	fail := func(err error) (*os.File, int64, int, *tornTail, error) {
		tmp.Close()
		os.Remove(tmpPath)
		old.Close()
		return nil, 0, 0, nil, err
	}
	var torn *tornTail
	w := bufio.NewWriterSize(tmp, 1<<20)
	var off, size int64
	n := 0
	for {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			if len(line) > 0 { // a partial last line is a torn write: dropped
				torn = &tornTail{offset: off, dropped: int64(len(line)), reason: "incomplete record at the end of the file"}
			}
			break
		}
		if err != nil {
			return fail(fmt.Errorf("devchain log: %w", err))
		}
		var rec logRecord
		if err := json.Unmarshal(bytes.TrimSpace(line), &rec); err != nil {
			return fail(fmt.Errorf("devchain log %s (old format, without checksums) at byte %d: %w", path, off, err))
		}
		if err := apply(off, rec); err != nil {
			return fail(err)
		}
		payload, err := json.Marshal(rec)
		if err != nil {
			return fail(fmt.Errorf("devchain log: %w", err))
		}
		fr := frame(payload)
		if _, err := w.Write(fr); err != nil {
			return fail(fmt.Errorf("devchain log: migrating the old format: %w", err))
		}
		off += int64(len(line))
		size += int64(len(fr))
		n++
	}
	if err := w.Flush(); err != nil {
		return fail(fmt.Errorf("devchain log: migrating the old format: %w", err))
	}
	if err := tmp.Sync(); err != nil {
		return fail(fmt.Errorf("devchain log: migrating the old format: %w", err))
	}
	if err := os.Rename(tmpPath, path); err != nil {
		return fail(fmt.Errorf("devchain log: migrating the old format: %w", err))
	}
	old.Close()
	if err := syncDir(filepath.Dir(path)); err != nil {
		tmp.Close()
		return nil, 0, 0, nil, fmt.Errorf("devchain log: migrating the old format: %w", err)
	}
	return tmp, size, n, torn, nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// append writes one record and syncs it to disk. A failed append leaves no
// partial record behind it (it is cut off); when that cannot be done, or the
// sync failed, every later append fails too, so that no record is ever
// written after a damaged one.
func (l *blockLog) append(rec logRecord) error {
	if l.err != nil {
		return l.err
	}
	payload, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("devchain log: %w", err)
	}
	fr := frame(payload)
	if _, err := l.f.Write(fr); err != nil {
		if terr := l.cutBack(); terr != nil {
			l.err = fmt.Errorf("devchain log: unusable after a failed append: %w", errors.Join(err, terr))
		}
		return fmt.Errorf("devchain log: %w", err)
	}
	if err := l.f.Sync(); err != nil {
		// What reached the disk is unknown: write nothing more.
		l.err = fmt.Errorf("devchain log: unusable after a failed sync: %w", err)
		return l.err
	}
	l.size += int64(len(fr))
	return nil
}

// cutBack truncates the file to its whole records and moves the write
// offset there.
func (l *blockLog) cutBack() error {
	if err := l.f.Truncate(l.size); err != nil {
		return err
	}
	_, err := l.f.Seek(l.size, io.SeekStart)
	return err
}

func (l *blockLog) close() error {
	return errors.Join(l.f.Close(), l.lock.Release())
}

// replay applies one log record to a chain being reopened.
func (c *Chain) replay(rec logRecord) error {
	switch {
	case rec.Genesis != nil:
		c.initGenesis(*rec.Genesis)
	case rec.Block != nil:
		b := rec.Block
		if b.Height != c.head().Height+1 || b.Parent != c.head().Hash {
			return fmt.Errorf("block %d does not follow head %d", b.Height, c.head().Height)
		}
		var undo []kvUndo
		for i := range b.Txs {
			bt := b.Txs[i]
			want, wantReason := bt.Status, bt.Reason
			if bt.Status == chain.OutcomeFailed && bt.Reason != ReasonReverted {
				// A contract's failure: run the contract again, so that its
				// SetAlways writes replay and its reason is checked. Only
				// the revert fault fails a transaction without running it.
				bt.Status, bt.Reason = chain.OutcomeSucceeded, ""
			}
			undo = c.execTx(b, &bt, undo)
			if bt.Status != want || bt.Reason != wantReason {
				return fmt.Errorf("block %d tx %d replays as %s %q, logged %s %q", b.Height, i, bt.Status, bt.Reason, want, wantReason)
			}
		}
		c.blocks = append(c.blocks, b)
		c.undo = append(c.undo, undo)
	case rec.Faucet != nil:
		c.faucetCredit(rec.Faucet.Address, rec.Faucet.Amount)
	case rec.Reorg > 0:
		c.rollback(rec.Reorg)
		c.pool = newMempool() // transactions of replaced blocks: lost with the mempool
	}
	return nil
}

// reportOpen logs what opening the log repaired: a torn tail truncated (with
// the height kept) or an old-format log migrated.
func (c *Chain) reportOpen(rep openReport) {
	hd := c.head().Height
	if t := rep.torn; t != nil {
		c.cfg.Logger.Warn(fmt.Sprintf("devchain log: truncated a torn record at its end (a crash in the middle of an append); keeping height %d", hd),
			"path", rep.path, "height", hd, "offset", t.offset, "droppedBytes", t.dropped, "reason", t.reason)
	}
	if rep.migrated >= 0 {
		c.cfg.Logger.Warn("devchain log: migrated from the old format (records without checksums) to checksummed records",
			"path", rep.path, "records", rep.migrated, "height", hd)
	}
}
