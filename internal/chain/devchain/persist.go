package devchain

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/fslock"
)

// The block log is a file of JSON lines: a genesis record first, then blocks,
// faucet credits and reorgs in the order they happened. A restart replays it.
const logName = "chain.log"

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
	w    *bufio.Writer
	lock *fslock.Lock
}

// openBlockLog opens (or creates) the log in dir. For an existing log it
// calls replay with its records and returns the stored genesis; for a new one
// it calls replay with g as the genesis record and writes it.
// The directory is locked first: a second devchain on the same directory
// fails at once instead of interleaving its blocks into the log.
func openBlockLog(dir string, g genesis, replay func(logRecord) error) (*blockLog, *genesis, error) {
	lock, err := fslock.Acquire(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("devchain data dir: %w", err)
	}
	l, stored, err := readBlockLog(dir, g, replay)
	if err != nil {
		lock.Release()
		return nil, nil, err
	}
	l.lock = lock
	return l, stored, nil
}

func readBlockLog(dir string, g genesis, replay func(logRecord) error) (*blockLog, *genesis, error) {
	path := filepath.Join(dir, logName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("devchain log: %w", err)
	}
	var stored *genesis
	r := bufio.NewReaderSize(f, 1<<20)
	var good int64
	for {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			break // a partial last line is a torn write: dropped below
		}
		if err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("devchain log: %w", err)
		}
		var rec logRecord
		if err := json.Unmarshal(bytes.TrimSpace(line), &rec); err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("devchain log %s at byte %d: %w", path, good, err)
		}
		if stored == nil {
			if rec.Genesis == nil {
				f.Close()
				return nil, nil, fmt.Errorf("devchain log %s: first record is not a genesis", path)
			}
			stored = rec.Genesis
		}
		if err := replay(rec); err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("devchain log %s at byte %d: %w", path, good, err)
		}
		good += int64(len(line))
	}
	if err := f.Truncate(good); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("devchain log: %w", err)
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("devchain log: %w", err)
	}
	l := &blockLog{f: f, w: bufio.NewWriterSize(f, 1<<16)}
	if stored == nil {
		if err := replay(logRecord{Genesis: &g}); err != nil {
			f.Close()
			return nil, nil, err
		}
		if err := l.append(logRecord{Genesis: &g}); err != nil {
			f.Close()
			return nil, nil, err
		}
	}
	return l, stored, nil
}

// append writes one record and syncs it to disk.
func (l *blockLog) append(rec logRecord) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("devchain log: %w", err)
	}
	l.w.Write(b)
	l.w.WriteByte('\n')
	if err := l.w.Flush(); err != nil {
		return fmt.Errorf("devchain log: %w", err)
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("devchain log: %w", err)
	}
	return nil
}

func (l *blockLog) close() error {
	err := l.f.Close()
	l.lock.Release()
	return err
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
			undo = c.execTx(b, &bt, undo)
			if bt.Status != want || bt.Reason != wantReason {
				return fmt.Errorf("block %d tx %d replays as %s %q, logged %s %q", b.Height, i, bt.Status, bt.Reason, want, wantReason)
			}
		}
		c.blocks = append(c.blocks, b)
		c.undo = append(c.undo, undo)
	case rec.Faucet != nil:
		c.credit(rec.Faucet.Address, rec.Faucet.Amount)
	case rec.Reorg > 0:
		c.rollback(rec.Reorg)
		c.pool = newMempool() // transactions of replaced blocks: lost with the mempool
	}
	return nil
}
