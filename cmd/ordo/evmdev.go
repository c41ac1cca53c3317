package main

import (
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/ordolabs/ordo/internal/chain/evm/evmdev"
)

func evmdevCommand() *cobra.Command {
	var (
		httpAddr, wsAddr, minTip, data string
		allowPublic                    bool
		blockTime                      time.Duration
		accounts                       int
		chainID                        uint64
	)
	cmd := &cobra.Command{
		Use:   "evmdev",
		Short: "Run a development EVM chain (go-ethereum's simulated backend) as its own process, with JSON-RPC over HTTP and WebSocket",
		Long: `Run go-ethereum's simulated chain on loopback JSON-RPC (HTTP and WebSocket),
with funded dev accounts and ordo's contracts (OrdoRouter, Voting, Library,
Workflow, ToolRegistry, NodeRegistry, ReplicaSets, PrivacyGroup) deployed,
and print the node config's evm: section. A block is sealed every --block-time.
The chain lives in memory: a restart starts a new chain.

The dev keys are keccak256("ordo/evm/dev/<i>"): public, for development only.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if blockTime < evmdev.MinBlockTime {
				return fmt.Errorf("--block-time must be at least %s (blocks come only from the timer), got %s", evmdev.MinBlockTime, blockTime)
			}
			tip, ok := new(big.Int).SetString(minTip, 10)
			if !ok {
				return fmt.Errorf("--min-tip wants a whole number of wei, got %q", minTip)
			}
			log := logger(cmd)
			c, err := evmdev.Start(cmd.Context(), evmdev.Config{
				HTTPAddr: httpAddr, WSAddr: wsAddr, AllowPublic: allowPublic, BlockTime: blockTime,
				Accounts: accounts, ChainID: chainID, MinTip: tip, KeyDir: data, Logger: log,
			})
			if errors.Is(err, evmdev.ErrNotLoopback) {
				return fmt.Errorf("%w; pass --allow-public to serve it there anyway", err)
			}
			if err != nil {
				return err
			}
			defer c.Close()
			if data != "" { // the evm: section, for ordo committee init --evm-config
				if err := os.WriteFile(filepath.Join(data, "evm.yaml"), []byte(c.Config()), 0o600); err != nil {
					return err
				}
			}
			printEVMDev(cmd.OutOrStdout(), c)
			log.Info("evmdev listening", "http", c.HTTPURL, "ws", c.WSURL, "chainId", c.ChainID, "blockTime", blockTime, "accounts", len(c.Accounts))
			<-cmd.Context().Done()
			log.Info("evmdev stopping")
			return c.Close()
		},
	}
	cmd.Flags().StringVar(&httpAddr, "http", "127.0.0.1:8545", "JSON-RPC HTTP address (port 0: a free port)")
	cmd.Flags().StringVar(&wsAddr, "ws", "127.0.0.1:8546", "JSON-RPC WebSocket address (port 0: a free port; the HTTP port: one server for both)")
	cmd.Flags().BoolVar(&allowPublic, "allow-public", false, "serve on addresses that are not loopback (anyone who reaches them can spend the dev accounts)")
	cmd.Flags().DurationVar(&blockTime, "block-time", evmdev.DefaultBlockTime, "interval between blocks (at least 50ms)")
	cmd.Flags().IntVar(&accounts, "accounts", evmdev.DefaultAccounts, "funded dev accounts (10^24 wei each)")
	cmd.Flags().Uint64Var(&chainID, "chain-id", evmdev.DefaultChainID, "the chain's id")
	cmd.Flags().StringVar(&minTip, "min-tip", "1", "least priority fee per gas (wei) of a transaction the chain includes")
	cmd.Flags().StringVar(&data, "data", "", "directory for the dev accounts' key files and evm.yaml, the config's evm: section (empty: a temporary one, removed at exit)")
	return cmd
}

// printEVMDev prints what a node needs of the chain: its URLs and id, the
// contracts, the dev accounts with their key files, and the config section.
func printEVMDev(w io.Writer, c *evmdev.Chain) {
	fmt.Fprintf(w, "ordo evmdev: a development EVM chain (its dev keys are public: development only)\n")
	fmt.Fprintf(w, "HTTP      %s\n", c.HTTPURL)
	fmt.Fprintf(w, "WS        %s\n", c.WSURL)
	fmt.Fprintf(w, "chain id  %d\n", c.ChainID)
	fmt.Fprintf(w, "router    %s (owner: dev account 0; every dev account a submitter)\n", evmdev.AddressString(c.Router))
	fmt.Fprintf(w, "voting    %s\n", evmdev.AddressString(c.Voting))
	fmt.Fprintf(w, "library   %s\n", evmdev.AddressString(c.Library))
	fmt.Fprintf(w, "workflow  %s (admin: dev account 0; every other dev account holds one leader cap)\n", evmdev.AddressString(c.Workflow))
	fmt.Fprintf(w, "registry  %s\n", evmdev.AddressString(c.Registry))
	fmt.Fprintf(w, "nodes     %s\nreplicasets %s\n", evmdev.AddressString(c.Nodes), evmdev.AddressString(c.ReplicaSets))
	fmt.Fprintf(w, "privacygroup %s\n", evmdev.AddressString(c.PrivacyGroup))
	fmt.Fprintf(w, "dev accounts (10^24 wei each; key files: raw hex, 0600):\n")
	for i, a := range c.Accounts {
		fmt.Fprintf(w, "  %d  %s  %s\n", i, evmdev.AddressString(a), c.KeyFiles[i])
	}
	fmt.Fprintf(w, "\nnode config:\n%s", c.Config())
}
