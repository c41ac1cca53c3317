package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// options are the command's flags.
type options struct {
	jobs        int
	queues      int
	workers     int
	insertBatch int
	stores      string
	postgres    string // an existing server's admin URL, or "" for a throwaway cluster
	ordoBin     string // a built ordo binary, or "" to build one
	timeout     time.Duration
	// fetchCooldown is River's FetchCooldown (0: River's default, 100ms).
	fetchCooldown time.Duration
	// riverConns is the size of River's pgx pool (0: pgxpool's default,
	// max(4, GOMAXPROCS)).
	riverConns int
}

func main() {
	var o options
	flag.IntVar(&o.jobs, "jobs", 100_000, "jobs (River) and intents (ordo) to burn down, per store")
	flag.IntVar(&o.queues, "queues", 1000, "ordo's queues (--queues of ordo bench burndown); River runs one queue")
	flag.IntVar(&o.workers, "workers", 2000, "River's MaxWorkers")
	flag.IntVar(&o.insertBatch, "insert-batch", 1000, "River: jobs per InsertManyFast call")
	flag.StringVar(&o.stores, "stores", "postgres,sqlite", "stores to run, comma-separated: postgres, sqlite")
	flag.StringVar(&o.postgres, "postgres", "", "an existing PostgreSQL server's URL (needs CREATEDB) instead of a throwaway cluster")
	flag.StringVar(&o.ordoBin, "ordo", "", "an ordo binary to run instead of building one from the repository")
	flag.DurationVar(&o.timeout, "timeout", 30*time.Minute, "the whole run's limit")
	flag.DurationVar(&o.fetchCooldown, "fetch-cooldown", 0, "River's FetchCooldown (0: River's default, 100ms)")
	flag.IntVar(&o.riverConns, "river-conns", 0, "River's pgx pool size on PostgreSQL (0: pgxpool's default, max(4, CPUs))")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "peers:", err)
		os.Exit(1)
	}
}

// figures is one contender's burndown on one store.
type figures struct {
	insert, work, whole float64 // per second
	detail              string  // the contender's own line
}

func run(o options) error {
	if o.jobs < 1 || o.workers < 1 || o.insertBatch < 1 || o.queues < 1 {
		return errors.New("--jobs, --queues, --workers and --insert-batch must be at least 1")
	}
	stores := map[string]bool{}
	for s := range strings.SplitSeq(o.stores, ",") {
		switch s = strings.TrimSpace(s); s {
		case "postgres", "sqlite":
			stores[s] = true
		default:
			return fmt.Errorf("--stores: unknown store %q", s)
		}
	}
	loadStart := loadAverage()
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	ctx, stopSignals := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stopSignals()

	bin := o.ordoBin
	if bin == "" {
		dir, err := os.MkdirTemp("", "ordo-peers-bin-")
		if err != nil {
			return err
		}
		defer func() { _ = os.RemoveAll(dir) }()
		if bin, err = buildOrdo(ctx, dir); err != nil {
			return err
		}
	}

	cooldown, conns := "100ms (River's default)", "pgxpool's default"
	if o.fetchCooldown > 0 {
		cooldown = o.fetchCooldown.String()
	}
	if o.riverConns > 0 {
		conns = strconv.Itoa(o.riverConns)
	}
	settings := []string{fmt.Sprintf("N %d, ordo queues %d, River workers %d (one queue, InsertManyFast batches of %d, FetchCooldown %s, pool %s), GOMAXPROCS %d",
		o.jobs, o.queues, o.workers, o.insertBatch, cooldown, conns, runtime.GOMAXPROCS(0))}
	var lines []string
	if stores["postgres"] {
		srv, err := startServer(ctx, o.postgres)
		if err != nil {
			return err
		}
		line, durability, err := runPostgres(ctx, o, srv, bin)
		srv.close()
		if err != nil {
			return err
		}
		lines = append(lines, line)
		settings = append(settings, durability)
	}
	if stores["sqlite"] {
		line, durability, err := runSQLite(ctx, o, bin)
		if err != nil {
			return err
		}
		lines = append(lines, line)
		settings = append(settings, durability)
	}
	for _, l := range lines {
		fmt.Println(l)
	}
	fmt.Println("peers settings: " + strings.Join(settings, "; ") + "; load average at start " + loadStart + ", at end " + loadAverage())
	return nil
}

// runPostgres runs River then ordo on fresh databases of srv.
func runPostgres(ctx context.Context, o options, srv *server, bin string) (line, durability string, err error) {
	durability, err = srv.durability(ctx)
	if err != nil {
		return "", "", err
	}
	riverURL, dropRiver, err := srv.createDB(ctx, "peers_river")
	if err != nil {
		return "", "", err
	}
	river, err := riverPostgres(ctx, o, noopKind, riverURL)
	dropRiver()
	if err != nil {
		return "", "", fmt.Errorf("river on postgres: %w", err)
	}
	fmt.Println("river postgres: " + river.detail)
	sameURL, dropSame, err := srv.createDB(ctx, "peers_river_sign")
	if err != nil {
		return "", "", err
	}
	same, err := riverPostgres(ctx, o, signKind, sameURL)
	dropSame()
	if err != nil {
		return "", "", fmt.Errorf("river (same work) on postgres: %w", err)
	}
	fmt.Println("river postgres: " + same.detail)
	ordoURL, dropOrdo, err := srv.createDB(ctx, "peers_ordo")
	if err != nil {
		return "", "", err
	}
	ordo, err := ordoBurndown(ctx, bin, o, "postgres", ordoURL)
	dropOrdo()
	if err != nil {
		return "", "", fmt.Errorf("ordo on postgres: %w", err)
	}
	fmt.Println("ordo postgres: " + ordo.detail)
	return compare("postgres", ordo, same, river), durability, nil
}

// runSQLite runs River then ordo, each on a file database of its own in a
// temporary directory.
func runSQLite(ctx context.Context, o options, bin string) (line, durability string, err error) {
	river, err := riverSQLite(ctx, o, noopKind)
	if err != nil {
		return "", "", fmt.Errorf("river on sqlite: %w", err)
	}
	fmt.Println("river sqlite: " + river.detail)
	same, err := riverSQLite(ctx, o, signKind)
	if err != nil {
		return "", "", fmt.Errorf("river (same work) on sqlite: %w", err)
	}
	fmt.Println("river sqlite: " + same.detail)
	ordo, err := ordoBurndown(ctx, bin, o, "sqlite", "")
	if err != nil {
		return "", "", fmt.Errorf("ordo on sqlite: %w", err)
	}
	fmt.Println("ordo sqlite: " + ordo.detail)
	return compare("sqlite", ordo, same, river), "sqlite: " + sqliteDurability, nil
}

// compare is a store's summary line: ordo against River doing the same
// work per job (the headline), then against River's no-op jobs.
func compare(store string, ordo, same, noop figures) string {
	return fmt.Sprintf("peers %s: ordo %.0f intents/s; river same work %.0f jobs/s, ordo/river %.2f×; river no-op %.0f jobs/s, ordo/river %.2f×",
		store, ordo.whole, same.whole, ordo.whole/same.whole, noop.whole, ordo.whole/noop.whole)
}

// rate is n per d, per second.
func rate(n int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// loadAverage is /proc/loadavg's first three fields, or "unknown".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
