package main

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/spf13/cobra"

	"github.com/ordolabs/ordo/internal/chain/evm/evmdev"
)

// envEVMPassword holds a keystore key file's password when no
// --password-file is given.
const envEVMPassword = "ORDO_EVM_PASSWORD"

// evmCommand is `ordo evm`: tools for EVM chains.
func evmCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "evm",
		Short: "Tools for EVM chains",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(evmDeployCommand())
	return cmd
}

func evmDeployCommand() *cobra.Command {
	var (
		url, keyFile, passwordFile string
		submitters                 []string
		voting, library, pg        bool
		leader, replication        bool
		leaderCaps                 []string
		chainID                    uint64
		timeout                    time.Duration
	)
	cmd := &cobra.Command{
		Use:   "deploy --url URL --key-file FILE [--submitter 0x…]... [--voting] [--library] [--leader [--leader-cap 0x…]...] [--replication] [--privacygroup]",
		Short: "Deploy ordo's contracts (OrdoRouter, and Voting, Library) to an EVM chain and print the node config's evm: section",
		Long: `Deploy OrdoRouter (and Voting with --voting, Library with --library, Workflow and ToolRegistry with --leader,
NodeRegistry and ReplicaSets with --replication, PrivacyGroup with --privacygroup) from the account of --key-file,
which becomes the router's owner and a submitter, authorize each --submitter,
wait for the receipts, check the code is on chain, and print the addresses and
the node config's evm: section. The deployer is the workflow's admin; each
--leader-cap account is granted one leader cap. Fees are the chain's suggested ones.

--key-file is a raw key file (64 hex digits) or a Web3 Secret Storage keystore
file (geth's), whose password is the first line of --password-file or else
$ORDO_EVM_PASSWORD.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			var subs []common.Address
			for _, s := range submitters {
				if !common.IsHexAddress(s) || !strings.HasPrefix(s, "0x") {
					return fmt.Errorf("--submitter %q: want 0x and 40 hex digits", s)
				}
				subs = append(subs, common.HexToAddress(s))
			}
			var caps []common.Address
			for _, s := range leaderCaps {
				if !common.IsHexAddress(s) || !strings.HasPrefix(s, "0x") {
					return fmt.Errorf("--leader-cap %q: want 0x and 40 hex digits", s)
				}
				caps = append(caps, common.HexToAddress(s))
			}
			if len(caps) > 0 && !leader {
				return errors.New("--leader-cap grants a cap on the workflow --leader deploys: add --leader")
			}
			key, err := readEVMKey(keyFile, passwordFile)
			if err != nil {
				return err
			}
			cl, err := ethclient.DialContext(ctx, url)
			if err != nil {
				return fmt.Errorf("--url %s: %w", url, err)
			}
			defer cl.Close()
			d, err := evmdev.Deploy(ctx, cl, evmdev.DeployConfig{Key: key, Submitters: subs, Voting: voting, Library: library,
				Leader: leader, LeaderCaps: caps, Replication: replication, PrivacyGroup: pg, ChainID: chainID, Timeout: timeout})
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "chain id  %d\n", d.ChainID)
			fmt.Fprintf(w, "owner     %s\n", evmdev.AddressString(d.Owner))
			fmt.Fprintf(w, "router    %s (block %d)\n", evmdev.AddressString(d.Router), d.Block)
			if voting {
				fmt.Fprintf(w, "voting    %s\n", evmdev.AddressString(d.Voting))
			}
			if library {
				fmt.Fprintf(w, "library   %s\n", evmdev.AddressString(d.Library))
			}
			if leader {
				fmt.Fprintf(w, "workflow  %s (admin: the owner)\n", evmdev.AddressString(d.Workflow))
				fmt.Fprintf(w, "registry  %s\n", evmdev.AddressString(d.Registry))
				for _, a := range caps {
					fmt.Fprintf(w, "leader    %s (one cap)\n", evmdev.AddressString(a))
				}
			}
			if replication {
				fmt.Fprintf(w, "nodes     %s\nreplicasets %s\n", evmdev.AddressString(d.Nodes), evmdev.AddressString(d.ReplicaSets))
			}
			if pg {
				fmt.Fprintf(w, "privacygroup %s\n", evmdev.AddressString(d.PrivacyGroup))
			}
			for _, s := range d.Submitters {
				fmt.Fprintf(w, "submitter %s\n", evmdev.AddressString(s))
			}
			fmt.Fprintf(w, "\nnode config:\n%s", evmdev.ConfigYAML([]string{url}, d.ChainID, d.Router, d.Voting, d.Library, d.Extra()...))
			return nil
		},
	}
	cmd.Flags().StringVar(&url, "url", "", "the chain's JSON-RPC URL (http://, https://, ws:// or wss://)")
	cmd.Flags().StringVar(&keyFile, "key-file", "", "the deployer's key: a raw hex key file or a keystore (Web3 Secret Storage) file")
	cmd.Flags().StringVar(&passwordFile, "password-file", "", "a file whose first line is the keystore file's password (else $"+envEVMPassword+")")
	cmd.Flags().StringArrayVar(&submitters, "submitter", nil, "an account the router authorizes besides the deployer (repeatable)")
	cmd.Flags().BoolVar(&voting, "voting", false, "also deploy Voting, the demo's contract")
	cmd.Flags().BoolVar(&pg, "privacygroup", false, "also deploy PrivacyGroup, the distributed sequencer's base ledger")
	cmd.Flags().BoolVar(&library, "library", false, "also deploy Library, the processor's test target (methods that fail on demand)")
	cmd.Flags().BoolVar(&leader, "leader", false, "also deploy Workflow and ToolRegistry, the leader's contracts (the deployer is the workflow's admin)")
	cmd.Flags().StringArrayVar(&leaderCaps, "leader-cap", nil, "with --leader: an account granted one leader cap (repeatable)")
	cmd.Flags().BoolVar(&replication, "replication", false, "also deploy NodeRegistry and ReplicaSets, replicated queues' contracts")
	cmd.Flags().Uint64Var(&chainID, "chain-id", 0, "refuse a chain whose id is not this one (0: any)")
	cmd.Flags().DurationVar(&timeout, "timeout", evmdev.DefaultDeployTimeout, "how long to wait for the deployments to be mined")
	_ = cmd.MarkFlagRequired("url")
	_ = cmd.MarkFlagRequired("key-file")
	return cmd
}

// readEVMKey reads the key of keyFile, a keystore file's password from the
// first line of passwordFile, else from $ORDO_EVM_PASSWORD.
func readEVMKey(keyFile, passwordFile string) (*ecdsa.PrivateKey, error) {
	data, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, fmt.Errorf("--key-file: %w", err)
	}
	password := os.Getenv(envEVMPassword)
	if passwordFile != "" {
		b, err := os.ReadFile(passwordFile)
		if err != nil {
			return nil, fmt.Errorf("--password-file: %w", err)
		}
		password, _, _ = strings.Cut(string(b), "\n")
		password = strings.TrimSuffix(password, "\r")
	}
	k, err := evmdev.ParseKey(data, password)
	if errors.Is(err, evmdev.ErrKeyPassword) {
		return nil, fmt.Errorf("--key-file %s: %w (give it with --password-file or $%s)", keyFile, err, envEVMPassword)
	}
	if err != nil {
		return nil, fmt.Errorf("--key-file %s: %w", keyFile, err)
	}
	return k, nil
}
