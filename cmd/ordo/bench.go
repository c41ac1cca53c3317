package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/ordolabs/ordo/internal/bench"
)

func benchCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "bench", Short: "Run a benchmark; each ends with one line of figures"}
	var dopts bench.DevchainOptions
	dc := &cobra.Command{
		Use:   "devchain",
		Short: "Transactions devchain includes per second at full blocks, and peak RSS",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := bench.Devchain(cmd.Context(), dopts)
			if err != nil {
				return err
			}
			fmt.Println(r)
			return nil
		},
	}
	dc.Flags().IntVar(&dopts.Txs, "txs", 200_000, "transactions to include")
	dc.Flags().IntVar(&dopts.BlockTxs, "block-txs", 1000, "transactions per block")
	dc.Flags().IntVar(&dopts.Accounts, "accounts", 2000, "sending accounts")
	var sopts bench.SequencerOptions
	var quiet bool
	sq := &cobra.Command{
		Use:   "sequencer",
		Short: "A node and an in-process chain (devchain, or a simulated EVM with --chain evm) under HTTP load: intake, throughput, slot use, latencies, fees, peak RSS",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !quiet {
				sopts.Progress = os.Stderr
			}
			r, err := bench.Sequencer(cmd.Context(), sopts)
			if err != nil {
				return err
			}
			fmt.Println(r)
			return nil
		},
	}
	sq.Flags().IntVar(&sopts.Queues, "queues", 500, "queues")
	sq.Flags().IntVar(&sopts.Senders, "senders", 500, "senders")
	sq.Flags().IntVar(&sopts.Txs, "txs", 20_000, "transactions")
	sq.Flags().DurationVar(&sopts.BlockTime, "block-time", 250*time.Millisecond, "devchain block time")
	sq.Flags().IntVar(&sopts.Clients, "clients", 64, "concurrent HTTP clients")
	sq.Flags().IntVar(&sopts.Batch, "batch", 1, "intents per request: more than 1 posts them as an array to POST /v1/transactions (at most 1000)")
	sq.Flags().StringVar(&sopts.Chain, "chain", "devchain", "devchain (in-process), or evm: an in-process simulated EVM chain (calls of its Voting contract through the router; --senders at most 999)")
	sq.Flags().BoolVarP(&quiet, "quiet", "q", false, "only the final line")
	cmd.AddCommand(dc, sq, benchProcessorCommand(), benchLeaderCommand())
	cmd.AddCommand(benchDistseqCommand())
	cmd.AddCommand(benchSMMCommand())
	cmd.AddCommand(benchBurndownCommand())
	cmd.AddCommand(benchRecoveryCommand(), benchRecoveryChildCommand())
	return cmd
}

func benchRecoveryCommand() *cobra.Command {
	var o bench.RecoveryOptions
	var quiet bool
	rc := &cobra.Command{
		Use:   "recovery",
		Short: "A restart over a backlog: N WAITING intents over Q queues, time to the first dispatch and peak RSS of the restarted process",
		Long: `Fill a store with --intents WAITING intents over --queues queues (Store.Enqueue in
batches, directly; the fill is not measured), then run this binary again as a fresh
process (so the fill's memory is not counted) that opens the store and starts a node
on it with --senders keystore senders, a no-op dispatcher and the burndown's instant
chain. Print, on one line, the time from that process's exec to its first
transaction reaching the chain, and its peak RSS (VmHWM) once every queue has
dispatched once, each next to its target (2 s, 512 MiB) with pass or FAIL.
--store postgres uses --postgres (an empty database), or starts a throwaway cluster
and removes it after. --memprofile and --cpuprofile are written by the restarted
process (the heap when its peak RSS is read; the CPU from its start to then).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !quiet {
				o.Progress = os.Stderr
			}
			r, err := bench.Recovery(cmd.Context(), o)
			if err != nil {
				return err
			}
			fmt.Println(r)
			return nil
		},
	}
	rc.Flags().StringVar(&o.Store, "store", bench.StoreSQLite, "sqlite or postgres")
	rc.Flags().IntVar(&o.Intents, "intents", 1_000_000, "WAITING intents at the restart (N)")
	rc.Flags().IntVar(&o.Queues, "queues", 100_000, "queues the intents spread over (Q)")
	rc.Flags().IntVar(&o.Senders, "senders", 1000, "the restarted node's senders")
	rc.Flags().IntVar(&o.DataBytes, "data-bytes", 100, "each intent's JSON data, in bytes")
	rc.Flags().IntVar(&o.Batch, "batch", 10_000, "intents per Store.Enqueue in the fill")
	rc.Flags().StringVar(&o.Postgres, "postgres", "", "with --store postgres: the URL of an empty database (default: a throwaway cluster)")
	rc.Flags().StringVar(&o.Dir, "dir", "", "with --store sqlite: the directory for the database (default: a temporary one, removed after)")
	rc.Flags().IntVar(&o.Workers, "workers", 0, "the restarted node's effect workers (default: the node's default)")
	rc.Flags().DurationVar(&o.Timeout, "timeout", 5*time.Minute, "how long the restarted process waits for every queue to dispatch once")
	rc.Flags().StringVar(&o.MemProfile, "memprofile", "", "write the restarted process's heap profile to this file")
	rc.Flags().StringVar(&o.CPUProfile, "cpuprofile", "", "write the restarted process's CPU profile to this file")
	rc.Flags().BoolVarP(&quiet, "quiet", "q", false, "only the final line")
	return rc
}

// benchRecoveryChildCommand is the restarted process of bench recovery.
func benchRecoveryChildCommand() *cobra.Command {
	return &cobra.Command{
		Use:    "recovery-child",
		Short:  "The restarted process of bench recovery (not for direct use)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return bench.RecoveryChild(cmd.Context(), os.Stdout, os.Stderr)
		},
	}
}

func benchBurndownCommand() *cobra.Command {
	var o bench.BurndownOptions
	var procs, nodes []int
	var quiet bool
	var cpuprofile, memprofile string
	bc := &cobra.Command{
		Use:   "burndown",
		Short: "The engine alone on a store, no HTTP, an instant chain: N intents inserted in batches, then worked to DONE: intents/s of each phase and the whole",
		Long: `Insert --intents intents over --queues queues through the sequencer's intake
(Submit, --batch intents a call), then start a node on that store and work them all
to DONE with its real driver, a no-op dispatcher, one sender per queue and an
in-process chain that includes every transaction sent in the next block (one
confirmation). Print intents/s for the insert phase, the work phase and the whole,
and the store's durability settings (SQLite synchronous=FULL; PostgreSQL as the
server reports synchronous_commit and fsync). --store postgres uses --postgres, or
starts a throwaway cluster (as the tests do) and removes it after. --nodes runs
several nodes on the one PostgreSQL database, each with its own connections,
the queues and senders split between them.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !quiet {
				o.Progress = os.Stderr
			}
			if len(procs)*max(len(nodes), 1) > 1 && o.Postgres != "" {
				return errors.New("bench burndown: several runs (--gomaxprocs, --nodes) need an empty database each: leave --postgres out (a throwaway cluster per run)")
			}
			stopProfile, err := bench.StartCPUProfile(cpuprofile)
			if err != nil {
				return err
			}
			defer func() { _ = stopProfile() }()
			rs, err := burndownAt(cmd.Context(), o, procs, nodes)
			if err != nil {
				return err
			}
			if len(rs) > 1 {
				fmt.Println(bench.Scaling(rs))
			}
			return bench.WriteAllocsProfile(memprofile)
		},
	}
	bc.Flags().IntSliceVar(&procs, "gomaxprocs", nil, "run once at each GOMAXPROCS given (e.g. 1,2,4), each on a fresh store, and print how throughput scales (default: the process's)")
	bc.Flags().IntSliceVar(&nodes, "nodes", nil, "with --store postgres: run with each number of nodes given (e.g. 1,2), each on a fresh database, and print how throughput scales (default 1)")
	bc.Flags().StringVar(&o.Store, "store", bench.StoreSQLite, "sqlite or postgres")
	bc.Flags().IntVar(&o.Intents, "intents", 100_000, "intents inserted then worked (N)")
	bc.Flags().IntVar(&o.Queues, "queues", 1000, "queues the intents spread over (Q)")
	bc.Flags().IntVar(&o.Senders, "senders", 0, "senders (default: one per queue)")
	bc.Flags().IntVar(&o.Batch, "batch", 1000, "intents per Submit in the insert phase")
	bc.Flags().StringVar(&o.Postgres, "postgres", "", "with --store postgres: the URL of an empty database (default: a throwaway cluster)")
	bc.Flags().IntVar(&o.Workers, "workers", 0, "the node's effect workers (default: the node's default)")
	bc.Flags().IntVar(&o.InFlight, "in-flight", 1, "transactions of a queue in flight at once, nonce-ordered on its sender (the sequencer's pipelines)")
	bc.Flags().StringVar(&cpuprofile, "cpuprofile", "", "write a CPU profile of the run to this file")
	bc.Flags().StringVar(&memprofile, "memprofile", "", "write a profile of the run's allocations (pprof's allocs) to this file")
	bc.Flags().BoolVarP(&quiet, "quiet", "q", false, "only the final line")
	return bc
}

// burndownAt runs the burndown once at each GOMAXPROCS of procs (once at
// the process's when none) with each number of nodes (1 when none),
// printing each line, and restores GOMAXPROCS.
func burndownAt(ctx context.Context, o bench.BurndownOptions, procs, nodes []int) ([]bench.BurndownResult, error) {
	if len(procs) == 0 {
		procs = []int{0}
	}
	if len(nodes) == 0 {
		nodes = []int{1}
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var rs []bench.BurndownResult
	for _, p := range procs {
		if p < 0 {
			return nil, fmt.Errorf("bench burndown: --gomaxprocs %d: want at least 1", p)
		}
		if p > 0 {
			runtime.GOMAXPROCS(p)
		}
		for _, k := range nodes {
			if k < 1 {
				return nil, fmt.Errorf("bench burndown: --nodes %d: want at least 1", k)
			}
			o.Nodes = k
			r, err := bench.Burndown(ctx, o)
			if err != nil {
				return nil, err
			}
			fmt.Println(r)
			rs = append(rs, r)
		}
	}
	return rs, nil
}

func benchProcessorCommand() *cobra.Command {
	var o bench.ProcessorOptions
	var quiet bool
	pc := &cobra.Command{
		Use:   "processor",
		Short: "A node's processors with batches queued, ticked over HTTP: atomic and non-atomic batches/s, callbacks/s to a local receiver",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !quiet {
				o.Progress = os.Stderr
			}
			r, err := bench.Processor(cmd.Context(), o)
			if err != nil {
				return err
			}
			fmt.Println(r)
			return nil
		},
	}
	pc.Flags().IntVar(&o.Batches, "batches", 1000, "batches queued per kind (atomic, non-atomic)")
	pc.Flags().IntVar(&o.Lanes, "lanes", 64, "sequencer queues each processor's executions spread over")
	pc.Flags().IntVar(&o.Senders, "senders", 64, "senders")
	pc.Flags().DurationVar(&o.BlockTime, "block-time", 100*time.Millisecond, "devchain block time")
	pc.Flags().IntVar(&o.Tickers, "tickers", 8, "concurrent HTTP clients ticking")
	pc.Flags().StringVar(&o.Chain, "chain", "devchain", "devchain (in-process), or evm: an in-process simulated EVM chain (calls of its Library contract through the router; --senders at most 999)")
	pc.Flags().BoolVarP(&quiet, "quiet", "q", false, "only the final line")
	return pc
}

func benchLeaderCommand() *cobra.Command {
	var o bench.LeaderOptions
	var quiet bool
	lc := &cobra.Command{
		Use:   "leader",
		Short: "A node's leader against a standalone devchain over HTTP, a no-op tool: events/s from emission to Successful, latency in blocks",
		Long: `Run a devchain in this process, served over HTTP as a standalone one, with the
workflow initialized, a no-op tool registered (served in this process too) and one
leader cap granted to each of --channels funded accounts; then a node against it
whose leader.accounts are those accounts (key-file senders). Emit --requests
requests from --requesters accounts and wait until every event has ended; print
events/s from the first emission to the last Successful, and the p50 and p99 of
the blocks between a request's inclusion and its result's.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !quiet {
				o.Progress = os.Stderr
			}
			r, err := bench.Leader(cmd.Context(), o)
			if err != nil {
				return err
			}
			fmt.Println(r)
			return nil
		},
	}
	lc.Flags().IntVar(&o.Requests, "requests", 1000, "walks requested")
	lc.Flags().IntVar(&o.Channels, "channels", 16, "leader accounts, one leader cap (a channel) each")
	lc.Flags().IntVar(&o.Requesters, "requesters", 8, "accounts emitting the requests")
	lc.Flags().IntVar(&o.Capacity, "capacity", 0, "the node's leader.capacity (default: --requests, every request in the run queue as it is indexed)")
	lc.Flags().DurationVar(&o.BlockTime, "block-time", 100*time.Millisecond, "devchain block time")
	lc.Flags().StringVar(&o.Chain, "chain", "devchain", "devchain (standalone, over HTTP), or evm: an in-process simulated EVM chain (its Workflow and ToolRegistry; --channels + --requesters at most 999)")
	lc.Flags().BoolVarP(&quiet, "quiet", "q", false, "only the final line")
	return lc
}

func benchDistseqCommand() *cobra.Command {
	var o bench.DistseqOptions
	var quiet bool
	dc := &cobra.Command{
		Use:   "distseq",
		Short: "A committee of distributed-sequencer nodes on a virtual clock under open-loop load: intents/s and per block, latency in blocks, the dip at a switchover",
		Long: `Run a cluster of --nodes distributed-sequencer nodes, one devchain and an
in-memory network on one virtual clock (blocks are the ledger's pace; wall time is
what the run cost). --senders-per-node users per node each submit --rate intents/s
(amount 1) open loop, on a fixed schedule that never waits for a confirmation, for
--duration of virtual time (it must cross at least 2 range boundaries); then the
run waits for every intent to be confirmed. It prints the confirmed intents/s, the
steady intents per block (the median outside the blocks around range boundaries),
the p50 and p99 blocks from submission to the sender's Confirmed, and the worst
switchover dip (blocks around one boundary below half the steady rate). Without
--quiet, a line per block and a diagnosis (waits per state, messages by kind) go to
stderr.

With --processes N the same workload runs on real processes on the wall clock: a
devchain and N "ordo serve" nodes (this binary) on loopback, gRPC with mutual TLS
between them, each node's intents sent to its ptx_ JSON-RPC API as one
ptx_sendTransactions batch every --batch; --block-time, --duration and the drain
are then wall time, latency is counted from the head when a node acknowledged an
intent to the block that confirmed it on chain, and the line ends the same way.
Every process is stopped at the end, on error and on ctrl-C. --chain evm runs the
processes (--processes, or --nodes of them) on a simulated EVM chain started in
this process instead of a devchain: PrivacyGroup confirms the intents, endorsed
with secp256k1 keys.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !quiet {
				o.Progress = os.Stderr
			}
			r, err := bench.Distseq(cmd.Context(), o)
			if err != nil {
				return err
			}
			if !quiet {
				fmt.Fprintln(os.Stderr, r.Diagnosis())
			}
			fmt.Println(r)
			return nil
		},
	}
	dc.Flags().IntVar(&o.Nodes, "nodes", 4, "committee size")
	dc.Flags().StringVar(&o.Chain, "chain", "devchain", "devchain, or evm: processes on an in-process simulated EVM chain (its PrivacyGroup contract)")
	dc.Flags().IntVar(&o.Processes, "processes", 0, "run on this many ordo serve processes and a devchain on loopback, on the wall clock (0: in process)")
	dc.Flags().DurationVar(&o.Batch, "batch", 50*time.Millisecond, "with --processes: how often each node's intents that fell due are sent as one ptx_sendTransactions")
	dc.Flags().DurationVar(&o.PollEvery, "poll-every", 0, "with --processes: the nodes' indexer poll interval (default: a tenth of --block-time)")
	dc.Flags().StringVar(&o.Dir, "dir", "", "with --processes: the directory for the committee, chain and logs (default: a temporary one, removed after a run without error)")
	dc.Flags().IntVar(&o.SendersPerNode, "senders-per-node", 50, "users submitting to each node")
	dc.Flags().DurationVar(&o.BlockTime, "block-time", time.Second, "block interval (virtual; wall time with --processes)")
	dc.Flags().Uint64Var(&o.RangeSize, "range-size", 10, "n, blocks per coordinator range")
	dc.Flags().Float64Var(&o.Rate, "rate", 0.75, "intents/s per sender, open loop")
	dc.Flags().DurationVar(&o.Duration, "duration", 0, "virtual time of submissions (default: 3 ranges and 5 blocks)")
	dc.Flags().IntVar(&o.Contracts, "contracts", 1, "privacy groups the senders spread their intents over")
	dc.Flags().IntVar(&o.Coins, "coins", 2000, "coins minted per contract")
	dc.Flags().Uint64Var(&o.CoinAmount, "coin-amount", 1, "each coin's amount (intents are of amount 1)")
	dc.Flags().DurationVar(&o.Latency.Min, "latency-min", time.Millisecond, "the network's least per-message delay (virtual)")
	dc.Flags().DurationVar(&o.Latency.Max, "latency-max", 5*time.Millisecond, "the network's largest per-message delay (virtual)")
	dc.Flags().DurationVar(&o.Tick, "tick", 100*time.Millisecond, "how often each core is ticked (virtual)")
	dc.Flags().Uint64Var(&o.Seed, "seed", 1, "the cluster's seed")
	dc.Flags().BoolVarP(&quiet, "quiet", "q", false, "only the final line")
	return dc
}

func benchSMMCommand() *cobra.Command {
	var o bench.SMMOptions
	var quiet, nodeLog bool
	c := &cobra.Command{
		Use:   "smm",
		Short: "Replicated queues: a full monitoring cycle over 10,000 queues on 3 nodes, the sync lag under 1,000 intents/s, the failover time in blocks",
		Long: `Run --nodes full nodes in this process (gRPC with mutual TLS on loopback, one devchain
over HTTP, the wall clock), each a member of --queues replica sets written on chain
(every node in every set; primaries spread evenly). It prints, on one line: the
longest last full monitoring cycle among the nodes (monitor-state over slices of
--slice-size, --monitor-every between slices), the p50 and p99 sync lag (an
intent's commit on its primary to a secondary holding it, through the manual
sync) under --rate intents/s of intake, open loop, over --load-queues queues for
--load, and the failover: queue 0's primary stopped for good, then the blocks and
time until a transaction of that queue sent by the new primary is included
(--unhealthy-after bounds how soon the loss is acted on).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !quiet {
				o.Progress = os.Stderr
			}
			if nodeLog {
				o.NodeLog = os.Stderr
			}
			r, err := bench.SMM(cmd.Context(), o)
			if err != nil {
				return err
			}
			fmt.Println(r)
			return nil
		},
	}
	c.Flags().IntVar(&o.Nodes, "nodes", 3, "nodes; every queue's set holds them all")
	c.Flags().IntVar(&o.Queues, "queues", 10000, "replicated queues")
	c.Flags().IntVar(&o.SliceSize, "slice-size", 100, "queues per monitor-state job")
	c.Flags().DurationVar(&o.MonitorEvery, "monitor-every", time.Millisecond, "pause between two monitor-state slices")
	c.Flags().Float64Var(&o.Rate, "rate", 1000, "intake, intents/s, open loop")
	c.Flags().IntVar(&o.LoadQueues, "load-queues", 100, "queues the load spreads over")
	c.Flags().DurationVar(&o.Load, "load", 10*time.Second, "how long the load runs")
	c.Flags().DurationVar(&o.BlockTime, "block-time", time.Second, "devchain block interval")
	c.Flags().DurationVar(&o.UnhealthyAfter, "unhealthy-after", 2*time.Second, "how long a silent member waits to be replaced")
	c.Flags().StringVar(&o.Dir, "dir", "", "data directory (default: a temporary one, removed at the end)")
	c.Flags().BoolVarP(&quiet, "quiet", "q", false, "print only the result line")
	c.Flags().BoolVar(&nodeLog, "node-log", false, "write the nodes' warnings and errors to stderr")
	return c
}
