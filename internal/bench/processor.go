package bench

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/chain/evm/evmdev"
	"github.com/ordolabs/ordo/internal/node"
	"github.com/ordolabs/ordo/internal/processor"
)

// ProcessorOptions sets the processor benchmark.
type ProcessorOptions struct {
	// Batches queued per kind (atomic, then non-atomic). Defaults to 1,000.
	Batches int
	// Lanes spread each processor's executions over sequencer queues.
	// Defaults to 64.
	Lanes int
	// Senders defaults to 64.
	Senders int
	// BlockTime defaults to 100ms.
	BlockTime time.Duration
	// Tickers is how many clients tick at once. Defaults to 8.
	Tickers int
	// Chain is "devchain" (in-process, the default) or "evm": an
	// in-process simulated EVM chain (evmdev on loopback JSON-RPC), the
	// messages calls of its Library contract through the router.
	Chain string
	// Dir is the data directory. Defaults to a temp dir, removed after.
	Dir string
	// Progress, when set, receives a line now and then.
	Progress io.Writer
}

// ProcessorResult is what the processor benchmark measured.
type ProcessorResult struct {
	Opts ProcessorOptions
	// Atomic and NonAtomic are batches/s executed by ticks, from the first
	// tick to the last outcome, with Batches queued.
	Atomic, NonAtomic float64
	// Ticks counts the ticks sent in all.
	Ticks int64
	// Callbacks is callbacks/s delivered to a local receiver that held every
	// delivery until both kinds had their outcomes.
	Callbacks float64
	PeakRSS   uint64
}

// String is the benchmark's one line of figures.
func (r ProcessorResult) String() string {
	o := r.Opts
	chain := ""
	if o.Chain == "evm" {
		chain = " (simulated EVM chain)"
	}
	return fmt.Sprintf("processor: %d batches queued per kind, lanes %d, senders %d, block %s%s: atomic %.0f batches/s, non-atomic (2 actions) %.0f batches/s (%.0f actions/s) executed by %d ticks; callbacks %.0f/s delivered to a local receiver; peak RSS %s",
		o.Batches, o.Lanes, o.Senders, o.BlockTime, chain, r.Atomic, r.NonAtomic, 2*r.NonAtomic, r.Ticks, r.Callbacks, MiB(r.PeakRSS))
}

// receiver counts callbacks by Idempotency-Key; it holds every delivery
// until its gate opens.
type receiver struct {
	gate chan struct{}
	mu   sync.Mutex
	keys map[string]bool
	last time.Time
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	select {
	case <-rc.gate:
	case <-r.Context().Done():
		return
	}
	_, _ = io.Copy(io.Discard, r.Body)
	rc.mu.Lock()
	rc.keys[r.Header.Get("Idempotency-Key")] = true
	rc.last = wall.Now()
	rc.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (rc *receiver) count() (int, time.Time) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.keys), rc.last
}

// Processor runs a node with an in-process devchain (or a simulated EVM
// chain), queues Batches atomic batches (two library calls as one
// multi-call, or one router intent) on one processor and ticks them through
// over HTTP, then as many non-atomic ones (two actions) on another, then
// opens the callback receiver and measures deliveries.
func Processor(ctx context.Context, o ProcessorOptions) (ProcessorResult, error) {
	o.Batches = cmpInt(o.Batches, 1000)
	o.Lanes = cmpInt(o.Lanes, 64)
	o.Senders = cmpInt(o.Senders, 64)
	o.Tickers = cmpInt(o.Tickers, 8)
	if o.BlockTime <= 0 {
		o.BlockTime = 100 * time.Millisecond
	}
	res := ProcessorResult{Opts: o}
	rc := &receiver{gate: make(chan struct{}), keys: map[string]bool{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return res, err
	}
	rs := &http.Server{Handler: rc, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = rs.Serve(ln) }()
	defer rs.Close()

	allowLoopback := true
	token := rand.Text()
	cfg := node.Config{Data: o.Dir, DevSenders: o.Senders, Devchain: node.DevchainConfig{BlockTime: node.Duration(o.BlockTime), MaxBlockTxs: max(1000, o.Senders)},
		RetryDelay: node.Duration(time.Second), InclusionTimeoutBlocks: 20,
		Processor:  node.ProcessorConfig{MaxDeliveries: 64, DeliveryTimeout: node.Duration(5 * time.Minute)},
		Principals: []auth.PrincipalConfig{{Principal: "bench", Token: token, Roles: []auth.Role{auth.RoleAdmin}}},
		Egress:     node.EgressConfig{AllowLoopback: &allowLoopback}} // the callback receiver is on loopback
	msgs := `[{"contract":"library","method":"work","args":{"n":1}},{"contract":"library","method":"work","args":{"n":2}}]`
	switch o.Chain {
	case "", "devchain":
	case "evm":
		if o.Senders+1 > evmdev.MaxAccounts {
			return res, fmt.Errorf("senders %d: the simulated chain funds at most %d accounts", o.Senders, evmdev.MaxAccounts-1)
		}
		dev, err := evmdev.Start(ctx, evmdev.Config{HTTPAddr: "127.0.0.1:0", WSAddr: "127.0.0.1:0", BlockTime: o.BlockTime, Accounts: o.Senders + 1})
		if err != nil {
			return res, fmt.Errorf("the simulated EVM chain: %w", err)
		}
		defer dev.Close()
		cfg.UseEVMDev(dev, o.Senders)
		msgs = `[{"contract":"library","method":"act","args":{"method":"work1"}},{"contract":"library","method":"act","args":{"method":"work2"}}]`
	default:
		return res, fmt.Errorf("chain %q: devchain or evm", o.Chain)
	}
	n, err := node.StartLocal(ctx, cfg, node.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Workers: 128}, "127.0.0.1:0")
	if err != nil {
		return res, err
	}
	defer func() { _ = n.Stop() }()
	c := &benchClient{base: "http://" + n.Addr, token: token,
		hc: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, MaxConnsPerHost: 64}}}
	cb := "http://" + ln.Addr().String() + "/callbacks"

	kinds := []struct {
		name, actions string
		out           *float64
	}{
		{"atomic", `{"atomic":{"actions":[{},{}]}}`, &res.Atomic},
		{"nonatomic", `{"nonAtomic":{"actions":[{},{}]}}`, &res.NonAtomic},
	}
	for _, k := range kinds {
		rate, ticks, err := c.runKind(ctx, k.name, msgs, k.actions, cb, o)
		if err != nil {
			return res, fmt.Errorf("%s: %w", k.name, err)
		}
		*k.out, res.Ticks = rate, res.Ticks+ticks
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "%s: %.0f batches/s\n", k.name, rate)
		}
	}
	t0 := wall.Now()
	close(rc.gate)
	want := 2 * o.Batches
	for {
		got, last := rc.count()
		if got >= want {
			res.Callbacks = float64(want) / last.Sub(t0).Seconds()
			res.PeakRSS = PeakRSS()
			return res, nil
		}
		if err := pause(ctx, 20*time.Millisecond); err != nil {
			return res, fmt.Errorf("callbacks: %d of %d delivered: %w", got, want, err)
		}
	}
}

// runKind creates a processor, queues the batches, ticks until every batch
// has its outcome and returns batches/s from the first tick.
func (c *benchClient) runKind(ctx context.Context, name, msgs, actions, callbackURL string, o ProcessorOptions) (float64, int64, error) {
	if err := c.postOnceStarted(ctx, "/v1/processors", fmt.Sprintf(`{"name":%q,"owner":"bench","callbackURL":%q,"lanes":%d}`, name, callbackURL, o.Lanes), nil); err != nil {
		return 0, 0, err
	}
	batch := `{"priority":"medium","msgs":` + msgs + `,"actionsConfig":` + actions + `}`
	if err := parallel(16, o.Batches, func(int) error { return c.post(ctx, "/v1/processors/"+name+"/batches", batch, nil) }); err != nil {
		return 0, 0, err
	}
	var ticks atomic.Int64
	var done atomic.Bool
	tickErr := make(chan error, o.Tickers)
	t0 := wall.Now()
	tickCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for range o.Tickers {
		wg.Go(func() {
			for !done.Load() && tickCtx.Err() == nil {
				var tr processor.TickResult
				if err := c.post(tickCtx, "/v1/processors/"+name+"/tick", `{}`, &tr); err != nil {
					tickErr <- err
					return
				}
				ticks.Add(1)
				if tr.Outcome == processor.TickNoMessages || tr.Outcome == processor.TickRotated {
					_ = pause(tickCtx, 5*time.Millisecond) // nothing ready: wait for executions to land
				}
			}
		})
	}
	defer wg.Wait()
	last := wall.Now()
	for {
		select {
		case err := <-tickErr:
			return 0, 0, err
		default:
		}
		var v processor.ProcessorView
		if err := c.get(ctx, "/v1/processors/"+name, &v); err != nil {
			return 0, 0, err
		}
		if v.Counts.Done >= o.Batches {
			done.Store(true)
			return float64(o.Batches) / wall.Now().Sub(t0).Seconds(), ticks.Load(), nil
		}
		if o.Progress != nil && wall.Now().Sub(last) > 2*time.Second {
			last = wall.Now()
			fmt.Fprintf(o.Progress, "%s: %d ticks; %+v\n", name, ticks.Load(), v.Counts)
		}
		if err := pause(ctx, 20*time.Millisecond); err != nil {
			return 0, 0, fmt.Errorf("%d of %d batches done: %w", v.Counts.Done, o.Batches, err)
		}
	}
}

// benchClient calls the node's API as one principal.
type benchClient struct {
	base, token string
	hc          *http.Client
}

func (c *benchClient) do(ctx context.Context, method, path, body string, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewBufferString(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return &statusError{code: resp.StatusCode, text: fmt.Sprintf("%s %s: %s %s", method, path, resp.Status, bytes.TrimSpace(b))}
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// statusError is an answer outside 2xx.
type statusError struct {
	code int
	text string
}

func (e *statusError) Error() string { return e.text }

// engineStartTimeout bounds the wait for the processor engine, which
// starts once the chain answers: a node answers 503 unavailable before.
const engineStartTimeout = time.Minute

// postOnceStarted posts like post, again while the node answers 503 (its
// engine not started yet), for at most engineStartTimeout.
func (c *benchClient) postOnceStarted(ctx context.Context, path, body string, out any) error {
	deadline := wall.Now().Add(engineStartTimeout)
	for {
		err := c.post(ctx, path, body, out)
		var se *statusError
		if !errors.As(err, &se) || se.code != http.StatusServiceUnavailable || wall.Now().After(deadline) {
			return err
		}
		if err := pause(ctx, 50*time.Millisecond); err != nil {
			return err
		}
	}
}

func (c *benchClient) post(ctx context.Context, path, body string, out any) error {
	return c.do(ctx, http.MethodPost, path, body, out)
}

func (c *benchClient) get(ctx context.Context, path string, out any) error {
	return c.do(ctx, http.MethodGet, path, "", out)
}

// parallel runs f(0..n-1) on k goroutines and returns the first error.
func parallel(k, n int, f func(i int) error) error {
	var next atomic.Int64
	var first error
	var once sync.Once
	var wg sync.WaitGroup
	for range k {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := f(i); err != nil {
					once.Do(func() { first = err })
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}

// pause waits d on the wall clock, or until ctx ends.
func pause(ctx context.Context, d time.Duration) error {
	t := wall.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C():
		return nil
	}
}
