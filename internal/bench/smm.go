package bench

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/identity"
	"github.com/ordolabs/ordo/internal/node"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/smm"
	"github.com/ordolabs/ordo/internal/testkit/ports"
)

// SMMOptions configures SMM (`ordo bench smm`). Zero fields take their
// defaults.
type SMMOptions struct {
	// Nodes is how many nodes hold every queue (each set is a primary and
	// Nodes-1 secondaries). Defaults to 3.
	Nodes int
	// Queues is how many replicated queues monitoring cycles over.
	// Defaults to 10,000.
	Queues int
	// SliceSize is monitor-state's slice. Defaults to 100.
	SliceSize int
	// MonitorEvery is the pause between two slices. Defaults to 1ms (the
	// cycle then measures monitoring's own cost).
	MonitorEvery time.Duration
	// Rate is the intake, intents/s, open loop, over LoadQueues queues, for
	// Load. Defaults to 1,000, 100 and 10s.
	Rate       float64
	LoadQueues int
	Load       time.Duration
	// BlockTime is the devchain's. Defaults to 1s.
	BlockTime time.Duration
	// UnhealthyAfter is how long a silent member waits to be replaced.
	// Defaults to 2s.
	UnhealthyAfter time.Duration
	// Dir holds the nodes' data. Defaults to a temporary directory,
	// removed at the end.
	Dir string
	// Progress receives a line per phase (nil: none).
	Progress io.Writer
	// NodeLog receives the nodes' warnings and errors (nil: none).
	NodeLog io.Writer
}

func (o *SMMOptions) defaults() {
	setInt := func(p *int, v int) {
		if *p <= 0 {
			*p = v
		}
	}
	setDur := func(p *time.Duration, v time.Duration) {
		if *p <= 0 {
			*p = v
		}
	}
	setInt(&o.Nodes, 3)
	setInt(&o.Queues, 10000)
	setInt(&o.SliceSize, 100)
	setInt(&o.LoadQueues, 100)
	setDur(&o.MonitorEvery, time.Millisecond)
	setDur(&o.Load, 10*time.Second)
	setDur(&o.BlockTime, time.Second)
	setDur(&o.UnhealthyAfter, 2*time.Second)
	if o.Rate <= 0 {
		o.Rate = 1000
	}
}

// SMMResult is what SMM measured.
type SMMResult struct {
	Opts SMMOptions
	// Cycle is the longest last full monitoring cycle among the nodes.
	Cycle time.Duration
	// Offered and Taken count the intents of the load phase.
	Offered, Taken int
	// Lags are the sync lags of the intents a manual sync got to a
	// secondary (one per intent and secondary).
	LagP50, LagP99 time.Duration
	Synced         int
	// FailoverBlocks and FailoverTime run from the primary's loss to the
	// first transaction of its queue the new primary got included.
	FailoverBlocks uint64
	FailoverTime   time.Duration
	// Moved counts the lost primary's queues; FirstMoved and LastMoved are
	// the blocks, from the loss, at which the chain named the first and
	// the last of them a new primary.
	Moved                 int
	FirstMoved, LastMoved uint64
	Wall                  time.Duration
}

// String is the one line `ordo bench smm` prints.
func (r SMMResult) String() string {
	o := r.Opts
	return fmt.Sprintf("smm: %d nodes x %d queues: monitoring cycle %v (slices of %d, pause %v); sync lag p50 %v p99 %v "+
		"(%d intents taken of %d offered at %.0f/s over %d queues, %d syncs to secondaries); failover %d blocks (%v; block %v, unhealthyAfter %v) "+
		"primary lost -> first dispatch by the new primary included; its %d queues' new primaries on chain: first %d, last %d blocks after the loss "+
		"(%d after unhealthyAfter); wall %v",
		o.Nodes, o.Queues, r.Cycle.Round(time.Millisecond), o.SliceSize, o.MonitorEvery, r.LagP50.Round(100*time.Microsecond), r.LagP99.Round(100*time.Microsecond),
		r.Taken, r.Offered, o.Rate, o.LoadQueues, r.Synced, r.FailoverBlocks, r.FailoverTime.Round(10*time.Millisecond), o.BlockTime, o.UnhealthyAfter,
		r.Moved, r.FirstMoved, r.LastMoved, r.LastMoved-min(r.LastMoved, uint64(o.UnhealthyAfter/max(o.BlockTime, 1))), r.Wall.Round(100*time.Millisecond))
}

// smmRun is one run: the chain and the nodes.
type smmRun struct {
	o     SMMOptions
	dc    *devchain.Chain
	url   string
	keys  []identity.Key
	dirs  []string
	nodes []*node.Node
	stops []context.CancelFunc
	dones []chan struct{}

	mu   sync.Mutex
	lags []time.Duration
}

// SMM runs the state machine manager's benchmark: Nodes full nodes in
// this process (gRPC with mutual TLS on loopback, one devchain over HTTP
// on the wall clock) holding Queues replicated queues, each on all of
// them; it measures a full monitoring cycle, the sync lag under Rate
// intents/s of intake, and the failover of one loaded queue's primary.
func SMM(ctx context.Context, o SMMOptions) (res SMMResult, err error) {
	o.defaults()
	res.Opts = o
	start := wall.Now()
	if o.Dir == "" {
		if o.Dir, err = os.MkdirTemp("", "ordo-bench-smm-"); err != nil {
			return res, err
		}
		defer os.RemoveAll(o.Dir)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &smmRun{o: o}
	stop, err := r.chain(ctx)
	if err != nil {
		return res, err
	}
	defer stop()
	defer r.stopAll()
	if err := r.start(ctx); err != nil {
		return res, err
	}
	r.progress("bench smm: %d nodes registered; writing %d replica sets", o.Nodes, o.Queues)
	if err := r.writeSets(ctx); err != nil {
		return res, err
	}
	if res.Cycle, err = r.cycle(ctx); err != nil {
		return res, err
	}
	r.progress("bench smm: monitoring cycle %v; load %.0f intents/s for %v", res.Cycle, o.Rate, o.Load)
	uids, err := r.load(ctx, &res)
	if err != nil {
		return res, err
	}
	r.mu.Lock()
	lags := slices.Clone(r.lags)
	r.mu.Unlock()
	slices.Sort(lags)
	res.Synced = len(lags)
	if len(lags) > 0 {
		res.LagP50, res.LagP99 = lags[len(lags)/2], lags[min(len(lags)-1, len(lags)*99/100)]
	}
	r.progress("bench smm: sync lag p50 %v p99 %v over %d syncs; failing over", res.LagP50, res.LagP99, len(lags))
	if err := r.failover(ctx, uids, &res); err != nil {
		return res, err
	}
	res.Wall = wall.Now().Sub(start)
	return res, nil
}

func (r *smmRun) progress(format string, a ...any) {
	if r.o.Progress != nil {
		fmt.Fprintf(r.o.Progress, format+"\n", a...)
	}
}

// chain starts the devchain and serves its API on loopback.
func (r *smmRun) chain(ctx context.Context) (func(), error) {
	dc, err := devchain.New(devchain.Config{BlockTime: r.o.BlockTime, MaxBlockTxs: 5000})
	if err != nil {
		return nil, err
	}
	url, stopSrv, err := serve(devchain.NewHandler(dc))
	if err != nil {
		dc.Close()
		return nil, err
	}
	var wg sync.WaitGroup
	cctx, cancel := context.WithCancel(ctx)
	wg.Go(func() { _ = dc.Run(cctx) })
	r.dc, r.url = dc, url
	return func() {
		cancel()
		stopSrv()
		wg.Wait()
		dc.Close()
	}, nil
}

// config is node i's: dev mode, its identity, the registry, replication.
func (r *smmRun) config(i int, grpc string) node.Config {
	dir := r.dirs[i]
	return node.Config{Data: dir, Chain: r.url, DevSenders: 32, DevMode: true, Listen: "127.0.0.1:0",
		Distseq: node.DistseqConfig{Key: filepath.Join(dir, "node.key"), Cert: filepath.Join(dir, "node.crt"), Listen: grpc,
			Registry: true, RegistryEvery: node.Duration(200 * time.Millisecond), PollEvery: node.Duration(100 * time.Millisecond)},
		Replication: smm.Config{Enabled: true, Secondaries: r.o.Nodes - 1, SliceSize: r.o.SliceSize, MonitorEvery: r.o.MonitorEvery,
			UnhealthyAfter: r.o.UnhealthyAfter, SyncPoll: 200 * time.Millisecond, SyncTimeout: 10 * time.Second,
			MappingEvery: 2 * time.Second, RequestTimeout: 2 * time.Second}}
}

// start makes each node's identity and starts it; it returns once the
// nodes registry holds every node.
func (r *smmRun) start(ctx context.Context) error {
	for i := range r.o.Nodes {
		k, err := identity.Generate(rand.Reader)
		if err != nil {
			return err
		}
		cert, err := identity.NewCertificate(k, wall.Now().Add(-time.Hour), wall.Now().Add(24*time.Hour))
		if err != nil {
			return err
		}
		dir := filepath.Join(r.o.Dir, fmt.Sprintf("node%d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := identity.Save(filepath.Join(dir, "node.key"), filepath.Join(dir, "node.crt"), k, cert); err != nil {
			return err
		}
		r.keys, r.dirs = append(r.keys, k), append(r.dirs, dir)
	}
	out := io.Discard
	if r.o.NodeLog != nil {
		out = r.o.NodeLog
	}
	for i := range r.o.Nodes {
		log := slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelWarn})).With("node", i)
		grpc, err := ports.Addr() // below the ephemeral range: the node binds it later
		if err != nil {
			return err
		}
		n, err := node.Build(ctx, r.config(i, grpc), node.Options{Logger: log})
		if err != nil {
			return fmt.Errorf("bench smm: node %d: %w", i, err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			_ = n.Close()
			return err
		}
		n.SMM.SetOnSynced(func(_, _ string, lag time.Duration) {
			r.mu.Lock()
			r.lags = append(r.lags, lag)
			r.mu.Unlock()
		})
		nctx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = n.Serve(nctx, ln)
		}()
		r.nodes, r.stops, r.dones = append(r.nodes, n), append(r.stops, stop), append(r.dones, done)
	}
	return r.until(ctx, 30*time.Second, "every node in the nodes registry", func() (bool, error) {
		raw, err := r.dc.Call(ctx, devchain.NodesContract, "nodes", json.RawMessage(`{}`))
		if err != nil {
			return false, nil
		}
		var out struct {
			Nodes []json.RawMessage `json:"nodes"`
		}
		return json.Unmarshal(raw, &out) == nil && len(out.Nodes) >= r.o.Nodes, nil
	})
}

// stop stops node i hard and closes it.
func (r *smmRun) stop(i int) {
	if r.nodes[i] == nil {
		return
	}
	r.stops[i]()
	<-r.dones[i]
	_ = r.nodes[i].Close()
	r.nodes[i] = nil
}

func (r *smmRun) stopAll() {
	for i := range r.nodes {
		r.stop(i)
	}
}

// until polls cond every 50ms until it holds, it fails, ctx ends or d
// passes.
func (r *smmRun) until(ctx context.Context, d time.Duration, what string, cond func() (bool, error)) error {
	deadline := wall.Now().Add(d)
	for {
		ok, err := cond()
		if err != nil || ok {
			return err
		}
		if wall.Now().After(deadline) {
			return fmt.Errorf("bench smm: %s: not within %v", what, d)
		}
		if err := pause(ctx, 50*time.Millisecond); err != nil {
			return err
		}
	}
}

// queue is the name of queue q; its primary is node q % Nodes, the
// others its secondaries.
func (r *smmRun) queue(q int) string { return fmt.Sprintf("bench-%05d", q) }

func (r *smmRun) setOf(q int) (primary int, secondaries []string) {
	primary = q % r.o.Nodes
	for j := range r.o.Nodes {
		if j != primary {
			secondaries = append(secondaries, string(r.keys[j].ID()))
		}
	}
	return primary, secondaries
}

// writeSets puts every queue's set on chain, signed by its primary's key,
// sent from the chain's dev accounts, and waits for the last.
func (r *smmRun) writeSets(ctx context.Context) error {
	accts, err := r.dc.DevAccounts(ctx)
	if err != nil {
		return err
	}
	nonce := map[chain.Address]uint64{}
	for q := range r.o.Queues {
		p, secs := r.setOf(q)
		k := r.keys[p]
		args, _ := json.Marshal(devchain.SignReplicaSetUpdate(k.Private, string(k.ID()), r.queue(q), string(k.ID()), secs, 0))
		from := accts[q%len(accts)].Address
		if _, err := r.dc.SendTx(ctx, chain.Tx{From: from, Nonce: nonce[from], Fee: 10000, Contract: devchain.ReplicaSetsContract,
			Method: devchain.ReplicaSetsUpdate, Args: args}); err != nil {
			return fmt.Errorf("bench smm: set %d: %w", q, err)
		}
		nonce[from]++
	}
	last, _ := json.Marshal(map[string]string{"queue": r.queue(r.o.Queues - 1)})
	return r.until(ctx, 2*time.Minute, "the replica sets on chain", func() (bool, error) {
		_, err := r.dc.Call(ctx, devchain.ReplicaSetsContract, "set", last)
		return err == nil, nil
	})
}

// cycle waits until every node completed two monitoring cycles over all
// the queues and returns the longest last one.
func (r *smmRun) cycle(ctx context.Context) (time.Duration, error) {
	var worst time.Duration
	err := r.until(ctx, 5*time.Minute, "two full monitoring cycles at every node", func() (bool, error) {
		worst = 0
		for _, n := range r.nodes {
			st, err := n.SMM.Status(ctx)
			if err != nil {
				return false, err
			}
			if st.Primary+st.Secondary < r.o.Queues || st.Cycles < 2 {
				return false, nil
			}
			d, err := time.ParseDuration(st.LastCycle)
			if err != nil {
				return false, err
			}
			worst = max(worst, d)
		}
		return true, nil
	})
	return worst, err
}

// intake is the i-th intent of queue q: a claim voting account, then votes.
func (r *smmRun) intake(q, i int) sequencer.Intake {
	it := sequencer.Intake{Queue: r.queue(q), Type: sequencer.SendClaimVote, Data: json.RawMessage(fmt.Sprintf(`{"voter":"v%d","vote":true}`, i)),
		IdempotencyKey: fmt.Sprintf("%d/%d", q, i)}
	if i == 0 {
		it.Type, it.Data = sequencer.CreateClaimVotingAccount, json.RawMessage(`{"title":"bench"}`)
	}
	return it
}

// load offers Rate intents/s over LoadQueues queues for Load, each to its
// primary, open loop (a pool of submitters; a tick's intents are dropped,
// not queued, when the pool is behind), and returns queue 0's uids.
func (r *smmRun) load(ctx context.Context, res *SMMResult) ([]string, error) {
	type job struct{ q, i int }
	jobs := make(chan job, 4096)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	var uids []string
	for range 64 {
		wg.Go(func() {
			for j := range jobs {
				p, _ := r.setOf(j.q)
				out, err := r.nodes[p].SMM.Submit(ctx, "bench", []sequencer.Intake{r.intake(j.q, j.i)})
				mu.Lock()
				switch {
				case err != nil && firstErr == nil:
					firstErr = err
				case err == nil:
					res.Taken++
					if j.q == 0 {
						uids = append(uids, out[0].Transaction.UID)
					}
				}
				mu.Unlock()
			}
		})
	}
	next := make([]int, r.o.LoadQueues)
	start := wall.Now()
	end := start.Add(r.o.Load)
	q := 0
	// Every 10ms, what fell due since the start at Rate per second.
	for now := start; now.Before(end) && ctx.Err() == nil; now = wall.Now() {
		for due := int(r.o.Rate * now.Sub(start).Seconds()); res.Offered < due; res.Offered++ {
			j := job{q: q, i: next[q]}
			select {
			case jobs <- j:
				next[q]++
			default:
			}
			q = (q + 1) % r.o.LoadQueues
		}
		_ = pause(ctx, 10*time.Millisecond)
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return nil, fmt.Errorf("bench smm: intake: %w", firstErr)
	}
	return uids, nil
}

// failover stops queue 0's primary for good and measures until the first
// block that includes a transaction of queue 0 sent by the new primary
// (one of its senders), while a client keeps sending queue 0 intents to
// another node (503 while the failover is under way).
func (r *smmRun) failover(ctx context.Context, uids []string, res *SMMResult) error {
	p, _ := r.setOf(0)
	var mu sync.Mutex
	ours := map[string]bool{}
	for _, u := range uids {
		ours[u] = true
	}
	head, err := r.dc.Head(ctx)
	if err != nil {
		return err
	}
	before, err := r.chainSets(ctx)
	if err != nil {
		return err
	}
	lostID := string(r.keys[p].ID())
	r.stop(p)
	lost, h0 := wall.Now(), head.Height
	other := (p + 1) % r.o.Nodes
	var wg sync.WaitGroup
	defer wg.Wait() // after cancel: defers run last first
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wg.Go(func() {
		for i := 0; cctx.Err() == nil; i++ {
			if out, err := r.nodes[other].SMM.Submit(cctx, "bench", []sequencer.Intake{r.intake(0, 1_000_000+i)}); err == nil {
				mu.Lock()
				ours[out[0].Transaction.UID] = true
				mu.Unlock()
			}
			_ = pause(cctx, 100*time.Millisecond)
		}
	})
	var senders map[chain.Address]bool
	q0, _ := json.Marshal(map[string]string{"queue": r.queue(0)})
	err = r.until(ctx, 10*time.Minute, "a dispatch of queue 0 by its new primary", func() (bool, error) {
		if senders == nil {
			raw, err := r.dc.Call(ctx, devchain.ReplicaSetsContract, "set", q0)
			if err != nil {
				return false, nil
			}
			var set devchain.ReplicaSet
			if json.Unmarshal(raw, &set) != nil || set.Primary == string(r.keys[p].ID()) {
				return false, nil
			}
			np := slices.IndexFunc(r.keys, func(k identity.Key) bool { return string(k.ID()) == set.Primary })
			ss, err := r.nodes[np].Sequencer.Store().Senders(ctx)
			if err != nil {
				return false, err
			}
			senders = map[chain.Address]bool{}
			for _, s := range ss {
				senders[chain.Address(s.ID)] = true
			}
		}
		hd, err := r.dc.Head(ctx)
		if err != nil {
			return false, err
		}
		bs, err := r.dc.Blocks(ctx, h0+1, hd.Height)
		if err != nil {
			return false, err
		}
		mu.Lock()
		defer mu.Unlock()
		for _, b := range bs {
			for _, tx := range b.Txs {
				if ours[tx.Memo] && senders[tx.From] {
					res.FailoverBlocks, res.FailoverTime = b.Height-h0, wall.Now().Sub(lost)
					r.progress("bench smm: primary lost at height %d, first dispatch by the new primary included at %d (%s %s)", h0, b.Height, tx.Status, tx.Reason)
					return true, nil
				}
			}
		}
		return false, nil
	})
	if err != nil {
		return err
	}
	return r.until(ctx, 10*time.Minute, "a new primary for every queue of the lost one", func() (bool, error) {
		return r.moved(ctx, before, lostID, h0, res)
	})
}

// chainSets reads every replica set on chain, by queue.
func (r *smmRun) chainSets(ctx context.Context) (map[string]devchain.ReplicaSet, error) {
	out := map[string]devchain.ReplicaSet{}
	after := ""
	for {
		args, _ := json.Marshal(map[string]any{"after": after, "limit": devchain.MaxReplicaSetPage})
		raw, err := r.dc.Call(ctx, devchain.ReplicaSetsContract, "sets", args)
		if err != nil {
			return nil, err
		}
		var page devchain.ReplicaSetsPage
		if err := json.Unmarshal(raw, &page); err != nil {
			return nil, err
		}
		for _, s := range page.Sets {
			out[s.Queue] = s
		}
		if page.Next == "" {
			return out, nil
		}
		after = page.Next
	}
}

// moved reports whether every queue lost was primary of in before has a
// new primary on chain; once so, it records the blocks of the first and
// the last change after h0.
func (r *smmRun) moved(ctx context.Context, before map[string]devchain.ReplicaSet, lost string, h0 uint64, res *SMMResult) (bool, error) {
	now, err := r.chainSets(ctx)
	if err != nil {
		return false, err
	}
	first, last, n := uint64(0), uint64(0), 0
	for q, s := range before {
		if s.Primary != lost {
			continue
		}
		cur := now[q]
		if cur.Primary == lost {
			return false, nil
		}
		d := cur.Height - min(cur.Height, h0)
		if n == 0 || d < first {
			first = d
		}
		last, n = max(last, d), n+1
	}
	res.Moved, res.FirstMoved, res.LastMoved = n, first, last
	r.progress("bench smm: the lost primary's %d queues moved: first %d, last %d blocks after the loss", n, first, last)
	return true, nil
}
