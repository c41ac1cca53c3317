package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/postgres"
	"github.com/ordolabs/ordo/internal/store/sqlite"
)

// recoveryChildOptions are what the restarted process needs.
type recoveryChildOptions struct {
	Store    string
	Path     string // the SQLite file
	Postgres string
	Intents  int
	Queues   int
	Senders  int
	Workers  int
	Timeout  time.Duration
	// MemProfile and CPUProfile: see RecoveryOptions.
	MemProfile string
	CPUProfile string
}

// ErrNotRecoveryChild is RecoveryChild's answer in a process that Recovery
// did not start (its options are not in the environment).
var ErrNotRecoveryChild = errors.New("bench: not a process started by the recovery benchmark")

// RecoveryChild is the restarted process of the recovery benchmark: it opens
// the store Recovery filled and runs a node on it (the burndown's instant
// chain, no-op dispatcher and keystore senders), writes a marker line to
// out at its first transaction sent, then, once every queue has dispatched
// once (or at the timeout), reads its peak RSS and writes its result line.
// Its options come from the environment (see Recovery).
func RecoveryChild(ctx context.Context, out io.Writer, progress io.Writer) (err error) {
	start := wall.Now()
	raw := os.Getenv(recoveryEnv)
	if raw == "" {
		return ErrNotRecoveryChild
	}
	var o recoveryChildOptions
	if err := json.Unmarshal([]byte(raw), &o); err != nil {
		return fmt.Errorf("bench: %s: %w", recoveryEnv, err)
	}
	if progress == nil {
		progress = io.Discard
	}
	stopProfile, err := StartCPUProfile(o.CPUProfile)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, stopProfile()) }()
	var r RecoveryChildResult
	var st store.Store
	if o.Store == StoreSQLite {
		st, err = sqlite.Open(ctx, o.Path, sqlite.Options{Synchronous: sqlite.SyncFull})
	} else {
		st, err = postgres.Open(ctx, o.Postgres, postgres.Options{})
	}
	if err != nil {
		return err
	}
	running := false // the node runs: leave the store open at the end if it does not stop
	defer func() {
		if !running {
			err = errors.Join(err, st.Close())
		}
	}()
	r.Open = wall.Now().Sub(start)

	senders := keystoreSenders("recovery-sender", o.Senders)
	ch := &recoveryChain{instantChain: newInstantChain(), first: make(chan struct{})}
	d := &recoveryDispatcher{seen: make([]atomic.Bool, o.Queues), all: make(chan struct{}), want: int64(o.Queues)}
	n, err := sequencer.NewNode(sequencer.Config{Store: st, Chain: ch, Clock: wall,
		Dispatchers: map[string]sequencer.Dispatcher{burndownType: d},
		Senders:     senders, Workers: o.Workers, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer func() {
		// A turn over a very large step cannot be interrupted: the figures
		// are out by now, so the process does not wait long for it.
		cancel()
		t := wall.NewTimer(10 * time.Second)
		defer t.Stop()
		select {
		case <-n.Stopped():
			running = false
		case <-t.C():
			fmt.Fprintln(progress, "restart: the node did not stop within 10s (a long turn); leaving it")
		}
	}()
	running = true
	go func() { _ = n.Run(runCtx) }()
	timeout := wall.NewTimer(o.Timeout)
	defer timeout.Stop()
	for phase := 0; phase < 3; {
		var wait <-chan struct{}
		switch phase {
		case 0:
			wait = n.Started()
		case 1:
			wait = ch.first
		default:
			wait = d.all
		}
		select {
		case <-wait:
		case <-n.Stopped():
			return fmt.Errorf("bench: node stopped: %w", n.Err())
		case <-ctx.Done():
			return ctx.Err()
		case <-timeout.C():
			if phase < 2 {
				return fmt.Errorf("bench: no dispatch within %s", o.Timeout)
			}
			phase = 3
			continue
		}
		at := wall.Now().Sub(start)
		switch phase {
		case 0:
			r.Started = at
			fmt.Fprintf(progress, "restart: store open in %s, node loaded in %s\n", r.Open.Round(time.Millisecond), at.Round(time.Millisecond))
		case 1:
			r.FirstSend, r.RSSAtFirst = at, PeakRSS()
			if _, err := fmt.Fprintln(out, recoveryFirstLine); err != nil {
				return err
			}
		default:
			r.AllQueues = at
		}
		phase++
	}
	r.PeakRSS = PeakRSS()
	r.Queues = int(d.count.Load())
	pprof.StopCPUProfile() // the start, not the stop
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	r.HeapInuse = ms.HeapInuse
	if o.MemProfile != "" {
		if err := writeHeapProfile(o.MemProfile); err != nil {
			return err
		}
	}
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(out, recoveryResultLine+string(line))
	return err
}

func writeHeapProfile(path string) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	return pprof.Lookup("heap").WriteTo(f, 0)
}

// recoveryChain is the instant chain with a signal at the first SendTx.
type recoveryChain struct {
	*instantChain
	once  sync.Once
	first chan struct{}
}

// SendTx implements chain.Chain.
func (c *recoveryChain) SendTx(ctx context.Context, tx chain.Tx) (chain.Hash, error) {
	h, err := c.instantChain.SendTx(ctx, tx)
	c.once.Do(func() { close(c.first) })
	return h, err
}

// recoveryDispatcher is the no-op dispatcher counting the queues that
// built a transaction (queue "q-%06d" is index %d).
type recoveryDispatcher struct {
	noopDispatcher
	seen  []atomic.Bool
	count atomic.Int64
	want  int64
	all   chan struct{}
}

// Build implements sequencer.Builder.
func (d *recoveryDispatcher) Build(ctx context.Context, txn sequencer.RawTxnData, s sequencer.Sender) (chain.Tx, error) {
	if i, err := strconv.Atoi(strings.TrimPrefix(s.Queue, "q-")); err == nil && i >= 0 && i < len(d.seen) && !d.seen[i].Swap(true) {
		if d.count.Add(1) == d.want {
			close(d.all)
		}
	}
	return d.noopDispatcher.Build(ctx, txn, s)
}
