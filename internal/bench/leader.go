package bench

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/leader"
	"github.com/ordolabs/ordo/internal/node"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/tool"
)

// LeaderOptions sets the leader benchmark.
type LeaderOptions struct {
	// Requests is how many walks are requested. Defaults to 1,000.
	Requests int
	// Channels is how many leader accounts (key-file senders, one leader
	// cap each) report results. Defaults to 16.
	Channels int
	// Requesters is how many accounts emit the requests. Defaults to 8.
	Requesters int
	// Capacity is the node's leader.capacity, the run queue of the
	// high-integrity channel. Defaults to Requests, so that every request
	// is sent to the execution engine as it is indexed: a request indexed
	// while the run queue is full waits for the retrier, which resends one
	// per leader.retryEvery (1s).
	Capacity int
	// BlockTime defaults to 100ms.
	BlockTime time.Duration
	// Chain is "devchain" (a standalone devchain over HTTP, the default)
	// or "evm": a simulated EVM chain (evmdev on loopback JSON-RPC) with
	// its Workflow and ToolRegistry.
	Chain string
	// Dir is the data directory. Defaults to a temp dir, removed after.
	Dir string
	// Progress, when set, receives a line now and then.
	Progress io.Writer
}

// LeaderResult is what the leader benchmark measured.
type LeaderResult struct {
	Opts LeaderOptions
	// Rate is events/s from the first request's emission to the last
	// event's Successful.
	Rate float64
	// Successful and Dead count the events by their end.
	Successful, Dead int
	// P50 and P99 are the latency in blocks from a request's inclusion to
	// its result's inclusion.
	P50, P99 uint64
	// Blocks is how many blocks the run took, from the first request's
	// block to the last result's.
	Blocks  uint64
	PeakRSS uint64
}

// String is the benchmark's one line of figures.
func (r LeaderResult) String() string {
	o := r.Opts
	chain := ""
	if o.Chain == "evm" {
		chain = " (simulated EVM chain)"
	}
	return fmt.Sprintf("leader: %d requests from %d accounts, %d channels, capacity %d, no-op tool, block %s%s: %.0f events/s emission to Successful (%d Successful, %d Dead) over %d blocks; latency request to result p50 %d blocks, p99 %d blocks; peak RSS %s",
		o.Requests, o.Requesters, o.Channels, o.Capacity, o.BlockTime, chain, r.Rate, r.Successful, r.Dead, r.Blocks, r.P50, r.P99, MiB(r.PeakRSS))
}

// noopTool is the benchmark's tool: any object in, {} out.
type noopTool struct{}

func (noopTool) Meta() tool.Meta {
	return tool.Meta{Name: "noop", Description: "Does nothing.", Version: "1.0.0",
		InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{"type":"object"}`)}
}

func (noopTool) Invoke(context.Context, json.RawMessage) (json.RawMessage, error) {
	return json.RawMessage(`{}`), nil
}

// serve serves h on a free loopback port until the returned stop is called.
func serve(h http.Handler) (url string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	s := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() { _ = s.Close() }, nil
}

// Leader runs a standalone devchain in-process, served over HTTP, with the
// workflow set up (initialized, a no-op tool registered and served
// in-process, one leader cap granted to each of Channels funded accounts),
// then a node against it whose leader.accounts are those accounts (key-file
// senders), then emits Requests requests from Requesters dev accounts and
// waits until every event has ended. It measures events/s from the first
// emission to the last Successful, and the latency in blocks from each
// request's inclusion to its result's, read from the workflow.
func Leader(ctx context.Context, o LeaderOptions) (LeaderResult, error) {
	o.Requests = cmpInt(o.Requests, 1000)
	o.Channels = cmpInt(o.Channels, 16)
	o.Requesters = cmpInt(o.Requesters, 8)
	o.Capacity = cmpInt(o.Capacity, o.Requests)
	if o.BlockTime <= 0 {
		o.BlockTime = 100 * time.Millisecond
	}
	res := LeaderResult{Opts: o}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	dir := o.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "ordo-bench-leader-")
		if err != nil {
			return res, err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	switch o.Chain {
	case "", "devchain":
	case "evm":
		return leaderEVM(ctx, o, dir)
	default:
		return res, fmt.Errorf("chain %q: devchain or evm", o.Chain)
	}

	// The chain, standalone: its own process in production, here served
	// over HTTP from this one; the node reaches it only through its URL.
	dc, err := devchain.New(devchain.Config{BlockTime: o.BlockTime, MaxBlockTxs: max(1000, o.Requests), DevAccounts: o.Requesters + 1,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return res, err
	}
	defer dc.Close()
	chainDone := make(chan struct{})
	go func() { defer close(chainDone); _ = dc.Run(ctx) }()
	defer func() { cancel(); <-chainDone }()
	chainURL, stopChain, err := serve(devchain.NewHandler(dc))
	if err != nil {
		return res, err
	}
	defer stopChain()
	toolSrv, err := tool.NewServer(noopTool{})
	if err != nil {
		return res, err
	}
	toolURL, stopTool, err := serve(toolSrv)
	if err != nil {
		return res, err
	}
	defer stopTool()

	devs, err := dc.DevAccounts(ctx)
	if err != nil {
		return res, err
	}
	admin := devs[0].Address
	var keyFiles []node.SenderFile
	var accounts []string
	for i := range o.Channels {
		seed := make([]byte, ed25519.SeedSize)
		_, _ = rand.Read(seed)
		p := filepath.Join(dir, fmt.Sprintf("leader-%d.key", i))
		if err := os.WriteFile(p, []byte(hex.EncodeToString(seed)), 0o600); err != nil {
			return res, err
		}
		a := chain.KeyAddress(ed25519.NewKeyFromSeed(seed))
		if _, err := dc.Faucet(ctx, a, 1e14); err != nil {
			return res, fmt.Errorf("funding leader account %s: %w", a, err)
		}
		keyFiles = append(keyFiles, node.SenderFile{KeyFile: p})
		accounts = append(accounts, string(a))
	}
	reg, _ := json.Marshal(map[string]any{"tool": "noop", "url": toolURL, "inputSchema": noopTool{}.Meta().InputSchema, "outputSchema": noopTool{}.Meta().OutputSchema})
	setup := []chain.Tx{
		{Contract: devchain.WorkflowContract, Method: devchain.WorkflowInit, Args: json.RawMessage(`{}`)},
		{Contract: devchain.RegistryContract, Method: "register", Args: reg},
	}
	for _, a := range accounts {
		setup = append(setup, chain.Tx{Contract: devchain.WorkflowContract, Method: devchain.WorkflowGrantLeaderCap, Args: json.RawMessage(fmt.Sprintf(`{"leader":%q}`, a))})
	}
	var hashes []chain.Hash
	for i, tx := range setup {
		tx.From, tx.Nonce, tx.Fee = admin, uint64(i), 1000
		h, err := dc.SendTx(ctx, tx)
		if err != nil {
			return res, fmt.Errorf("set-up %s.%s: %w", tx.Contract, tx.Method, err)
		}
		hashes = append(hashes, h)
	}
	if err := chain.WaitIncluded(ctx, dc, wall, 10*time.Millisecond, hashes...); err != nil {
		return res, fmt.Errorf("set-up: %w", err)
	}

	// The node: its leader's accounts are the key-file senders holding
	// the caps (Build reads the caps and checks the funds).
	allowLoopback := true
	token := rand.Text()
	cfg := node.Config{Data: filepath.Join(dir, "node"), Chain: chainURL, Senders: keyFiles, InclusionTimeoutBlocks: 20,
		Leader:     node.LeaderConfig{Accounts: accounts, Capacity: o.Capacity},
		Principals: []auth.PrincipalConfig{{Principal: "bench", Token: token, Roles: []auth.Role{auth.RoleAdmin}}},
		Egress:     node.EgressConfig{AllowLoopback: &allowLoopback}} // the tool is served on loopback
	n, err := node.StartLocal(ctx, cfg, node.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Workers: 128}, "127.0.0.1:0")
	if err != nil {
		return res, err
	}
	defer func() { _ = n.Stop() }()
	if n.Leader == nil {
		return res, errors.New("the node runs no leader")
	}
	c := &benchClient{base: "http://" + n.Addr, token: token, hc: &http.Client{}}
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, "leader: %d channels on %d accounts; emitting %d requests\n", o.Channels, len(accounts), o.Requests)
	}

	// Emission: each requester sends its share, nonces in order.
	t0 := wall.Now()
	if err := parallel(o.Requesters, o.Requesters, func(r int) error {
		from := devs[1+r].Address
		nonce := uint64(0)
		for i := r; i < o.Requests; i += o.Requesters {
			_, err := dc.SendTx(ctx, chain.Tx{From: from, Nonce: nonce, Fee: 1000, Contract: devchain.WorkflowContract, Method: devchain.WorkflowRequest,
				Args: json.RawMessage(fmt.Sprintf(`{"walk":"w-%d","tool":"noop","input":{"i":%d}}`, i, i))})
			if err != nil {
				return fmt.Errorf("request %d: %w", i, err)
			}
			nonce++
		}
		return nil
	}); err != nil {
		return res, err
	}

	if err := res.waitEnded(ctx, c, o, t0); err != nil {
		return res, err
	}

	// Latency in blocks, from the workflow's record of each walk.
	lat := make([]uint64, 0, o.Requests)
	first, lastH := uint64(0), uint64(0)
	for i := range o.Requests {
		raw, err := dc.Call(ctx, devchain.WorkflowContract, "walk", json.RawMessage(fmt.Sprintf(`{"walk":"w-%d"}`, i)))
		if err != nil {
			return res, fmt.Errorf("walk w-%d: %w", i, err)
		}
		var w devchain.Walk
		if err := json.Unmarshal(raw, &w); err != nil {
			return res, fmt.Errorf("walk w-%d: %w", i, err)
		}
		if w.Result == nil {
			return res, fmt.Errorf("walk w-%d ended in the node but has no result on chain", i)
		}
		lat = append(lat, w.Result.Height-w.Height)
		if first == 0 || w.Height < first {
			first = w.Height
		}
		lastH = max(lastH, w.Result.Height)
	}
	slices.Sort(lat)
	res.P50, res.P99 = lat[len(lat)/2], lat[min(len(lat)-1, len(lat)*99/100)]
	res.Blocks = lastH - first + 1
	res.PeakRSS = PeakRSS()
	return res, nil
}

// waitEnded waits until every event has ended (Successful or Dead),
// through the API, and sets the counts and the rate from t0.
func (r *LeaderResult) waitEnded(ctx context.Context, c *benchClient, o LeaderOptions, t0 time.Time) error {
	last := wall.Now()
	for {
		succ, dead, err := countEnded(ctx, c)
		if err != nil {
			return err
		}
		if succ+dead >= o.Requests {
			r.Successful, r.Dead = succ, dead
			r.Rate = float64(succ) / wall.Now().Sub(t0).Seconds()
			return nil
		}
		if o.Progress != nil && wall.Now().Sub(last) > 2*time.Second {
			last = wall.Now()
			fmt.Fprintf(o.Progress, "leader: %d Successful, %d Dead of %d\n", succ, dead, o.Requests)
		}
		if err := pause(ctx, 50*time.Millisecond); err != nil {
			return fmt.Errorf("%d Successful, %d Dead of %d: %w", succ, dead, o.Requests, err)
		}
	}
}

// countEnded pages through the leader's events and counts the Successful
// and Dead ones.
func countEnded(ctx context.Context, c *benchClient) (succ, dead int, err error) {
	var after int64
	for {
		var page leader.EventsPage
		if err := c.get(ctx, fmt.Sprintf("/v1/leader/events?after=%d&limit=1000", after), &page); err != nil {
			return 0, 0, err
		}
		for _, e := range page.Events {
			switch e.Status {
			case store.EventSuccessful:
				succ++
			case store.EventDead:
				dead++
			default: // queued or active: not ended yet
			}
		}
		if len(page.Events) < 1000 {
			return succ, dead, nil
		}
		after = page.Next
	}
}
