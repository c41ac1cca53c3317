package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"syscall"

	"github.com/ordolabs/ordo/internal/store"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

var _ store.ChainStore = (*Store)(nil)

// chainKey is store_meta's key of the chain identity (migration 0013).
const chainKey = "chain"

// BindChain implements store.ChainStore: in a group's transaction, the
// identity is inserted unless a row is there, then the row is read back;
// the writer is one connection, so the first insert wins.
func (s *Store) BindChain(ctx context.Context, id store.ChainIdentity) error {
	if err := store.CheckChain(id); err != nil {
		return err
	}
	val, err := json.Marshal(id)
	if err != nil {
		return fmt.Errorf("sqlite: bind chain: %w", err)
	}
	var stored string
	if _, err := s.submitReplica(ctx, 1, func(ctx context.Context, _ *request) error {
		if _, err := s.wconn.ExecContext(ctx, `INSERT INTO store_meta (key, value, set_at) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING`,
			chainKey, string(val), s.opts.Now().UnixNano()); err != nil {
			return err
		}
		return s.wconn.QueryRowContext(ctx, `SELECT value FROM store_meta WHERE key = ?`, chainKey).Scan(&stored)
	}); err != nil {
		return fmt.Errorf("sqlite: bind chain: %w", err)
	}
	var got store.ChainIdentity
	if err := json.Unmarshal([]byte(stored), &got); err != nil {
		return fmt.Errorf("sqlite: bind chain: stored identity: %w", err)
	}
	return store.ChainMismatch(got, id)
}

// BoundChain implements store.ChainStore.
func (s *Store) BoundChain(ctx context.Context) (store.ChainIdentity, bool, error) {
	var v string
	err := s.rdb.QueryRowContext(ctx, `SELECT value FROM store_meta WHERE key = ?`, chainKey).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return store.ChainIdentity{}, false, nil
	}
	if err != nil {
		return store.ChainIdentity{}, false, fmt.Errorf("sqlite: bound chain: %w", err)
	}
	var id store.ChainIdentity
	if err := json.Unmarshal([]byte(v), &id); err != nil {
		return store.ChainIdentity{}, false, fmt.Errorf("sqlite: bound chain: %w", err)
	}
	return id, true, nil
}

// storageFull marks err with store.ErrStorageFull when it says the disk
// (or the database's max_page_count) has no room: SQLITE_FULL, or ENOSPC
// from the file system.
func storageFull(err error) error {
	if err == nil || errors.Is(err, store.ErrStorageFull) {
		return err
	}
	var se *msqlite.Error
	if (errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_FULL) || errors.Is(err, syscall.ENOSPC) {
		return fmt.Errorf("%w: %w", store.ErrStorageFull, err)
	}
	return err
}

// SetMaxPages bounds the database file to n pages (SQLite's
// max_page_count on the writer connection; the page size is 4 KiB): a
// write that would grow it past fails with store.ErrStorageFull, as on a
// full disk, and writes nothing. n below the current size means the current
// size; n <= 0 lifts the bound. It returns the bound in force. Tests use it
// to fill the disk and free it again without filling a file system.
func (s *Store) SetMaxPages(ctx context.Context, n int64) (int64, error) {
	if n <= 0 {
		n = 0xfffffffe // SQLite's largest
	}
	var got int64
	if _, err := s.submitReplica(ctx, 1, func(ctx context.Context, _ *request) error {
		return s.wconn.QueryRowContext(ctx, fmt.Sprintf("PRAGMA max_page_count = %d", n)).Scan(&got)
	}); err != nil {
		return 0, fmt.Errorf("sqlite: max pages: %w", err)
	}
	return got, nil
}
