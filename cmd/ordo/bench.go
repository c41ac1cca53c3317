package main

import (
	"fmt"
	"os"
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
		Short: "A node and an in-process devchain under HTTP load: intake, throughput, slot use, latencies, peak RSS",
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
	sq.Flags().BoolVarP(&quiet, "quiet", "q", false, "only the final line")
	cmd.AddCommand(dc, sq, benchProcessorCommand(), benchLeaderCommand())
	return cmd
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
	lc.Flags().BoolVarP(&quiet, "quiet", "q", false, "only the final line")
	return lc
}
