package node

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/ordolabs/ordo/internal/sequencer"
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
	// LeaseTTL is how long a node's leases on a shared PostgreSQL store
	// last unless renewed (every LeaseTTL/3): a node that dies or stalls
	// loses its queues, senders and engines after it. Defaults to 10s.
	LeaseTTL Duration `yaml:"leaseTTL"`
}

// leaseTTL is LeaseTTL with its default.
func (c StoreConfig) leaseTTL() time.Duration {
	if c.LeaseTTL <= 0 {
		return 10 * time.Second
	}
	return time.Duration(c.LeaseTTL)
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

// shared builds the lease keeper of a node on a PostgreSQL store (nil on
// the embedded one, which a node holds alone).
func (n *Node) shared(st Store, senders []sequencer.SenderConfig, o Options) (*leaseKeeper, error) {
	if !n.Config.Store.postgres() {
		return nil, nil
	}
	ls, ok := st.(leaseStore)
	if !ok {
		return nil, errors.New("store: this store keeps no leases, so several nodes cannot share it")
	}
	ids := make([]string, len(senders))
	for i, s := range senders {
		ids[i] = string(s.ID)
	}
	holder, err := dataHolder(n.Config.Data)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return newLeaseKeeper(ls, holder, n.Config.Store.leaseTTL(), ids, o.Clock, n.log), nil
}

// takeLeases takes the node's first leases on a shared store, once Build
// has named its engines (so that the first cycle takes their leases and
// queues too: the sequencer then loads on the leases it keeps).
func (n *Node) takeLeases(ctx context.Context) error {
	k := n.leases
	k.engines = n.engineNames()
	if err := k.start(ctx); err != nil {
		return fmt.Errorf("store: first leases: %w", err)
	}
	h := k.Held()
	n.log.Info("sharing the store: leases taken", "holder", k.holder, "ttl", k.ttl, "queues", len(h.Queues), "senders", len(h.Senders))
	return nil
}

// owner is the sequencer's Owner: the lease keeper on a shared store, nil
// otherwise.
func (n *Node) owner() sequencer.Owner {
	if n.leases == nil {
		return nil
	}
	return n.leases
}

// engineNames are the engines this node runs (on a shared store, under a
// lease each): the processor always, the leader with channels, distseq when
// enabled.
func (n *Node) engineNames() []string {
	names := []string{"processor"}
	if n.Leader != nil {
		names = append(names, "leader")
	}
	if n.Distseq != nil {
		names = append(names, "distseq")
	}
	return names
}

// engine runs an engine: on a shared store only while this node holds its
// lease (leaseKeeper.leased); again, when set, says its Run may run again
// after it returned, and reports whether it has started here.
func (n *Node) engine(name string, again func() bool, run func(context.Context) error) func(context.Context) error {
	if n.leases == nil {
		return run
	}
	return n.leases.leased(name, again, run)
}

// startedOnce is an engine's again: whether its Started channel is closed.
func startedOnce(started <-chan struct{}) func() bool {
	return func() bool {
		select {
		case <-started:
			return true
		default:
			return false
		}
	}
}

// watchIntake hands the sequencer the intake other nodes commit to the
// shared store: a queue this node holds is read again; one nobody holds
// makes the keeper look for work now.
func (n *Node) watchIntake(ctx context.Context) error {
	w, ok := n.store.(store.EnqueueWatcher)
	if !ok {
		n.log.Warn("store: intake by other nodes is not notified here; it is found by the lease cycle")
		<-ctx.Done()
		return nil
	}
	for ctx.Err() == nil {
		// Intake committed before the watch listens (at start, or while
		// it reconnects) is not notified: the queues held with work are
		// read again once it listens.
		rescan := n.leases.clock.NewTimer(time.Second)
		stop := make(chan struct{})
		go func() {
			select {
			case <-ctx.Done():
			case <-stop:
			case <-rescan.C():
				for _, q := range n.leases.activeHeld() {
					n.Sequencer.Notify(q)
				}
			}
		}()
		err := w.WatchEnqueued(ctx, func(queue string) {
			if n.leases.holdsQueue(queue) {
				n.Sequencer.Notify(queue)
			} else {
				n.leases.Poke()
			}
		})
		rescan.Stop()
		close(stop)
		if ctx.Err() != nil {
			return nil
		}
		n.log.Warn("store: watching intake by other nodes failed; watching again", "err", err)
		t := n.leases.clock.NewTimer(time.Second)
		select {
		case <-ctx.Done():
		case <-t.C():
		}
		t.Stop()
	}
	return nil
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
