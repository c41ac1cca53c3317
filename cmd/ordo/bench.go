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
	cmd.AddCommand(dc, sq)
	return cmd
}
