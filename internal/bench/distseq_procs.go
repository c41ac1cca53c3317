package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/ordolabs/ordo/internal/committee"
	"github.com/ordolabs/ordo/internal/procs"
)

// procsRun is one benchmark run on processes: the committee and what the
// load generators and the chain watcher observed. Its maps are guarded by
// mu: the generators' batches and the watcher write them concurrently.
type procsRun struct {
	o DistseqOptions
	c *procs.Committee

	mu sync.Mutex
	// head is the newest block height seen.
	head uint64
	// submitH is the head when each intent was acknowledged (its id in
	// the ptx_sendTransactions answer); confirmedAt the height of the
	// block whose IntentConfirmed event confirmed each txId; confirmed
	// the count of those events per "group/txId".
	submitH      map[string]uint64
	confirmedAt  map[string]uint64
	confirmed    map[string]int
	refused      int
	firstRefusal error
	// changed is signalled (without blocking) whenever confirmedAt grows.
	changed chan struct{}
	// reader reads the chain's head and IntentConfirmed events.
	reader confirmReader
}

// distseqProcs runs o (defaulted, Processes > 0) on a devchain and
// o.Processes `ordo serve` processes (internal/procs): the same open-loop
// schedule as the cluster's, on the wall clock, each node's share sent
// as a ptx_sendTransactions batch every o.Batch by its own goroutine (one
// goroutine per batch, so a slow answer never delays the schedule). It
// measures from the chain's IntentConfirmed events and the nodes'
// acknowledgements with distseqStats, and stops every process at the end,
// on error or when ctx ends.
func distseqProcs(ctx context.Context, o DistseqOptions) (res DistseqResult, err error) {
	res = DistseqResult{Opts: o}
	if o.Bin == "" {
		if o.Bin, err = os.Executable(); err != nil {
			return res, fmt.Errorf("bench distseq: this binary: %w", err)
		}
		res.Opts.Bin = o.Bin
	}
	if o.Dir == "" {
		dir, merr := os.MkdirTemp("", "ordo-bench-distseq-")
		if merr != nil {
			return res, fmt.Errorf("bench distseq: %w", merr)
		}
		defer func() {
			if err == nil {
				os.RemoveAll(dir)
			} else {
				err = fmt.Errorf("%w (logs kept in %s)", err, filepath.Join(dir, "logs"))
			}
		}()
		o.Dir = dir
	}
	t0 := wall.Now()
	pc := procs.Config{Bin: o.Bin, Dir: o.Dir, Nodes: o.Processes, BlockTime: o.BlockTime,
		Coins: o.Coins, Amount: o.CoinAmount, RangeSize: o.RangeSize, PollEvery: o.PollEvery}
	var reader confirmReader
	if o.Chain == "evm" {
		dev, ec, err := startEVMDev(ctx, o)
		if err != nil {
			return res, err
		}
		defer dev.Close()
		defer ec.Close()
		pc.EVM, reader = procs.EVMDev(dev), &evmConfirms{ec: ec, pg: dev.PrivacyGroup}
	}
	c, err := procs.Start(ctx, pc)
	if err != nil {
		return res, fmt.Errorf("bench distseq: %w", err)
	}
	defer c.Stop(context.WithoutCancel(ctx))
	if reader == nil {
		reader = &devchainConfirms{dc: c.Chain()}
	}
	r := &procsRun{o: o, c: c, submitH: map[string]uint64{}, confirmedAt: map[string]uint64{}, confirmed: map[string]int{},
		changed: make(chan struct{}, 1), reader: reader}
	wctx, stopWatch := context.WithCancel(ctx)
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		r.watch(wctx)
	}()
	defer func() {
		stopWatch()
		<-watchDone
	}()
	// The watcher's first read gives the head the run starts from.
	if err := r.waitFor(ctx, wall.Now().Add(o.Drain), func() bool { return r.head > 0 }); err != nil {
		return res, fmt.Errorf("bench distseq: the chain's head: %w", err)
	}
	total := float64(o.Nodes * o.SendersPerNode)
	interval := time.Duration(float64(time.Second) / (total * o.Rate))
	if interval <= 0 {
		return res, errors.New("bench distseq: the offered rate is above one intent per nanosecond")
	}
	start := wall.Now()
	startH := r.headNow()
	var batches sync.WaitGroup
	var gens sync.WaitGroup
	for i := range o.Nodes {
		gens.Go(func() { r.generate(ctx, i, start, interval, &batches) })
	}
	gens.Wait()
	if err := ctx.Err(); err != nil {
		batches.Wait()
		return res, err
	}
	endH := r.headNow()
	batches.Wait()
	if err := r.waitFor(ctx, wall.Now().Add(o.Drain), r.allConfirmed); err != nil && ctx.Err() != nil {
		return res, err
	}
	res.Wall = wall.Now().Sub(t0)
	res.HeapPeak = peakRSSOf(r.c.PIDs())
	r.mu.Lock()
	defer r.mu.Unlock()
	done := make(map[string]uint64, len(r.submitH))
	for id := range r.submitH {
		if h, ok := r.confirmedAt[id]; ok {
			done[id] = h
		}
	}
	distseqStats(&res, distseqObs{submitH: r.submitH, doneH: done, confirmedAt: r.confirmedAt, confirmed: r.confirmed}, startH, endH)
	res.Refused = r.refused
	if o.Progress != nil && r.firstRefusal != nil {
		fmt.Fprintf(o.Progress, "first refusal: %v\n", r.firstRefusal)
	}
	return res, nil
}

// generate is node i's load: global submissions k = i, i+Nodes, ... fall
// due at start + k*interval until start + Duration; every o.Batch what
// fell due is sent as one batch in its own goroutine (counted by
// batches), so the schedule never waits for an answer.
func (r *procsRun) generate(ctx context.Context, i int, start time.Time, interval time.Duration, batches *sync.WaitGroup) {
	o := r.o
	end := start.Add(o.Duration)
	k := i
	for {
		now := wall.Now()
		var txs []map[string]any
		for ; ; k += o.Nodes {
			at := start.Add(time.Duration(k) * interval)
			if !at.Before(end) || at.After(now) {
				break
			}
			sender := (k / o.Nodes) % o.SendersPerNode
			txs = append(txs, map[string]any{"type": "private", "domain": "token", "function": "transfer",
				"from": committee.AdminPrincipal, "to": r.c.Config().Group, "data": map[string]any{"to": fmt.Sprintf("n%d-u%d", i+1, sender), "amount": 1}})
		}
		if len(txs) > 0 {
			batches.Go(func() { r.send(ctx, i, txs) })
		}
		if !start.Add(time.Duration(k)*interval).Before(end) || pause(ctx, o.Batch) != nil {
			return
		}
	}
}

// send sends one batch to node i and records each acknowledged id with
// the head it was acknowledged at; a failed call refuses the whole batch.
func (r *procsRun) send(ctx context.Context, i int, txs []map[string]any) {
	raw, err := r.c.RPC(ctx, i, "ptx_sendTransactions", []any{txs})
	var ids []string
	if err == nil {
		if err = json.Unmarshal(raw, &ids); err == nil && len(ids) != len(txs) {
			err = fmt.Errorf("node%d answered %d ids for %d transactions", i+1, len(ids), len(txs))
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.refused += len(txs)
		if r.firstRefusal == nil {
			r.firstRefusal = err
		}
		return
	}
	for _, id := range ids {
		r.submitH[id] = r.head
	}
}

// watch follows the chain until ctx ends: the head (its stream, and a
// poll every o.Batch in case the stream breaks) and, each time it moves,
// the events after the cursor, keeping the group's IntentConfirmed ones.
// With o.Progress it writes a line per block.
func (r *procsRun) watch(ctx context.Context) {
	heads := r.reader.heads(ctx) // nil: poll alone
	last := uint64(0)
	for {
		var h uint64
		poll := wall.NewTimer(r.o.Batch)
		select {
		case <-ctx.Done():
			poll.Stop()
			return
		case hd, ok := <-heads:
			poll.Stop()
			if !ok {
				heads = nil
				continue
			}
			h = hd.Height
		case <-poll.C():
			hh, err := r.reader.head(ctx)
			if err != nil {
				continue
			}
			h = hh
		}
		if h <= last {
			continue
		}
		if err := r.readEvents(ctx); err != nil {
			continue // read again at the next head or tick
		}
		r.mu.Lock()
		r.head = max(r.head, h)
		r.mu.Unlock()
		for b := last + 1; b <= h && last > 0; b++ {
			r.progress(ctx, b)
		}
		last = h
	}
}

// readEvents reads the IntentConfirmed events the reader has not given yet.
func (r *procsRun) readEvents(ctx context.Context) error {
	group := r.c.Config().Group
	grew := false
	err := r.reader.read(ctx, func(g, txID string, height uint64) {
		if g != group {
			return
		}
		r.mu.Lock()
		r.confirmed[g+"/"+txID]++
		r.confirmedAt[txID] = height
		r.mu.Unlock()
		grew = true
	})
	if grew {
		select {
		case r.changed <- struct{}{}:
		default:
		}
	}
	return err
}

// progress writes block b's line: intents acknowledged so far, confirmed
// in b, and the coordinator most nodes name.
func (r *procsRun) progress(ctx context.Context, b uint64) {
	if r.o.Progress == nil {
		return
	}
	r.mu.Lock()
	n := 0
	for _, at := range r.confirmedAt {
		if at == b {
			n++
		}
	}
	sub := len(r.submitH)
	r.mu.Unlock()
	co := "?"
	if _, id, agree, err := r.c.Coordinator(ctx, r.c.Config().Group); err == nil {
		co = fmt.Sprintf("%s (%d agree)", id, agree)
	}
	fmt.Fprintf(r.o.Progress, "block %d: submitted %d, confirmed %d in block; coordinator %s\n", b, sub, n, co)
}

// headNow is the newest block height seen.
func (r *procsRun) headNow() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.head
}

// allConfirmed reports whether every acknowledged intent is confirmed on
// chain.
func (r *procsRun) allConfirmed() bool {
	for id := range r.submitH {
		if _, ok := r.confirmedAt[id]; !ok {
			return false
		}
	}
	return true
}

// waitFor waits until cond (called with r.mu held) holds, ctx ends or
// the deadline passes; it checks again whenever the watcher read
// something and every o.Batch.
func (r *procsRun) waitFor(ctx context.Context, deadline time.Time, cond func() bool) error {
	for {
		r.mu.Lock()
		ok := cond()
		r.mu.Unlock()
		if ok {
			return nil
		}
		if !wall.Now().Before(deadline) {
			return errors.New("bench distseq: deadline passed")
		}
		t := wall.NewTimer(r.o.Batch)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-r.changed:
			t.Stop()
		case <-t.C():
		}
	}
}

// peakRSSOf sums the peak RSS (VmHWM) of the processes pids (the devchain
// and the nodes), or 0 where /proc is not available.
func peakRSSOf(pids []int) uint64 {
	var sum uint64
	for _, pid := range pids {
		sum += vmHWM(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	}
	return sum
}
