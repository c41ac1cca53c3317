package bench

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ordolabs/ordo/internal/api"
	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/node"
	"github.com/ordolabs/ordo/internal/store"
)

// SequencerOptions sets the sequencer benchmark.
type SequencerOptions struct {
	// Queues defaults to 500.
	Queues int
	// Senders defaults to 500.
	Senders int
	// Txs is the total number of transactions. Defaults to 20,000.
	Txs int
	// BlockTime defaults to 250ms.
	BlockTime time.Duration
	// Clients is how many concurrent HTTP clients post. Defaults to 64.
	Clients int
	// Batch is how many intents each request carries: 1 posts one intent
	// (a JSON object), more post the array form of POST /v1/transactions
	// (at most api.MaxBatch). Defaults to 1.
	Batch int
	// Dir is the data directory. Defaults to a temp dir, removed after.
	Dir string
	// Chain is "devchain" (in-process, the default) or "evm": an
	// in-process simulated EVM chain (evmdev on loopback JSON-RPC), the
	// intents calls of its Voting contract through the router.
	Chain string
	// Progress, when set, receives a line now and then.
	Progress io.Writer
}

// SequencerResult is what the sequencer benchmark measured.
type SequencerResult struct {
	Opts         SequencerOptions
	Accepted     float64 // intake tx/s over HTTP, durable
	Done         float64 // DONE tx/s from first post to last DONE
	SlotUse      float64 // included ÷ (blocks × min(Q,S)) over the steady state
	SteadyBlocks int
	IntakeP50    time.Duration // a request's latency, from the client
	IntakeP99    time.Duration
	BlocksP50    uint64
	BlocksP99    uint64
	Failed       int
	PeakRSS      uint64
	// EVM is what the EVM run measured besides (nil on devchain).
	EVM *EVMFigures
}

// String is the benchmark's one line of figures.
func (r SequencerResult) String() string {
	return fmt.Sprintf("sequencer: Q=%d S=%d N=%d block=%s batch=%d clients=%d: accepted %.0f intents/s, done %.0f tx/s, slot use %.1f%% over %d steady blocks, intake p50 %s p99 %s, dispatch→DONE p50 %d p99 %d blocks, failed %d, peak RSS %s",
		r.Opts.Queues, r.Opts.Senders, r.Opts.Txs, r.Opts.BlockTime, r.Opts.Batch, r.Opts.Clients, r.Accepted, r.Done, 100*r.SlotUse, r.SteadyBlocks,
		r.IntakeP50.Round(10*time.Microsecond), r.IntakeP99.Round(10*time.Microsecond), r.BlocksP50, r.BlocksP99, r.Failed, MiB(r.PeakRSS)) + r.EVM.String()
}

// Sequencer runs a node with an in-process devchain, posts Txs transactions
// over HTTP from Clients concurrent clients across Queues queues (a
// CREATE_CLAIM_VOTING_ACCOUNT first in each, then SEND_CLAIM_VOTEs), Batch
// intents a request, and waits for all to finish.
func Sequencer(ctx context.Context, o SequencerOptions) (SequencerResult, error) {
	o.Queues = cmpInt(o.Queues, 500)
	o.Senders = cmpInt(o.Senders, 500)
	o.Txs = cmpInt(o.Txs, 20_000)
	o.Clients = cmpInt(o.Clients, 64)
	o.Batch = cmpInt(o.Batch, 1)
	if o.BlockTime <= 0 {
		o.BlockTime = 250 * time.Millisecond
	}
	res := SequencerResult{Opts: o}
	if o.Txs < o.Queues {
		return res, fmt.Errorf("need at least one transaction per queue")
	}
	if o.Batch > api.MaxBatch {
		return res, fmt.Errorf("batch %d: at most %d intents go in one request", o.Batch, api.MaxBatch)
	}
	var finished atomic.Int64
	var failed atomic.Int64
	var mu sync.Mutex
	var blocks []uint64
	// The clients post as a principal with a fresh token, as an
	// application would: the API's authentication is part of the measure.
	token := rand.Text()
	cfg := node.Config{Data: o.Dir, DevSenders: o.Senders, Devchain: node.DevchainConfig{BlockTime: node.Duration(o.BlockTime), MaxBlockTxs: max(1000, o.Senders)},
		RetryDelay: node.Duration(time.Second), InclusionTimeoutBlocks: 20,
		Principals: []auth.PrincipalConfig{{Principal: "bench", Token: token, Roles: []auth.Role{auth.RoleSubmit}}}}
	var ev *evmRun
	switch o.Chain {
	case "", "devchain":
	case "evm":
		var err error
		if ev, err = startEVMRun(ctx, &cfg, o); err != nil {
			return res, err
		}
		defer ev.close()
	default:
		return res, fmt.Errorf("chain %q: devchain or evm", o.Chain)
	}
	n, err := node.StartLocal(ctx, cfg, node.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Workers: 128,
		OnFinish: func(uid string, state store.TxState, b uint64) {
			ev.finished(uid)
			if state == store.Failed {
				failed.Add(1)
			}
			mu.Lock()
			blocks = append(blocks, b)
			mu.Unlock()
			finished.Add(1)
		}}, "127.0.0.1:0")
	if err != nil {
		return res, err
	}
	defer func() { _ = n.Stop() }() // the result is measured by then; shutdown errors are not part of it
	base := "http://" + n.Addr
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: o.Clients, MaxConnsPerHost: o.Clients}}

	// Deploy each queue's zkApp first (FIFO keeps it first), then the votes.
	type item struct{ queue, typ, data string }
	items := make([]item, 0, o.Txs)
	for q := range o.Queues {
		items = append(items, item{fmt.Sprintf("claim-%04d", q), "CREATE_CLAIM_VOTING_ACCOUNT", `{"title":"bench"}`})
	}
	for i := o.Queues; i < o.Txs; i++ {
		items = append(items, item{fmt.Sprintf("claim-%04d", i%o.Queues), "SEND_CLAIM_VOTE", fmt.Sprintf(`{"voter":"v%d","vote":%d}`, i, i%2)})
	}
	if ev != nil { // the same flow as calls of the Voting contract
		ev.watch(ctx, n.Chain)
		for i := range items {
			items[i].typ, items[i].data = "call", ev.callData(items[i].queue, i < o.Queues, i)
		}
	}
	bodies := make([]json.RawMessage, len(items))
	for i, it := range items {
		bodies[i], _ = json.Marshal(map[string]any{"queue": it.queue, "type": it.typ, "data": json.RawMessage(it.data), "idempotencyKey": fmt.Sprintf("bench-%d", i)})
	}
	var latMu sync.Mutex
	var lat []time.Duration // one a request
	// post posts items [from, to) in requests of up to o.Batch intents.
	post := func(from, to int) error {
		var next atomic.Int64
		next.Store(int64(from))
		var wg sync.WaitGroup
		errs := make(chan error, o.Clients)
		for range o.Clients {
			wg.Go(func() {
				var mine []time.Duration
				defer func() {
					latMu.Lock()
					lat = append(lat, mine...)
					latMu.Unlock()
				}()
				var buf bytes.Buffer
				for {
					i := int(next.Add(int64(o.Batch)) - int64(o.Batch))
					if i >= to {
						return
					}
					j := min(i+o.Batch, to)
					buf.Reset()
					if o.Batch == 1 {
						buf.Write(bodies[i])
					} else {
						buf.WriteByte('[')
						for k := i; k < j; k++ {
							if k > i {
								buf.WriteByte(',')
							}
							buf.Write(bodies[k])
						}
						buf.WriteByte(']')
					}
					t0 := wall.Now()
					if err := postIntents(ctx, hc, base, token, buf.Bytes(), j-i, o.Batch > 1); err != nil {
						errs <- fmt.Errorf("post %d..%d: %w", i, j-1, err)
						return
					}
					mine = append(mine, wall.Now().Sub(t0))
				}
			})
		}
		wg.Wait()
		close(errs)
		return <-errs
	}
	start := wall.Now()
	if err := post(0, o.Queues); err != nil {
		return res, err
	}
	if err := post(o.Queues, len(items)); err != nil {
		return res, err
	}
	intake := time.Since(start)
	res.Accepted = float64(len(items)) / intake.Seconds()
	slices.Sort(lat)
	res.IntakeP50, res.IntakeP99 = lat[len(lat)/2], lat[len(lat)*99/100]
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, "intake done: %d in %s\n", len(items), intake.Round(time.Millisecond))
	}
	last := wall.Now()
	for finished.Load() < int64(len(items)) {
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case err := <-n.Stopped():
			return res, fmt.Errorf("node stopped: %w", err)
		case <-time.After(100 * time.Millisecond):
		}
		if o.Progress != nil && time.Since(last) > 2*time.Second {
			fmt.Fprintf(o.Progress, "finished %d/%d\n", finished.Load(), len(items))
			last = wall.Now()
		}
	}
	total := time.Since(start)
	res.Done = float64(len(items)) / total.Seconds()
	res.Failed = int(failed.Load())
	slices.Sort(blocks)
	res.BlocksP50, res.BlocksP99 = blocks[len(blocks)/2], blocks[len(blocks)*99/100]
	res.SlotUse, res.SteadyBlocks, err = slotUse(ctx, n.Chain.(chain.BlockReader), o)
	if err != nil {
		return res, err
	}
	if ev != nil {
		if res.EVM, err = ev.figures(ctx, n.Sequencer.Store()); err != nil {
			return res, err
		}
	}
	res.PeakRSS = PeakRSS()
	return res, nil
}

// postIntents posts body, n intents (an array when array), and checks that
// each was created.
func postIntents(ctx context.Context, hc *http.Client, base, token string, body []byte, n int, array bool) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/transactions", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if !array {
		_, _ = io.Copy(io.Discard, resp.Body) // drain so the connection is reused
		if resp.StatusCode != http.StatusCreated {
			return fmt.Errorf("HTTP %d", resp.StatusCode)
		}
		return nil
	}
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, resp.Body)
		return fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	var results []struct {
		Status int `json:"status"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&results); err != nil {
		return fmt.Errorf("decoding the answer: %w", err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	if len(results) != n {
		return fmt.Errorf("%d results for %d intents", len(results), n)
	}
	for k, r := range results {
		if r.Status != http.StatusCreated {
			return fmt.Errorf("intent %d: status %d", k, r.Status)
		}
	}
	return nil
}

// slotUse audits the chain: over the blocks where every queue still had work
// (from the first block with a bench transaction to the last block before any
// queue ran out), included ÷ (blocks × min(Q,S)).
func slotUse(ctx context.Context, br chain.BlockReader, o SequencerOptions) (float64, int, error) {
	lastByQueue := map[string]uint64{}
	var first uint64
	perBlock := map[uint64]int{}
	err := chain.EachBlock(ctx, br, 1, ^uint64(0), func(b chain.Block) error {
		for _, t := range b.Txs {
			if t.Status != chain.OutcomeSucceeded || (t.Contract != "zkapp" && t.Contract != "voting") {
				continue
			}
			var a struct {
				ZkApp   string `json:"zkapp"`
				Account string `json:"account"` // the Voting contract's claim
			}
			_ = json.Unmarshal(t.Args, &a) // args without a string zkapp count under ""
			if first == 0 {
				first = b.Height
			}
			lastByQueue[a.ZkApp+a.Account] = b.Height
			perBlock[b.Height]++
		}
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	end := uint64(0)
	for _, h := range lastByQueue {
		if end == 0 || h < end {
			end = h
		}
	}
	if first == 0 || end <= first+1 {
		return 0, 0, nil
	}
	// Skip the ramp-up block (deploys arrive over the first interval) and
	// the last block of the shortest queue.
	from, to := first+1, end-1
	if to < from {
		return 0, 0, nil
	}
	included := 0
	for h := from; h <= to; h++ {
		included += perBlock[h]
	}
	nb := int(to - from + 1)
	return float64(included) / float64(nb*min(o.Queues, o.Senders)), nb, nil
}

func cmpInt(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}
