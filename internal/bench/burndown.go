package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ordolabs/ordo/internal/bench/cost"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/postgres"
	"github.com/ordolabs/ordo/internal/store/sqlite"
	"github.com/ordolabs/ordo/internal/testkit/pgcluster"
)

// Stores the burndown runs on.
const (
	StoreSQLite   = "sqlite"
	StorePostgres = "postgres"
)

// BurndownOptions sets the burndown benchmark.
type BurndownOptions struct {
	// Store is StoreSQLite (default) or StorePostgres.
	Store string
	// Intents is N, the intents inserted then worked. Defaults to 100,000.
	Intents int
	// Queues is Q, the queues the intents spread over (round robin).
	// Defaults to 1,000.
	Queues int
	// Senders defaults to Queues: every queue can have its transaction in
	// flight at once.
	Senders int
	// Batch is how many intents one Submit carries. Defaults to 1,000.
	Batch int
	// Postgres is the URL of an empty database to use with StorePostgres;
	// empty starts a throwaway cluster (pgcluster.Start), removed after.
	Postgres string
	// Dir holds the SQLite database. Defaults to a temporary directory,
	// removed after.
	Dir string
	// Workers is the node's effect workers. Defaults to the node's default.
	Workers int
	// InFlight is how many transactions of a queue may be in flight at
	// once, nonce-ordered on one sender (the sequencer's Pipelines).
	// Defaults to 1.
	InFlight int
	// Nodes is how many nodes work the intents (StorePostgres only),
	// each with its own store (its own connections and committer) on the
	// one database: node w of Nodes processes the queues and uses the
	// senders whose index is w modulo Nodes, as nodes sharing a database
	// do with their leases. Defaults to 1.
	Nodes int
	// Progress, when set, receives a line now and then.
	Progress io.Writer
	// wrap, when set (tests), wraps the store the nodes use.
	wrap func(store.Store) store.Store
}

// BurndownResult is what the burndown measured.
type BurndownResult struct {
	Opts BurndownOptions
	// Insert, Work and Whole are intents/s over the insert phase, the work
	// phase and both.
	Insert, Work, Whole float64
	InsertTime          time.Duration
	WorkTime            time.Duration
	Blocks              int // blocks the chain made
	Failed              int
	// Durability names the store's durability settings, as read from it.
	Durability string
	PeakRSS    uint64
	// Cost is what the run spent per intent (CPU, commits, rows, bytes).
	Cost cost.Cost
	// GOMAXPROCS is the run's.
	GOMAXPROCS int
}

// Scaling is the line that compares burndowns run at different
// GOMAXPROCS or with different numbers of nodes: each one's whole
// intents/s and its ratio to the first's.
func Scaling(rs []BurndownResult) string {
	nodes := false
	for _, r := range rs {
		nodes = nodes || r.Opts.Nodes != rs[0].Opts.Nodes
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		label := fmt.Sprintf("GOMAXPROCS %d", r.GOMAXPROCS)
		if nodes {
			label += fmt.Sprintf(", %d node%s", r.Opts.Nodes, map[bool]string{true: "s"}[r.Opts.Nodes > 1])
		}
		parts[i] = fmt.Sprintf("%s: %.0f intents/s (%.2f×)", label, r.Whole, r.Whole/rs[0].Whole)
	}
	return "burndown scaling: " + strings.Join(parts, "; ")
}

// String is the benchmark's one line of figures.
func (r BurndownResult) String() string {
	return fmt.Sprintf("burndown: store=%s N=%d Q=%d S=%d batch=%d in-flight=%d nodes=%d GOMAXPROCS=%d: insert %.0f intents/s (%s), work %.0f intents/s (%s, %d blocks), whole %.0f intents/s, failed %d, durability %s, peak RSS %s; %s",
		r.Opts.Store, r.Opts.Intents, r.Opts.Queues, r.Opts.Senders, r.Opts.Batch, max(r.Opts.InFlight, 1), r.Opts.Nodes, r.GOMAXPROCS, r.Insert, r.InsertTime.Round(time.Millisecond),
		r.Work, r.WorkTime.Round(time.Millisecond), r.Blocks, r.Whole, r.Failed, r.Durability, MiB(r.PeakRSS), r.Cost)
}

func (o *BurndownOptions) setDefaults() error {
	if o.Store == "" {
		o.Store = StoreSQLite
	}
	if o.Store != StoreSQLite && o.Store != StorePostgres {
		return fmt.Errorf("bench: store %q: want %s or %s", o.Store, StoreSQLite, StorePostgres)
	}
	o.Intents = cmpInt(o.Intents, 100_000)
	o.Queues = cmpInt(o.Queues, 1000)
	o.Senders = cmpInt(o.Senders, o.Queues)
	o.Batch = cmpInt(o.Batch, 1000)
	o.Nodes = cmpInt(o.Nodes, 1)
	if o.Nodes > 1 && o.Store != StorePostgres {
		return fmt.Errorf("bench: %d nodes: several nodes share a database on %s only", o.Nodes, StorePostgres)
	}
	return nil
}

// ErrNotEmpty is returned by Burndown and Recovery on a store that already
// holds transactions: their intents' idempotency keys would meet the
// earlier run's, and the earlier records would be counted.
var ErrNotEmpty = errors.New("bench: the store is not empty")

// requireEmpty returns ErrNotEmpty, naming what st holds, unless it holds no
// transaction.
func requireEmpty(ctx context.Context, st store.Store, bench string) error {
	counts, err := st.CountByState(ctx)
	if err != nil {
		return fmt.Errorf("bench: %s: %w", bench, err)
	}
	for _, s := range []store.TxState{store.Waiting, store.Revision, store.Retry, store.Done, store.Failed} {
		if n := counts[s]; n != 0 {
			return fmt.Errorf("%w: %s needs an empty database, and this one holds %d %s transactions (give it a new --dir or --postgres database)", ErrNotEmpty, bench, n, s)
		}
	}
	return nil
}

// Burndown measures the engine alone: no HTTP, no real chain. Insert
// phase: Intents intents over Queues queues go through the sequencer's
// intake (Node.Submit: the checks, the ids and Store.Enqueue, as the API's
// array form calls it), Batch a call, one call after the other. Work
// phase: a node started on that store (as after a restart, so loading the
// WAITING intents is part of the work) runs them all to DONE with its real
// driver (Node.Run, its pool of effect workers), a no-op Builder
// dispatcher, keystore senders, and instantChain: every transaction sent is
// included in the next block, one confirmation.
func Burndown(ctx context.Context, o BurndownOptions) (res BurndownResult, err error) {
	if err := o.setDefaults(); err != nil {
		return BurndownResult{Opts: o}, err
	}
	res.Opts, res.GOMAXPROCS = o, runtime.GOMAXPROCS(0)
	st, durability, pgURL, closeStore, err := openBurndownStore(ctx, o)
	if err != nil {
		return res, err
	}
	defer func() { err = errors.Join(err, closeStore()) }()
	if err := requireEmpty(ctx, st, "burndown"); err != nil {
		return res, err
	}
	res.Durability = durability
	if o.wrap != nil {
		st = o.wrap(st)
	}
	counted, nodeStore := counting(st)
	meter := cost.Meter{PostgresURL: pgURL}
	before, err := meter.Read(ctx)
	if err != nil {
		return res, err
	}

	ch := newInstantChain()
	senders := keystoreSenders("burndown-sender", o.Senders)
	var finished, failed atomic.Int64
	allDone := make(chan struct{})
	newNode := func(st store.Store, owner sequencer.Owner) (*sequencer.Node, error) {
		return sequencer.NewNode(sequencer.Config{Store: st, Chain: ch, Clock: wall, Owner: owner,
			Dispatchers: map[string]sequencer.Dispatcher{burndownType: noopDispatcher{}},
			Senders:     senders, Workers: o.Workers, Logger: slog.New(slog.DiscardHandler), Pipelines: o.pipelines(),
			OnFinish: func(_ string, s store.TxState, _ uint64) {
				if s == store.Failed {
					failed.Add(1)
				}
				if finished.Add(1) == int64(o.Intents) {
					close(allDone)
				}
			}})
	}

	// Insert: the intake of a node that is not running (its loop would
	// take the intents as they commit).
	intake, err := newNode(nodeStore, nil)
	if err != nil {
		return res, err
	}
	batch := make([]sequencer.Intake, 0, o.Batch)
	start := wall.Now()
	for i := 0; i < o.Intents; {
		batch = batch[:0]
		for ; i < o.Intents && len(batch) < o.Batch; i++ {
			batch = append(batch, sequencer.Intake{Queue: burndownQueue(i % o.Queues), Type: burndownType,
				Data: []byte(fmt.Sprintf(`{"i":%d}`, i)), IdempotencyKey: fmt.Sprintf("burndown-%d", i)})
		}
		if _, err := intake.Submit(ctx, batch); err != nil {
			return res, fmt.Errorf("bench: insert: %w", err)
		}
	}
	res.InsertTime = wall.Now().Sub(start)
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, "inserted %d in %s\n", o.Intents, res.InsertTime.Round(time.Millisecond))
	}

	// Work: the nodes on the store, run until every intent has ended.
	nodes := make([]*sequencer.Node, o.Nodes)
	for w := range nodes {
		st, owner := nodeStore, sequencer.Owner(nil)
		if o.Nodes > 1 {
			var closeAlso func() error
			if st, closeAlso, err = openAlso(ctx, counted, pgURL, o.wrap); err != nil {
				return res, err
			}
			defer func() { err = errors.Join(err, closeAlso()) }()
			owner = splitOwner(w, o.Nodes, o.Queues, senders)
		}
		if nodes[w], err = newNode(st, owner); err != nil {
			return res, err
		}
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer func() { // the nodes stop before the stores close, on every return
		cancel()
		for _, n := range nodes {
			<-n.Stopped()
		}
	}()
	stopped := make(chan error, len(nodes))
	workStart := wall.Now()
	for _, n := range nodes {
		go func() {
			_ = n.Run(runCtx)
			stopped <- n.Err()
		}()
	}
	last := workStart
	for done := false; !done; {
		t := wall.NewTimer(100 * time.Millisecond)
		select {
		case <-allDone:
			done = true
		case err := <-stopped:
			t.Stop()
			return res, fmt.Errorf("bench: node stopped: %w", err)
		case <-ctx.Done():
			t.Stop()
			return res, ctx.Err()
		case <-t.C():
			if o.Progress != nil && wall.Now().Sub(last) > 2*time.Second {
				fmt.Fprintf(o.Progress, "finished %d/%d\n", finished.Load(), o.Intents)
				last = wall.Now()
			}
		}
		t.Stop()
	}
	res.WorkTime = wall.Now().Sub(workStart)
	res.Insert = float64(o.Intents) / res.InsertTime.Seconds()
	res.Work = float64(o.Intents) / res.WorkTime.Seconds()
	res.Whole = float64(o.Intents) / (res.InsertTime + res.WorkTime).Seconds()
	res.Failed = int(failed.Load())
	ch.mu.Lock()
	res.Blocks = len(ch.blocks)
	ch.mu.Unlock()
	res.PeakRSS = PeakRSS()
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, "work: %s\n", counted)
	}
	after, err := meter.Read(ctx)
	if err != nil {
		return res, err
	}
	res.Cost, err = burndownCost(ctx, meter, before, after, counted, o.Intents)
	return res, err
}

// openBurndownStore opens the store o names and says its durability, and
// PostgreSQL's URL ("" for SQLite).
func openBurndownStore(ctx context.Context, o BurndownOptions) (st store.Store, durability, pgURL string, closeFn func() error, err error) {
	if o.Store == StoreSQLite {
		dir, rm := o.Dir, func() error { return nil }
		if dir == "" {
			if dir, err = os.MkdirTemp("", "ordo-burndown-"); err != nil {
				return nil, "", "", nil, err
			}
			rm = func() error { return os.RemoveAll(dir) }
		}
		s, err := sqlite.Open(ctx, filepath.Join(dir, "ordo.db"), sqlite.Options{Synchronous: sqlite.SyncFull})
		if err != nil {
			return nil, "", "", nil, errors.Join(err, rm())
		}
		return s, "synchronous=" + sqlite.SyncFull, "", func() error { return errors.Join(s.Close(), rm()) }, nil
	}
	url, stop := o.Postgres, func() error { return nil }
	if url == "" {
		if url, stop, err = pgcluster.Start(ctx); err != nil {
			return nil, "", "", nil, err
		}
	}
	durability, err = postgresDurability(ctx, url)
	if err != nil {
		return nil, "", "", nil, errors.Join(err, stop())
	}
	s, err := postgres.Open(ctx, url, postgres.Options{})
	if err != nil {
		return nil, "", "", nil, errors.Join(err, stop())
	}
	return s, durability, url, func() error { return errors.Join(s.Close(), stop()) }, nil
}

// postgresDurability reads the server's synchronous_commit and fsync.
func postgresDurability(ctx context.Context, url string) (string, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return "", fmt.Errorf("bench: postgres: %w", err)
	}
	defer func() { _ = conn.Close(context.Background()) }()
	var sc, fs string
	if err := conn.QueryRow(ctx, `SELECT current_setting('synchronous_commit'), current_setting('fsync')`).Scan(&sc, &fs); err != nil {
		return "", fmt.Errorf("bench: postgres settings: %w", err)
	}
	return "synchronous_commit=" + sc + " fsync=" + fs, nil
}

// pipelines is the sequencer's pipeline rule for InFlight (none for 1).
func (o BurndownOptions) pipelines() []sequencer.Pipeline {
	if o.InFlight < 2 {
		return nil
	}
	return []sequencer.Pipeline{{Prefix: "", InFlight: o.InFlight}}
}

// burndownCost is the burndown's cost per intent: the meter's Diff, with
// the work phase's commits counted by c and, on SQLite, its rows (those
// of its batches, and intake's one transaction row an intent).
func burndownCost(ctx context.Context, m cost.Meter, a, b cost.Sample, c *countingStore, intents int) (cost.Cost, error) {
	out, err := m.Diff(ctx, a, b, intents)
	n := float64(intents)
	out.Commits = float64(c.applies.Load()) / n
	if m.PostgresURL == "" {
		out.RowsKind = "batches"
		out.Rows = float64(c.txs.Load()+c.attempts.Load()+c.queues.Load()+c.senders.Load()+c.history.Load())/n + 1
	}
	return out, err
}

// burndownQueue names the burndown's queue i.
func burndownQueue(i int) string { return fmt.Sprintf("q-%05d", i) }

// openAlso opens a store of its own on the burndown's database for one of
// several nodes, counted with c.
func openAlso(ctx context.Context, c *countingStore, url string, wrap func(store.Store) store.Store) (store.Store, func() error, error) {
	s, err := postgres.Open(ctx, url, postgres.Options{})
	if err != nil {
		return nil, nil, fmt.Errorf("bench: a node's store: %w", err)
	}
	var st store.Store = s
	if wrap != nil {
		st = wrap(st)
	}
	return c.also(st), s.Close, nil
}

// ownerOf is the Owner of a node that holds its queues and senders for
// good: no lease, no fence (the nodes of one burndown never overlap).
type ownerOf sequencer.Held

// splitOwner gives node w of k the queues and senders whose index is w
// modulo k.
func splitOwner(w, k, queues int, senders []sequencer.SenderConfig) ownerOf {
	h := ownerOf{Queues: map[string]bool{}, Senders: map[string]bool{}}
	for i := w; i < queues; i += k {
		h.Queues[burndownQueue(i)] = true
	}
	for i := w; i < len(senders); i += k {
		h.Senders[string(senders[i].ID)] = true
	}
	return h
}

// Held implements sequencer.Owner.
func (o ownerOf) Held() sequencer.Held { return sequencer.Held(o) }

// Changed implements sequencer.Owner: never.
func (ownerOf) Changed() <-chan struct{} { return nil }

// Until implements sequencer.Owner: the leases never lapse.
func (ownerOf) Until(uint64) time.Time { return time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC) }
