package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	_ "modernc.org/sqlite" // the pure-Go SQLite driver ordo uses, as "sqlite"

	"github.com/ordolabs/ordo/internal/bench/cost"
	"github.com/ordolabs/ordo/internal/clock"
)

// sqliteDurability is what both contenders' SQLite files run with.
const sqliteDurability = "journal_mode=WAL, synchronous=FULL (a file in a temporary directory)"

// noopArgs is the one job kind of the burndown: no arguments, no work.
type noopArgs struct{}

// Kind names the job kind.
func (noopArgs) Kind() string { return "noop" }

// noopWorker does nothing and succeeds.
type noopWorker struct {
	river.WorkerDefaults[noopArgs]
}

// Work returns at once.
func (noopWorker) Work(context.Context, *river.Job[noopArgs]) error { return nil }

// wall is the clock the benchmark times with.
var wall clock.Real

// jobKind is what River's jobs do in one burndown: no-op or the same
// work as ordo's intents (signWorker).
type jobKind struct {
	name string
	add  func(w *river.Workers, o options)
	args func(i int, o options) river.JobArgs
}

// Job kinds of the burndown.
var (
	noopKind = jobKind{name: "no-op",
		add:  func(w *river.Workers, _ options) { river.AddWorker(w, noopWorker{}) },
		args: func(int, options) river.JobArgs { return noopArgs{} }}
	signKind = jobKind{name: "same work",
		add: func(w *river.Workers, o options) { river.AddWorker(w, newSignWorker(o.workers)) },
		args: func(i int, o options) river.JobArgs {
			return signArgs{Queue: fmt.Sprintf("q-%05d", i%o.queues), I: i}
		}}
)

// riverPostgres burns down o.jobs jobs of kind with River on the database
// at url.
func riverPostgres(ctx context.Context, o options, kind jobKind, url string) (figures, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return figures{}, fmt.Errorf("pool config: %w", err)
	}
	if o.riverConns > 0 {
		cfg.MaxConns = int32(o.riverConns)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return figures{}, fmt.Errorf("connect: %w", err)
	}
	defer pool.Close()
	return burndown(ctx, o, kind, cost.Meter{PostgresURL: url}, riverpgxv5.New(pool), func(ctx context.Context) (total, completed int, err error) {
		err = pool.QueryRow(ctx, countSQL).Scan(&total, &completed)
		return total, completed, err
	})
}

// riverSQLite burns down o.jobs jobs of kind with River on a fresh SQLite
// file.
func riverSQLite(ctx context.Context, o options, kind jobKind) (figures, error) {
	dir, err := os.MkdirTemp("", "ordo-peers-river-")
	if err != nil {
		return figures{}, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	dsn := "file:" + filepath.Join(dir, "river.db") +
		"?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=busy_timeout(10000)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return figures{}, fmt.Errorf("open: %w", err)
	}
	defer func() { _ = db.Close() }()
	// riversqlite's advice: one connection, or SQLITE_BUSY errors.
	db.SetMaxOpenConns(1)
	if err := checkSQLite(ctx, db); err != nil {
		return figures{}, err
	}
	return burndown(ctx, o, kind, cost.Meter{}, riversqlite.New(db), func(ctx context.Context) (total, completed int, err error) {
		err = db.QueryRowContext(ctx, countSQL).Scan(&total, &completed)
		return total, completed, err
	})
}

// checkSQLite reads back the pragmas the DSN set.
func checkSQLite(ctx context.Context, db *sql.DB) error {
	var mode string
	var sync int
	if err := db.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil {
		return fmt.Errorf("journal_mode: %w", err)
	}
	if err := db.QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&sync); err != nil {
		return fmt.Errorf("synchronous: %w", err)
	}
	if mode != "wal" || sync != 2 {
		return fmt.Errorf("sqlite: journal_mode %s synchronous %d, want wal and 2 (FULL)", mode, sync)
	}
	return nil
}

// burndown migrates, inserts o.jobs jobs of kind in batches, then works
// them all with one queue of o.workers workers, timing both phases.
//
// The meter reads River's cost per job over both phases: this process's
// CPU (River runs in it), the server's and its WAL on PostgreSQL, the bytes
// written on SQLite.
func burndown[TTx any](ctx context.Context, o options, kind jobKind, meter cost.Meter, driver riverdriver.Driver[TTx], count counter) (figures, error) {
	migrator, err := rivermigrate.New(driver, nil)
	if err != nil {
		return figures{}, fmt.Errorf("migrator: %w", err)
	}
	if _, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return figures{}, fmt.Errorf("migrate: %w", err)
	}
	workers := river.NewWorkers()
	kind.add(workers, o)
	client, err := river.NewClient(driver, &river.Config{
		Queues:        map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: o.workers}},
		Workers:       workers,
		FetchCooldown: o.fetchCooldown,
	})
	if err != nil {
		return figures{}, fmt.Errorf("client: %w", err)
	}

	before, err := meter.Read(ctx)
	if err != nil {
		return figures{}, err
	}
	start := wall.Now()
	params := make([]river.InsertManyParams, 0, o.insertBatch)
	for next := 0; next < o.jobs; next += len(params) {
		params = params[:0]
		for i := next; i < min(o.jobs, next+o.insertBatch); i++ {
			params = append(params, river.InsertManyParams{Args: kind.args(i, o)})
		}
		if _, err := client.InsertManyFast(ctx, params); err != nil {
			return figures{}, fmt.Errorf("insert: %w", err)
		}
	}
	inserted := wall.Now()

	// Every completion is an event once the completer has persisted it;
	// the channel holds them all, so none is dropped.
	events, cancel := client.SubscribeConfig(&river.SubscribeConfig{
		Kinds:    []river.EventKind{river.EventKindJobCompleted},
		ChanSize: o.jobs + 1,
	})
	defer cancel()
	workStart := wall.Now()
	if err := client.Start(ctx); err != nil {
		return figures{}, fmt.Errorf("start: %w", err)
	}
	done := 0
	for done < o.jobs {
		select {
		case ev, ok := <-events:
			if !ok {
				return figures{}, fmt.Errorf("subscription closed after %d of %d completions", done, o.jobs)
			}
			if ev.Kind == river.EventKindJobCompleted {
				done++
			}
		case <-ctx.Done():
			_ = client.StopAndCancel(context.WithoutCancel(ctx))
			return figures{}, fmt.Errorf("after %d of %d completions: %w", done, o.jobs, ctx.Err())
		}
	}
	finished := wall.Now()
	stopCtx, stopCancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer stopCancel()
	if err := client.Stop(stopCtx); err != nil {
		return figures{}, fmt.Errorf("stop: %w", err)
	}
	if err := allCompleted(ctx, count, o.jobs); err != nil {
		return figures{}, err
	}
	after, err := meter.Read(ctx)
	if err != nil {
		return figures{}, err
	}
	c, err := meter.Diff(ctx, before, after, o.jobs)
	if err != nil {
		return figures{}, err
	}
	c.Unit = "job"

	insert, work := inserted.Sub(start), finished.Sub(workStart)
	f := figures{insert: rate(o.jobs, insert), work: rate(o.jobs, work), whole: rate(o.jobs, insert+work)}
	f.detail = fmt.Sprintf("%s, %d jobs: insert %.0f jobs/s (%s), work %.0f jobs/s (%s, %d workers), whole %.0f jobs/s; %s",
		kind.name, o.jobs, f.insert, insert.Round(time.Millisecond), f.work, work.Round(time.Millisecond), o.workers, f.whole, c)
	return f, nil
}

// countSQL counts River's jobs and the completed ones; PostgreSQL and
// SQLite read it alike.
const countSQL = `SELECT count(*), count(*) FILTER (WHERE state = 'completed') FROM river_job`

// counter runs countSQL on the contender's database.
type counter func(ctx context.Context) (total, completed int, err error)

// allCompleted checks that the table holds n jobs, all completed.
func allCompleted(ctx context.Context, count counter, n int) error {
	total, completed, err := count(ctx)
	if err != nil {
		return fmt.Errorf("count: %w", err)
	}
	if total != n || completed != n {
		return fmt.Errorf("%d jobs in river_job, %d completed, want %d and %d", total, completed, n, n)
	}
	return nil
}
