package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/distseq/cluster"
	"github.com/ordolabs/ordo/internal/distseq/token"
	"github.com/ordolabs/ordo/internal/transport/simnet"
)

// DistseqOptions sets the distributed-sequencer benchmark. The run is on
// the cluster's virtual clock: blocks are the ledger's pace, and wall time
// is what the run cost. With Processes > 0 the same workload runs on real
// processes on the wall clock (distseq_procs.go); the fields that only
// the in-process cluster has (Latency, Tick, Seed) are then unused.
type DistseqOptions struct {
	// Nodes is the committee size. Defaults to 4 (to Processes when set).
	Nodes int
	// Processes, when > 0, runs the workload on a devchain and Processes
	// `ordo serve` processes on loopback (gRPC with mutual TLS between
	// them, the ptx_ JSON-RPC API for the senders) on the wall clock.
	// Defaults to 0: in process.
	Processes int
	// Bin is the ordo binary the processes run. Defaults to this very
	// executable (os.Executable).
	Bin string
	// Dir holds the processes' committee, chain data and logs. Defaults
	// to a temporary directory, removed after a run without error (kept,
	// and named in the error, otherwise).
	Dir string
	// Batch is how often each node's load generator sends the intents
	// that fell due as one ptx_sendTransactions call (processes only).
	// Defaults to 50ms.
	Batch time.Duration
	// PollEvery is the nodes' indexer poll interval (processes only).
	// Defaults to a tenth of BlockTime.
	PollEvery time.Duration
	// SendersPerNode is how many users submit to each node. Defaults to 50.
	SendersPerNode int
	// BlockTime is the chain's block interval. Defaults to 1s.
	BlockTime time.Duration
	// RangeSize is n, the blocks per coordinator range. Defaults to 10.
	RangeSize uint64
	// Rate is intents/s each sender submits, open loop: on a fixed schedule
	// that never waits for a confirmation. Defaults to 0.75 (150 intents/s
	// from 4 x 50 senders, under the ~180/s one coordinator assembles).
	Rate float64
	// Duration is the time (virtual, or wall on processes) intents are
	// submitted for. Defaults to
	// the time of 3 ranges plus 5 blocks; it must cover at least 2 range
	// boundaries after the first 3 blocks.
	Duration time.Duration
	// Drain is the time (virtual, or wall on processes) allowed after the
	// last submission for every intent to be confirmed. Defaults to 60
	// blocks.
	Drain time.Duration
	// Contracts is how many privacy groups the committee shares; the
	// senders spread their intents over them round robin. Defaults to 1.
	Contracts int
	// Coins is the coins minted per contract, each of CoinAmount. Every
	// intent is of amount 1: with coins of 1 it spends one coin and
	// creates one, so the states held stay Coins (the coordinator ships
	// its whole domain context in every AssembleRequest, so more states
	// cost wall time per intent), and speculative chaining spends
	// unconfirmed outputs, so no intent parks. Defaults to 2,000 of 1.
	Coins      int
	CoinAmount uint64
	// Latency is every message's network delay, drawn uniformly. Defaults
	// to simnet's, 1 to 5 ms.
	Latency simnet.Dist
	// Tick is how often each core gets a tick. Defaults to 100ms.
	Tick time.Duration
	// Seed seeds the cluster. Defaults to 1.
	Seed uint64
	// Chain is "devchain" (the default) or "evm": the processes run on an
	// evmdev chain started in this process (loopback JSON-RPC, its
	// PrivacyGroup contract, secp256k1 endorsements), with Processes
	// (Nodes when 0) processes.
	Chain string
	// Progress, when set, receives a line per block (confirmations, sends
	// by kind) and a summary of where transactions waited.
	Progress io.Writer
}

func (o *DistseqOptions) defaults() error {
	switch o.Chain {
	case "", "devchain":
		o.Chain = "devchain"
	case "evm":
		if o.Processes == 0 {
			o.Processes = cmpInt(o.Nodes, 4)
		}
	default:
		return fmt.Errorf("bench distseq: chain %q: devchain or evm", o.Chain)
	}
	if o.Processes > 0 {
		o.Nodes = o.Processes
		if o.Contracts > 1 {
			return fmt.Errorf("bench distseq: --processes runs one privacy group, not %d contracts", o.Contracts)
		}
		if o.Batch <= 0 {
			o.Batch = 50 * time.Millisecond
		}
	}
	o.Nodes = cmpInt(o.Nodes, 4)
	o.SendersPerNode = cmpInt(o.SendersPerNode, 50)
	o.Contracts = cmpInt(o.Contracts, 1)
	o.Coins = cmpInt(o.Coins, 2000)
	if o.CoinAmount == 0 {
		o.CoinAmount = 1
	}
	if o.BlockTime <= 0 {
		o.BlockTime = time.Second
	}
	if o.RangeSize == 0 {
		o.RangeSize = 10
	}
	if o.Rate <= 0 {
		o.Rate = 0.75
	}
	if o.Latency == (simnet.Dist{}) {
		o.Latency = simnet.DefaultLatency
	}
	if o.Tick <= 0 {
		o.Tick = 100 * time.Millisecond
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	need := time.Duration(2*o.RangeSize+distseqWarmup+1) * o.BlockTime
	if o.Duration <= 0 {
		o.Duration = time.Duration(3*o.RangeSize+5) * o.BlockTime
	} else if o.Duration < need {
		return fmt.Errorf("bench distseq: --duration %s crosses fewer than 2 range boundaries (n=%d, block %s): give at least %s", o.Duration, o.RangeSize, o.BlockTime, need)
	}
	if o.Drain <= 0 {
		o.Drain = 60 * o.BlockTime
	}
	if o.Processes > 0 && o.PollEvery <= 0 {
		o.PollEvery = max(o.BlockTime/10, time.Millisecond)
	}
	return nil
}

// distseqWarmup is how many blocks after the first submission are left out
// of the steady rate (the pipeline fills).
const distseqWarmup = 3

// DistseqResult is what the distributed-sequencer benchmark measured.
type DistseqResult struct {
	Opts DistseqOptions
	// Submitted counts intents acknowledged; Refused those a node refused;
	// Confirmed those confirmed on chain (each at most once: Doubles
	// counts any confirmed twice); Parks the times a sender parked one.
	Submitted, Refused, Confirmed, Doubles, Parks int
	// Rate is intents confirmed per virtual second over the submission
	// window's blocks.
	Rate float64
	// PerBlock is the steady rate: the median of intents confirmed per
	// block, the blocks around range boundaries left out.
	PerBlock float64
	// P50 and P99 are blocks from submission to the sender's Confirmed
	// (its indexed height then); on processes, from the head when the
	// node acknowledged the intent to the block whose IntentConfirmed
	// event confirmed it on chain.
	P50, P99 uint64
	// Dip is the most blocks around one range boundary whose
	// confirmations fell below half the steady rate; DipAt is that
	// boundary's height and Boundaries how many the window crossed.
	Dip, DipAt, Boundaries int
	// PerHeight is the intents confirmed in each block of the run.
	PerHeight map[uint64]int
	// Wall is the run's wall time (cluster built, or processes started,
	// to last confirmation); HeapPeak the largest HeapInuse sampled once
	// per block, or on processes the sum of the node and devchain
	// processes' peak RSS (VmHWM; 0 without /proc).
	Wall     time.Duration
	HeapPeak uint64
	// Wait is the mean virtual time a transaction spent in each state, by
	// "role/state"; Sent the messages sent in all, by kind.
	Wait map[string]time.Duration
	Sent map[string]int
}

// String is the benchmark's one line of figures. A run on processes
// names them ("4 processes"), its wall time and the processes' summed
// peak RSS where the cluster's line has the virtual time and the heap.
func (r DistseqResult) String() string {
	o := r.Opts
	who, mem, clk := fmt.Sprintf("%d nodes", o.Nodes), "heap "+MiB(r.HeapPeak), "virtual"
	net := fmt.Sprintf("net latency %s-%s, tick %s, seed %d", o.Latency.Min, o.Latency.Max, o.Tick, o.Seed)
	if o.Processes > 0 {
		who, mem, clk = fmt.Sprintf("%d processes", o.Processes), "rss "+MiB(r.HeapPeak), "wall"
		net = fmt.Sprintf("gRPC+mTLS on loopback, ptx_sendTransactions every %s, indexer poll %s", o.Batch, o.PollEvery)
		if o.Chain == "evm" {
			net += ", simulated EVM chain"
		}
	}
	return fmt.Sprintf("distseq: %s x %d senders, range n=%d blocks, block %s: confirmed %.0f intents/s, %.0f intents per block (steady), p50 %d blocks p99 %d blocks submit->Confirmed, switchover dip %d blocks below half the steady rate; wall %.1f s, %s [rate %g/s per sender open loop, %s %s, %d contract(s), %d coins of %d, %s; %d submitted, %d refused, %d confirmed, %d parked, %d boundaries]",
		who, o.SendersPerNode, o.RangeSize, o.BlockTime, r.Rate, r.PerBlock, r.P50, r.P99, r.Dip, r.Wall.Seconds(), mem,
		o.Rate, o.Duration, clk, o.Contracts, o.Coins, o.CoinAmount, net, r.Submitted, r.Refused, r.Confirmed, r.Parks, r.Boundaries)
}

// distseqRun is one benchmark run: the cluster and what it observed.
type distseqRun struct {
	o DistseqOptions
	c *cluster.Cluster
	// submitH is the head when each intent was acknowledged; doneH the
	// sender's indexed height when it turned Confirmed.
	submitH map[string]uint64
	doneH   map[string]uint64
	// entered is when a (role, tx) entered its current state; waited and
	// waits sum and count the time spent per "role/state".
	entered map[string]time.Time
	waited  map[string]time.Duration
	waits   map[string]int
	heap    uint64
	parks   int
}

func newDistseqRun(ctx context.Context, o DistseqOptions) (*distseqRun, error) {
	r := &distseqRun{o: o, submitH: map[string]uint64{}, doneH: map[string]uint64{},
		entered: map[string]time.Time{}, waited: map[string]time.Duration{}, waits: map[string]int{}}
	c, err := cluster.New(ctx, cluster.Config{Nodes: o.Nodes, Seed: o.Seed, Contracts: o.Contracts, Coins: o.Coins, CoinAmount: o.CoinAmount,
		BlockTime: o.BlockTime, Tick: o.Tick, Net: simnet.Config{Latency: o.Latency}, Core: distseq.CoreConfig{RangeSize: o.RangeSize}, OnStep: r.onStep})
	if err != nil {
		return nil, err
	}
	r.c = c
	return r, nil
}

// onStep records each transition's time (for the waits) and each sender
// Confirmed's height; it never crashes a node.
func (r *distseqRun) onStep(n *cluster.Node, _ distseq.Input, rd *distseq.Ready) cluster.Crash {
	if r.c == nil {
		return cluster.NoCrash
	}
	now := r.c.Now()
	for _, t := range rd.Transitions {
		k := string(n.ID) + "/" + t.Role.String() + "/" + t.TxID
		if at, ok := r.entered[k]; ok {
			s := t.Role.String() + "/" + string(t.From)
			r.waited[s] += now.Sub(at)
			r.waits[s]++
		}
		if t.To.Final() || t.To == distseq.CAbandoned || t.To == distseq.CDispatched {
			delete(r.entered, k)
		} else {
			r.entered[k] = now
		}
		if t.Role == distseq.RoleSender && t.To == distseq.Parked {
			r.parks++
		}
		if t.Role == distseq.RoleSender && t.To == distseq.Confirmed {
			if _, ok := r.doneH[t.TxID]; !ok {
				r.doneH[t.TxID] = n.Height()
			}
		}
	}
	return cluster.NoCrash
}

// submit hands the intent of global submission k to its sender's node.
func (r *distseqRun) submit(ctx context.Context, k int) error {
	o := r.o
	node := r.c.Nodes()[k%o.Nodes]
	sender := (k / o.Nodes) % o.SendersPerNode
	group := cluster.Group((k / (o.Nodes * o.SendersPerNode)) % o.Contracts)
	id, err := r.c.Submit(ctx, node.ID, group, token.Intent{To: fmt.Sprintf("%s-u%d", node.ID, sender), Amount: 1}, "")
	if err != nil {
		return err
	}
	r.submitH[id] = r.c.Head()
	return nil
}

// coordinators names the nodes coordinating each contract now, and how
// many transactions each holds.
func (r *distseqRun) coordinators() string {
	var parts []string
	for i := range r.o.Contracts {
		g := cluster.Group(i)
		for _, n := range r.c.Nodes() {
			if n.Up() && n.Core().Coordinating(g) {
				parts = append(parts, fmt.Sprintf("%s:%s(%d)", g, n.ID, len(n.Core().Coordinated(g))))
			}
		}
	}
	return strings.Join(parts, " ")
}

// sampleHeap keeps the largest HeapInuse seen.
func (r *distseqRun) sampleHeap() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	r.heap = max(r.heap, ms.HeapInuse)
}

// sent sums the messages every node sent, by kind.
func (r *distseqRun) sent() map[string]int {
	out := map[string]int{}
	for _, n := range r.c.Nodes() {
		for k, v := range n.Sent {
			out[k] += v
		}
	}
	return out
}

// Distseq runs the distributed-sequencer benchmark: a cluster of Nodes on
// one virtual clock, SendersPerNode users per node each submitting Rate
// intents/s (amount 1) open loop for Duration, then waits up to Drain for
// every intent to be confirmed, and measures the chain's confirmations per
// block, the senders' latency and the dip at each range boundary. With
// Processes > 0 it runs the same workload on processes (distseqProcs).
func Distseq(ctx context.Context, o DistseqOptions) (DistseqResult, error) {
	if err := o.defaults(); err != nil {
		return DistseqResult{Opts: o}, err
	}
	if o.Processes > 0 {
		return distseqProcs(ctx, o)
	}
	res := DistseqResult{Opts: o}
	t0 := wall.Now()
	r, err := newDistseqRun(ctx, o)
	if err != nil {
		return res, err
	}
	c := r.c
	defer c.Close()
	// Let every node index the deployment and start.
	if err := c.RunFor(ctx, 2*o.BlockTime); err != nil {
		return res, err
	}
	start := c.Now()
	startH := c.Head()
	total := float64(o.Nodes * o.SendersPerNode)
	interval := time.Duration(float64(time.Second) / (total * o.Rate))
	if interval <= 0 {
		return res, errors.New("bench distseq: the offered rate is above one intent per nanosecond")
	}
	lastH, lastSent := c.Head(), r.sent()
	progress := func() {
		h := c.Head()
		if h == lastH {
			return
		}
		r.sampleHeap()
		if o.Progress != nil {
			sent := r.sent()
			var kinds []string
			for _, k := range slices.Sorted(maps.Keys(sent)) {
				if d := sent[k] - lastSent[k]; d > 0 {
					kinds = append(kinds, fmt.Sprintf("%s=%d", k, d))
				}
			}
			fmt.Fprintf(o.Progress, "block %d: submitted %d, confirmed %s in block; coordinator %s; sent %s\n", h, len(r.submitH), confirmedIn(c, h), r.coordinators(), strings.Join(kinds, " "))
			lastSent = sent
		}
		lastH = h
	}
	for k := 0; ; k++ {
		at := start.Add(time.Duration(k) * interval)
		if !at.Before(start.Add(o.Duration)) {
			break
		}
		if d := at.Sub(c.Now()); d > 0 {
			if err := c.RunFor(ctx, d); err != nil {
				return res, err
			}
			progress()
		}
		if err := r.submit(ctx, k); err != nil {
			res.Refused++
			if res.Refused == 1 && o.Progress != nil {
				fmt.Fprintf(o.Progress, "refused: %v\n", err)
			}
		}
	}
	if err := c.RunFor(ctx, start.Add(o.Duration).Sub(c.Now())); err != nil {
		return res, err
	}
	endH := c.Head()
	deadline := c.Now().Add(o.Drain)
	for c.Now().Before(deadline) && len(r.doneH) < len(r.submitH) {
		if _, err := c.RunUntil(ctx, o.BlockTime, func() bool { return len(r.doneH) >= len(r.submitH) }); err != nil {
			return res, err
		}
		progress()
	}
	res.Wall = wall.Now().Sub(t0)
	r.sampleHeap()
	res.HeapPeak = r.heap
	r.measure(&res, startH, endH)
	return res, nil
}

// confirmedIn counts the intents the chain confirmed in block h, in all
// and by sender node (a transaction id starts with its sender's id).
func confirmedIn(c *cluster.Cluster, h uint64) string {
	n, by := 0, map[string]int{}
	for id, at := range c.ConfirmedAt {
		if at == h {
			n++
			node, _, _ := strings.Cut(id, "-")
			by[node]++
		}
	}
	parts := make([]string, 0, len(by))
	for _, k := range slices.Sorted(maps.Keys(by)) {
		parts = append(parts, fmt.Sprintf("%s=%d", k, by[k]))
	}
	return fmt.Sprintf("%d (%s)", n, strings.Join(parts, " "))
}

// measure turns what the cluster observed into figures (distseqStats)
// and adds what only the cluster sees: waits per state, messages, parks.
// The latency's end is the sender's Confirmed: its indexed height then.
func (r *distseqRun) measure(res *DistseqResult, startH, endH uint64) {
	distseqStats(res, distseqObs{submitH: r.submitH, doneH: r.doneH, confirmedAt: r.c.ConfirmedAt, confirmed: r.c.Confirmed}, startH, endH)
	res.Wait = map[string]time.Duration{}
	for s, d := range r.waited {
		res.Wait[s] = d / time.Duration(r.waits[s])
	}
	res.Sent = r.sent()
	res.Parks = r.parks
}

// distseqObs is what a run observed, in block heights: the input of the
// statistics both runs (in process and on processes) share.
type distseqObs struct {
	// submitH is the head when each acknowledged intent was acknowledged;
	// doneH the height at which it counts as confirmed (the run says which
	// end it takes).
	submitH, doneH map[string]uint64
	// confirmedAt is the height of the block that confirmed each txId;
	// confirmed counts the IntentConfirmed events per "group/txId".
	confirmedAt map[string]uint64
	confirmed   map[string]int
}

// distseqStats fills res's Submitted, Confirmed, Doubles, PerHeight,
// Rate, PerBlock, P50, P99, Dip, DipAt and Boundaries from ob; res.Opts
// must hold the run's options (RangeSize, BlockTime). The window is the
// blocks (startH+warmup, endH]; a boundary is a height b with b%n == 0 in
// it; the blocks "around" b are b-1 .. b+2 for the steady rate, and the
// dip counts the blocks in b-1 .. b+n/2 below half the steady rate.
func distseqStats(res *DistseqResult, ob distseqObs, startH, endH uint64) {
	o := res.Opts
	res.Submitted = len(ob.submitH)
	res.PerHeight = map[uint64]int{}
	for id, at := range ob.confirmedAt {
		if _, ok := ob.submitH[id]; ok {
			res.PerHeight[at]++
		}
	}
	res.Confirmed, res.Doubles = 0, 0
	for _, v := range ob.confirmed {
		res.Confirmed++
		if v > 1 {
			res.Doubles++
		}
	}
	from, n := startH+distseqWarmup+1, o.RangeSize
	var boundaries []uint64
	for b := (from + n - 1) / n * n; b <= endH; b += n {
		if b >= from+1 {
			boundaries = append(boundaries, b)
		}
	}
	res.Boundaries = len(boundaries)
	near := func(h uint64) bool {
		for _, b := range boundaries {
			if h+1 >= b && h <= b+2 {
				return true
			}
		}
		return false
	}
	var steady []int
	sum := 0
	for h := from; h <= endH; h++ {
		sum += res.PerHeight[h]
		if !near(h) {
			steady = append(steady, res.PerHeight[h])
		}
	}
	if endH >= from {
		res.Rate = float64(sum) / (float64(endH-from+1) * o.BlockTime.Seconds())
	}
	res.PerBlock = median(steady)
	half := res.PerBlock / 2
	for _, b := range boundaries {
		dip := 0
		for h := b - 1; h <= b+max(n/2, 2) && h <= endH; h++ {
			if float64(res.PerHeight[h]) < half {
				dip++
			}
		}
		if dip > res.Dip || res.DipAt == 0 {
			res.Dip, res.DipAt = dip, int(b)
		}
	}
	var lat []uint64
	for id, h := range ob.submitH {
		if d, ok := ob.doneH[id]; ok {
			lat = append(lat, d-min(d, h))
		}
	}
	slices.Sort(lat)
	if len(lat) > 0 {
		res.P50 = lat[len(lat)/2]
		res.P99 = lat[min(len(lat)-1, len(lat)*99/100)]
	}
}

func median(v []int) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	sort.Ints(s)
	if len(s)%2 == 1 {
		return float64(s[len(s)/2])
	}
	return float64(s[len(s)/2-1]+s[len(s)/2]) / 2
}

// Diagnosis is the run's detail for a reader chasing a figure: the
// intents confirmed per block, the mean wait per state and the messages
// sent by kind.
func (r DistseqResult) Diagnosis() string {
	var b strings.Builder
	hs := slices.Sorted(maps.Keys(r.PerHeight))
	b.WriteString("confirmed per block:")
	for _, h := range hs {
		mark := ""
		if h%r.Opts.RangeSize == 0 {
			mark = "|"
		}
		fmt.Fprintf(&b, " %s%d:%d", mark, h, r.PerHeight[h])
	}
	if r.Opts.Processes > 0 {
		b.WriteString("\n(waits per state and messages by kind are the in-process cluster's: see each node's metrics and log)")
	} else {
		b.WriteString("\nmean wait per state:")
		for _, s := range slices.Sorted(maps.Keys(r.Wait)) {
			fmt.Fprintf(&b, " %s=%s", s, r.Wait[s].Round(time.Millisecond))
		}
		b.WriteString("\nsent by kind:")
		for _, k := range slices.Sorted(maps.Keys(r.Sent)) {
			fmt.Fprintf(&b, " %s=%d", k, r.Sent[k])
		}
	}
	fmt.Fprintf(&b, "\nworst dip at boundary %d; %d intents confirmed twice", r.DipAt, r.Doubles)
	return b.String()
}
