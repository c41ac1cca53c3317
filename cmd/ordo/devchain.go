package main

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/node"
)

// faultFlags are the devchain fault knobs as flags, filling a
// node.FaultConfig (the same knobs as the config file).
type faultFlags struct {
	cfg   node.FaultConfig
	spike string
	stall time.Duration
}

func (f *faultFlags) register(cmd *cobra.Command) {
	cmd.Flags().Float64Var(&f.cfg.RejectProb, "fault-reject", 0, "probability that a submit is rejected")
	cmd.Flags().Float64Var(&f.cfg.DropProb, "fault-drop", 0, "probability that an accepted transaction is silently dropped from the mempool")
	cmd.Flags().Float64Var(&f.cfg.RevertProb, "fault-revert", 0, "probability that a transaction reverts at inclusion")
	cmd.Flags().StringVar(&f.spike, "fault-fee-spike", "", "K:N: the minimum fee jumps ×K for N blocks from the start")
	cmd.Flags().DurationVar(&f.stall, "fault-stall", 0, "no blocks for this long from the start")
	cmd.Flags().Uint64Var(&f.cfg.ReorgEvery, "fault-reorg-every", 0, "reorg every N blocks (0: never)")
	cmd.Flags().Uint64Var(&f.cfg.ReorgDepth, "fault-reorg-depth", 1, "depth of periodic reorgs")
}

// config returns the knobs the flags set, checked.
func (f *faultFlags) config() (node.FaultConfig, error) {
	c := f.cfg
	if f.spike != "" {
		k, n, ok := strings.Cut(f.spike, ":")
		kv, err1 := strconv.ParseUint(k, 10, 64)
		nv, err2 := strconv.ParseUint(n, 10, 64)
		if !ok || err1 != nil || err2 != nil {
			return c, fmt.Errorf("--fault-fee-spike wants K:N, got %q", f.spike)
		}
		c.FeeSpike = node.FeeSpikeConfig{Factor: kv, Blocks: nv}
	}
	c.Stall = node.Duration(f.stall)
	return c, c.Update().Validate()
}

func devchainCommand() *cobra.Command {
	var (
		listen, data string
		blockTime    time.Duration
		seed         uint64
		maxBlockTxs  int
		minFee       uint64
		devAccounts  int
		faults       faultFlags
		noDevMode    bool
	)
	cmd := &cobra.Command{
		Use:   "devchain",
		Short: "Run devchain, the embedded base ledger, as its own process with its HTTP API",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fc, err := faults.config()
			if err != nil {
				return err
			}
			u := fc.Update()
			c, err := devchain.New(devchain.Config{Seed: seed, BlockTime: blockTime, MaxBlockTxs: maxBlockTxs, MinFee: minFee, DevAccounts: devAccounts, DataDir: data, Faults: u, NoDevMode: noDevMode})
			if err != nil {
				return err
			}
			defer c.Close()
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return err
			}
			log := logger(cmd)
			hd, _ := c.Head(cmd.Context())
			log.Info("devchain listening", "addr", ln.Addr().String(), "data", data, "blockTime", blockTime, "seed", seed, "height", hd.Height)
			return node.ServeHTTP(cmd.Context(), ln, devchain.NewHandler(c), c.EndSubscriptions, c.Run)
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:7545", "HTTP API address")
	cmd.Flags().StringVar(&data, "data", "", "data directory (empty: in memory, lost at exit)")
	cmd.Flags().DurationVar(&blockTime, "block-time", time.Second, "interval between blocks")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "seed of every random choice")
	cmd.Flags().IntVar(&maxBlockTxs, "max-block-txs", 1000, "most transactions per block")
	cmd.Flags().Uint64Var(&minFee, "min-fee", 1000, "minimum fee")
	cmd.Flags().IntVar(&devAccounts, "dev-accounts", 16, "funded dev accounts whose keys the chain holds")
	cmd.Flags().BoolVar(&noDevMode, "no-dev-mode", false, "no faucet, and no signing for dev accounts")
	faults.register(cmd)
	return cmd
}

// any reports whether a fault flag is set.
func (f *faultFlags) any() bool {
	return f.cfg.RejectProb != 0 || f.cfg.DropProb != 0 || f.cfg.RevertProb != 0 || f.spike != "" || f.stall != 0 || f.cfg.ReorgEvery != 0
}
