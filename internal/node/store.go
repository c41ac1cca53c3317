package node

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/postgres"
	"github.com/ordolabs/ordo/internal/store/sqlite"
)

// Store is every engine's durable state behind the store seam: the
// embedded SQLite store in the data directory (the default), or a
// PostgreSQL database (store.url).
type Store interface {
	store.Store
	store.ProcessorStore
	store.LeaderStore
	store.DistseqStore
	store.JobStore
	Close() error
}

// StoreConfig chooses the node's store.
type StoreConfig struct {
	// URL is the store: empty (or "sqlite") for the embedded SQLite
	// database <data>/ordo.db, or a PostgreSQL URL (postgres://… or
	// postgresql://…, pgx's connection string: user, password, host,
	// port, database, sslmode, pool_max_conns). Replica sets (replication)
	// need the embedded store: each node keeps its own copy. Defaults to
	// "".
	URL string `yaml:"url"`
}

// ErrStoreURL is a store.url that names no store ordo has.
var ErrStoreURL = errors.New("store.url: expected empty (the embedded SQLite store), \"sqlite\", or a postgres:// or postgresql:// URL")

// postgres reports whether the store is a PostgreSQL database.
func (c StoreConfig) postgres() bool {
	return strings.HasPrefix(c.URL, "postgres://") || strings.HasPrefix(c.URL, "postgresql://")
}

// validate checks the URL's form (not that the database answers).
func (c StoreConfig) validate() error {
	switch {
	case c.URL == "" || c.URL == "sqlite":
		return nil
	case c.postgres():
		if _, err := url.Parse(c.URL); err != nil {
			return fmt.Errorf("%w: %v", ErrStoreURL, redactURLError(err))
		}
		return nil
	}
	return ErrStoreURL
}

// redactURLError drops a URL's password from a parse error's text.
func redactURLError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return "malformed URL"
}

// Redacted is the store's URL without its password, for logs and status.
func (c StoreConfig) Redacted() string {
	if !c.postgres() {
		return "sqlite"
	}
	u, err := url.Parse(c.URL)
	if err != nil {
		return "postgres (malformed URL)"
	}
	return u.Redacted()
}

// openStore opens the configured store, applying its migrations.
func openStore(ctx context.Context, c Config) (Store, error) {
	if c.Store.postgres() {
		st, err := postgres.Open(ctx, c.Store.URL, postgres.Options{})
		if err != nil {
			return nil, fmt.Errorf("store %s: %w", c.Store.Redacted(), err)
		}
		return st, nil
	}
	return sqlite.Open(ctx, filepath.Join(c.Data, "ordo.db"), sqlite.Options{})
}
