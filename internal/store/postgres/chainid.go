package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ordolabs/ordo/internal/store"
)

var _ store.ChainStore = (*Store)(nil)

// chainKey is store_meta's key of the chain identity (migration 0013).
const chainKey = "chain"

// BindChain implements store.ChainStore. In the group's transaction
// (READ COMMITTED), the insert waits for another session's uncommitted
// insert of the row and then does nothing; the SELECT after it, a
// statement of its own, sees the row that won.
func (s *Store) BindChain(ctx context.Context, id store.ChainIdentity) error {
	if err := store.CheckChain(id); err != nil {
		return err
	}
	val, err := json.Marshal(id)
	if err != nil {
		return fmt.Errorf("postgres: bind chain: %w", err)
	}
	var stored string
	if err := s.write(ctx, 1, func(ctx context.Context, tx wtx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO store_meta (key, value, set_at) VALUES ($1, $2, $3) ON CONFLICT (key) DO NOTHING`,
			chainKey, string(val), s.opts.Now().UnixNano()); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `SELECT value FROM store_meta WHERE key = $1`, chainKey).Scan(&stored)
	}); err != nil {
		return fmt.Errorf("postgres: bind chain: %w", err)
	}
	var got store.ChainIdentity
	if err := json.Unmarshal([]byte(stored), &got); err != nil {
		return fmt.Errorf("postgres: bind chain: stored identity: %w", err)
	}
	return store.ChainMismatch(got, id)
}

// BoundChain implements store.ChainStore.
func (s *Store) BoundChain(ctx context.Context) (store.ChainIdentity, bool, error) {
	var v string
	err := s.pool.QueryRow(ctx, `SELECT value FROM store_meta WHERE key = $1`, chainKey).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.ChainIdentity{}, false, nil
	}
	if err != nil {
		return store.ChainIdentity{}, false, fmt.Errorf("postgres: bound chain: %w", err)
	}
	var id store.ChainIdentity
	if err := json.Unmarshal([]byte(v), &id); err != nil {
		return store.ChainIdentity{}, false, fmt.Errorf("postgres: bound chain: %w", err)
	}
	return id, true, nil
}

// codeDiskFull is PostgreSQL's SQLSTATE disk_full.
const codeDiskFull = "53100"

// storageFull marks err with store.ErrStorageFull when the server had no
// room for the write (disk_full).
func storageFull(err error) error {
	if err == nil || errors.Is(err, store.ErrStorageFull) {
		return err
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == codeDiskFull {
		return fmt.Errorf("%w: %w", store.ErrStorageFull, err)
	}
	return err
}
