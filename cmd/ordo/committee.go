package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/committee"
)

func committeeCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "committee",
		Short: "Set up a committee of ordo nodes (the distributed sequencer's members)",
	}
	cmd.AddCommand(committeeInitCommand(), committeeDeployCommand())
	return cmd
}

func committeeInitCommand() *cobra.Command {
	o := committee.Options{}
	var evmConfig string
	var senderKeys []string
	cmd := &cobra.Command{
		Use:   "init --nodes N --out DIR [--chain URL] [--base-port P] [--api-base-port Q] [--host H] [--validity D] [--range-size N] [--poll-every D] [--replication [--ack-after N] [--unhealthy-after D] [--monitor-every D] [--mapping-every D]] [--force]",
		Short: "Write the keys, certificates, tokens and configs of a local committee of N nodes",
		Long: `init writes, for each node i of a local committee (i from 1), into DIR/node<i>/:
node.key (its ed25519 identity key, 0600), node.crt (its self-signed TLS certificate),
token (its API token in clear, 0600) and node.yaml: the API on HOST:Q+i-1, the data in
DIR/node<i>/data, the chain, a principal "admin" holding the token's SHA-256, one dev
sender, and distseq: the key, the certificate, gRPC on HOST:P+i-1 and every other node
as a peer pinned by id, endpoint and certificate fingerprint. It deploys nothing and
starts nothing: it prints each node and the command that starts it. An existing
non-empty DIR is refused unless --force, which writes over the files init makes and
deletes nothing (remove DIR/node<i>/data yourself for a fresh start). --range-size
and --poll-every, when set, go into every node's distseq: (rangeSize, pollEvery).
--replication turns on the replication of each node's queues (replication: enabled,
and distseq: registry, as replica sets name registered nodes); --ack-after,
--unhealthy-after, --monitor-every and --mapping-every, when set, go into every
node's replication: (ackAfter, unhealthyAfter, monitorEvery, mappingEvery).
--evm-config puts every node on an EVM chain instead of --chain: the file's evm:
section (ordo evmdev --data DIR writes DIR/evm.yaml), with node i sending from the
i-th key file of --sender-keys.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Now = clock.Real{}.Now().UTC().Truncate(time.Second)
			chainName := o.Chain + " (ordo devchain)"
			if evmConfig != "" {
				s, err := committee.ReadEVMSection(evmConfig)
				if err != nil {
					return err
				}
				o.EVM = &committee.EVM{Section: s, SenderKeys: senderKeys}
				chainName = "the EVM chain of " + evmConfig
			} else if len(senderKeys) > 0 {
				return fmt.Errorf("--sender-keys needs --evm-config")
			}
			ms, err := committee.Init(o)
			if err != nil {
				return err
			}
			return printCommittee(cmd.OutOrStdout(), chainName, ms)
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.Nodes, "nodes", 0, fmt.Sprintf("the committee's size (1 to %d)", committee.MaxNodes))
	f.StringVar(&o.Out, "out", "", "the output directory (node i goes to DIR/node<i>)")
	f.StringVar(&o.Chain, "chain", committee.DefaultChain, "the chain every node uses (ordo devchain's default address)")
	f.StringVar(&o.Host, "host", committee.DefaultHost, "the address every node listens on")
	f.IntVar(&o.BasePort, "base-port", committee.DefaultBasePort, "node 1's gRPC port (node i: P+i-1)")
	f.IntVar(&o.APIBasePort, "api-base-port", committee.DefaultAPIBasePort, "node 1's API port (node i: Q+i-1)")
	f.DurationVar(&o.Validity, "validity", committee.DefaultValidity, "how long the certificates are valid")
	f.BoolVar(&o.Force, "force", false, "write into a non-empty DIR, over the files init makes")
	f.Uint64Var(&o.RangeSize, "range-size", 0, "blocks per coordinator range in every node's config (0: the node's default, 100)")
	f.DurationVar(&o.PollEvery, "poll-every", 0, "how often every node's indexer reads the chain (0: the node's default, 500ms)")
	f.BoolVar(&o.Replication, "replication", false, "replicate each node's queues (replication.enabled, distseq.registry)")
	f.IntVar(&o.AckAfter, "ack-after", 0, fmt.Sprintf("secondaries holding an intent before it is acknowledged, 0 to %d (0: the node's default, 0)", committee.MaxAckAfter))
	f.DurationVar(&o.UnhealthyAfter, "unhealthy-after", 0, "how long a replica-set member is unanswered before it is replaced (0: the node's default, 30s)")
	f.DurationVar(&o.MonitorEvery, "monitor-every", 0, "the pause between two monitoring slices (0: the node's default, 1s)")
	f.DurationVar(&o.MappingEvery, "mapping-every", 0, "how often the node registry is read again (0: the node's default, 10m)")
	f.StringVar(&evmConfig, "evm-config", "", "a file with the evm: section of an EVM chain (with evm.contracts.privacygroup) to use instead of --chain")
	f.StringSliceVar(&senderKeys, "sender-keys", nil, "with --evm-config: one sender key file per node, comma-separated (node i: the i-th)")
	_ = cmd.MarkFlagRequired("nodes")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

// printCommittee prints one line per node and the commands to start them.
func printCommittee(w io.Writer, chain string, ms []committee.Member) error {
	for _, m := range ms {
		if _, err := fmt.Fprintf(w, "node%d  id %s  api %s  grpc %s  config %s\n", m.Index, m.ID, m.API, m.GRPC, m.Config); err != nil {
			return err
		}
	}
	if _, err := fmt.Fprintf(w, "\nWith %s running, start each node (its API token is in DIR/node<i>/token):\n", chain); err != nil {
		return err
	}
	for _, m := range ms {
		if _, err := fmt.Fprintf(w, "  ordo serve --config %s\n", m.Config); err != nil {
			return err
		}
	}
	return nil
}
