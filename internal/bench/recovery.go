package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit/pgcluster"
)

// Issue 31's targets for the recovery benchmark (issue 13's were 10 s
// and 1 GiB).
const (
	RecoveryFirstDispatchTarget = 2 * time.Second
	RecoveryPeakRSSTarget       = 512 << 20
)

// RecoveryOptions sets the recovery benchmark.
type RecoveryOptions struct {
	// Store is StoreSQLite (default) or StorePostgres.
	Store string
	// Intents is N, the WAITING intents in the store at the restart.
	// Defaults to 1,000,000.
	Intents int
	// Queues is Q, the queues they spread over (round robin, so each queue's
	// intents are interleaved with the others' in Seq). Defaults to 100,000.
	Queues int
	// Senders is the restarted node's senders. Defaults to 1,000.
	Senders int
	// DataBytes is the size of each intent's JSON data. Defaults to 100.
	DataBytes int
	// Batch is how many intents one Store.Enqueue of the fill carries.
	// Defaults to 10,000.
	Batch int
	// Postgres is the URL of an empty database for StorePostgres; empty
	// starts a throwaway cluster, removed after.
	Postgres string
	// Dir holds the SQLite database. Defaults to a temporary directory,
	// removed after.
	Dir string
	// Workers is the restarted node's effect workers (default: the node's).
	Workers int
	// Timeout bounds the wait, in the restarted process, for every queue to
	// have dispatched once. Defaults to 5 minutes.
	Timeout time.Duration
	// MemProfile and CPUProfile, when set, are files the restarted process
	// writes a heap profile (when it reads its peak RSS) and a CPU profile
	// (from its start to then) to.
	MemProfile, CPUProfile string
	// Child is the command line that runs RecoveryChild in a fresh process
	// (the ordo binary's hidden `bench recovery-child`); the options reach it
	// in the environment. Defaults to this executable with "bench",
	// "recovery-child".
	Child []string
	// Progress, when set, receives a line now and then, and the restarted
	// process's own.
	Progress io.Writer
}

func (o *RecoveryOptions) setDefaults() error {
	if o.Store == "" {
		o.Store = StoreSQLite
	}
	if o.Store != StoreSQLite && o.Store != StorePostgres {
		return fmt.Errorf("bench: store %q: want %s or %s", o.Store, StoreSQLite, StorePostgres)
	}
	o.Intents = cmpInt(o.Intents, 1_000_000)
	o.Queues = cmpInt(o.Queues, 100_000)
	o.Senders = cmpInt(o.Senders, 1000)
	o.DataBytes = cmpInt(o.DataBytes, 100)
	o.Batch = cmpInt(o.Batch, 10_000)
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Minute
	}
	if len(o.Child) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("bench: the ordo binary: %w", err)
		}
		o.Child = []string{exe, "bench", "recovery-child"}
	}
	return nil
}

// RecoveryResult is what the recovery benchmark measured.
type RecoveryResult struct {
	Opts RecoveryOptions
	// Fill is how long the fill took (not part of the measure).
	Fill time.Duration
	// FirstDispatch is from the restarted process's exec to its first
	// transaction reaching the chain (SendTx), as the parent saw it.
	FirstDispatch time.Duration
	// Child is what the restarted process reported about itself.
	Child RecoveryChildResult
}

// RecoveryChildResult is what the restarted process measures, from its own
// start (RecoveryChild's entry).
type RecoveryChildResult struct {
	// Open is the store's open; Started the node's load (Started closed);
	// FirstSend the first SendTx; AllQueues the moment every queue had
	// dispatched once (zero if the timeout came first).
	Open, Started, FirstSend, AllQueues time.Duration
	// Queues is how many queues had dispatched by the time PeakRSS was read.
	Queues int
	// PeakRSS is VmHWM when every queue had dispatched once (or at the
	// timeout); RSSAtFirst is VmHWM at the first dispatch.
	PeakRSS, RSSAtFirst uint64
	// HeapInuse is the Go heap in use then (after a GC).
	HeapInuse uint64
}

func passWord(ok bool) string {
	if ok {
		return "pass"
	}
	return "FAIL"
}

// String is the benchmark's one line of figures.
func (r RecoveryResult) String() string {
	fd := r.FirstDispatch <= RecoveryFirstDispatchTarget && r.FirstDispatch > 0
	rss := r.Child.PeakRSS <= RecoveryPeakRSSTarget && r.Child.Queues == r.Opts.Queues
	when := fmt.Sprintf("once all %d queues had dispatched, %s in", r.Opts.Queues, r.Child.AllQueues.Round(time.Millisecond))
	if r.Child.Queues < r.Opts.Queues {
		when = fmt.Sprintf("at the %s timeout, %d/%d queues dispatched", r.Opts.Timeout, r.Child.Queues, r.Opts.Queues)
	}
	return fmt.Sprintf("recovery: store=%s N=%d Q=%d S=%d: first dispatch %s after exec (open %s, load %s, first SendTx %s in the process) ≤ %s %s; peak RSS %s (VmHWM %s; %s at the first dispatch, Go heap in use %s) ≤ %s %s; fill %s (not measured)",
		r.Opts.Store, r.Opts.Intents, r.Opts.Queues, r.Opts.Senders,
		r.FirstDispatch.Round(time.Millisecond), r.Child.Open.Round(time.Millisecond), (r.Child.Started - r.Child.Open).Round(time.Millisecond),
		r.Child.FirstSend.Round(time.Millisecond), RecoveryFirstDispatchTarget, passWord(fd),
		MiB(r.Child.PeakRSS), when, MiB(r.Child.RSSAtFirst), MiB(r.Child.HeapInuse), MiB(RecoveryPeakRSSTarget), passWord(rss),
		r.Fill.Round(time.Millisecond))
}

// Recovery measures a restart over a large backlog. It fills a store with
// Intents WAITING intents over Queues queues (Store.Enqueue in batches of
// Batch, directly: the fill is not measured), closes it, then runs
// RecoveryChild in a fresh process (so the fill's memory is not counted),
// which opens the store and starts a node on it with the burndown's instant
// chain and no-op dispatcher. Measured: the time from that process's exec
// to its first transaction reaching the chain, and its peak RSS (VmHWM)
// once every queue has dispatched once.
func Recovery(ctx context.Context, o RecoveryOptions) (res RecoveryResult, err error) {
	if err := o.setDefaults(); err != nil {
		return RecoveryResult{Opts: o}, err
	}
	res.Opts = o
	child := recoveryChildOptions{Store: o.Store, Intents: o.Intents, Queues: o.Queues, Senders: o.Senders, Workers: o.Workers,
		Timeout: o.Timeout, MemProfile: o.MemProfile, CPUProfile: o.CPUProfile}
	if o.Store == StoreSQLite {
		dir := o.Dir
		if dir == "" {
			if dir, err = os.MkdirTemp("", "ordo-recovery-"); err != nil {
				return res, err
			}
			defer func() { err = errors.Join(err, os.RemoveAll(dir)) }()
		}
		o.Dir, child.Path = dir, filepath.Join(dir, "ordo.db")
	} else {
		if o.Postgres == "" {
			url, stop, err := pgcluster.Start(ctx)
			if err != nil {
				return res, err
			}
			defer func() { err = errors.Join(err, stop()) }()
			o.Postgres = url
		}
		child.Postgres = o.Postgres
	}
	if res.Fill, err = recoveryFill(ctx, o); err != nil {
		return res, err
	}
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, "filled %d WAITING intents over %d queues in %s; restarting\n", o.Intents, o.Queues, res.Fill.Round(time.Millisecond))
	}
	res.FirstDispatch, res.Child, err = runRecoveryChild(ctx, o, child)
	return res, err
}

// recoveryFill enqueues the backlog and closes the store.
func recoveryFill(ctx context.Context, o RecoveryOptions) (_ time.Duration, err error) {
	st, _, _, closeStore, err := openBurndownStore(ctx, BurndownOptions{Store: o.Store, Dir: o.Dir, Postgres: o.Postgres})
	if err != nil {
		return 0, err
	}
	defer func() { err = errors.Join(err, closeStore()) }()
	if err := requireEmpty(ctx, st, "recovery"); err != nil {
		return 0, err
	}
	pad := strings.Repeat("x", max(o.DataBytes-len(`{"i":0000000,"pad":""}`), 0))
	start := wall.Now()
	at := start.UTC()
	batch := make([]store.NewTransaction, 0, o.Batch)
	for i := 0; i < o.Intents; {
		batch = batch[:0]
		for ; i < o.Intents && len(batch) < o.Batch; i++ {
			batch = append(batch, store.NewTransaction{
				UID:   fmt.Sprintf("tx_%012x%016x", at.UnixMilli(), i),
				Queue: fmt.Sprintf("q-%06d", i%o.Queues), Type: burndownType,
				Data:           []byte(fmt.Sprintf(`{"i":%07d,"pad":"%s"}`, i, pad)),
				IdempotencyKey: fmt.Sprintf("recovery-%d", i), At: at})
		}
		if _, err := st.Enqueue(ctx, batch); err != nil {
			return 0, fmt.Errorf("bench: fill: %w", err)
		}
		if o.Progress != nil && i%(20*o.Batch) == 0 {
			fmt.Fprintf(o.Progress, "filled %d/%d\n", i, o.Intents)
		}
	}
	return wall.Now().Sub(start), nil
}

// recoveryEnv carries the child's options, as JSON.
const recoveryEnv = "ORDO_BENCH_RECOVERY"

// The child's lines on stdout: the marker of its first dispatch, then its
// result.
const (
	recoveryFirstLine  = "recovery-first-dispatch"
	recoveryResultLine = "recovery-result "
)

// runRecoveryChild runs the restarted process and reads its lines.
func runRecoveryChild(ctx context.Context, o RecoveryOptions, child recoveryChildOptions) (first time.Duration, r RecoveryChildResult, err error) {
	env, err := json.Marshal(child)
	if err != nil {
		return 0, r, err
	}
	cmd := exec.CommandContext(ctx, o.Child[0], o.Child[1:]...)
	cmd.Env = append(os.Environ(), recoveryEnv+"="+string(env))
	cmd.Stderr = io.Discard
	if o.Progress != nil {
		cmd.Stderr = o.Progress
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, r, err
	}
	start := wall.Now()
	if err := cmd.Start(); err != nil {
		return 0, r, fmt.Errorf("bench: start the restarted process: %w", err)
	}
	var got bool
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == recoveryFirstLine && first == 0:
			first = wall.Now().Sub(start)
		case strings.HasPrefix(line, recoveryResultLine):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, recoveryResultLine)), &r); err != nil {
				return first, r, errors.Join(fmt.Errorf("bench: the restarted process's result: %w", err), cmd.Wait())
			}
			got = true
		}
	}
	if err := cmd.Wait(); err != nil {
		return first, r, fmt.Errorf("bench: the restarted process: %w", err)
	}
	if !got {
		return first, r, errors.New("bench: the restarted process gave no result")
	}
	if first == 0 {
		return first, r, errors.New("bench: the restarted process never dispatched")
	}
	return first, r, nil
}
