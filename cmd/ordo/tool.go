package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/evm"
	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/node"
	"github.com/ordolabs/ordo/internal/tool"
)

// toolCommand is `ordo tool`: serve an example tool over the tool protocol
// (internal/tool), and call a tool as the leader does.
func toolCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tool",
		Short: "Serve an example tool over the tool protocol (GET /meta, GET /health, POST /invoke), or call one",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(toolServeCommand(), toolMetaCommand(), toolInvokeCommand())
	return cmd
}

func toolServeCommand() *cobra.Command {
	var (
		example, listen string
		leaders         []string
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve an example tool (" + strings.Join(tool.ExampleNames(), ", ") + ")",
		Long: "Serve an example tool over the tool protocol: GET /meta, GET /health and POST /invoke {\"input\": ...}.\n" +
			"With --require-leader, POST /invoke must be signed (Ordo-Leader, Ordo-Timestamp, Ordo-Signature) by one of\n" +
			"the listed leaders (chain addresses) within 5 minutes of this machine's clock, and never sent twice.",
		Example: "  ordo tool serve --example arith --listen 127.0.0.1:7600 --require-leader <leader address>\n" +
			`  curl -s localhost:7600/invoke -H 'Content-Type: application/json' -d '{"input":{"op":"add","a":2,"b":3}}'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log := logger(cmd)
			srv, err := newToolServer(example, leaders, tool.WithLogger(log))
			if err != nil {
				return err
			}
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return err
			}
			m := srv.Meta()
			log.Info("tool listening", "addr", ln.Addr().String(), "tool", m.Name, "version", m.Version, "requireLeader", strings.Join(leaders, ","))
			return node.ServeHTTP(cmd.Context(), ln, srv, nil)
		},
	}
	cmd.Flags().StringVar(&example, "example", "", "the example tool to serve: "+strings.Join(tool.ExampleNames(), " or "))
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:7600", "HTTP address")
	cmd.Flags().StringSliceVar(&leaders, "require-leader", nil, "leaders allowed to invoke (hex ed25519 public keys or 0x EVM addresses); signatures are required when set")
	_ = cmd.MarkFlagRequired("example")
	return cmd
}

// newToolServer builds the server of the example called name.
func newToolServer(name string, leaders []string, opts ...tool.Option) (*tool.Server, error) {
	t, err := tool.Example(name)
	if err != nil {
		return nil, err
	}
	if len(leaders) > 0 {
		opts = append(opts, tool.RequireLeader(leaders))
	}
	return tool.NewServer(t, opts...)
}

func toolMetaCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "meta URL",
		Short: "Print a tool's metadata (GET URL/meta)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := tool.DefaultClient.Meta(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return printJSON(cmd.OutOrStdout(), m)
		},
	}
}

func toolInvokeCommand() *cobra.Command {
	var keyFile, evmKeyFile string
	cmd := &cobra.Command{
		Use:   "invoke URL INPUT",
		Short: "Invoke a tool (POST URL/invoke {\"input\": INPUT}) and print its output, signed as a leader with --key-file or --evm-key-file",
		Long: "Invoke a tool and print its output. INPUT is JSON. With --key-file (the hex of a 32-byte ed25519 seed, as a\n" +
			"sender's key file) or --evm-key-file (a secp256k1 key: 64 hex digits, or a keystore file opened with\n" +
			"$ORDO_EVM_PASSWORD), the request is signed as the leader holding that key, at this machine's clock.\n" +
			"A failure prints whether the leader would retry it (retriable) or give up (fatal).",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			key, err := invokeKey(cmd.ErrOrStderr(), keyFile, evmKeyFile)
			if err != nil {
				return err
			}
			out, err := tool.DefaultClient.Invoke(cmd.Context(), args[0], json.RawMessage(args[1]), key, clock.Real{}.Now())
			if err != nil {
				return err
			}
			return printJSON(cmd.OutOrStdout(), out)
		},
	}
	cmd.Flags().StringVar(&keyFile, "key-file", "", "sign with this ed25519 key: a file holding the hex of a 32-byte seed")
	cmd.Flags().StringVar(&evmKeyFile, "evm-key-file", "", "sign with this secp256k1 key (an EVM leader): 64 hex digits, or a keystore file")
	return cmd
}

// invokeKey reads the leader's key from the one key file given (none: nil)
// and says on w whom it signs as.
func invokeKey(w io.Writer, keyFile, evmKeyFile string) (chain.Key, error) {
	switch {
	case keyFile != "" && evmKeyFile != "":
		return nil, errors.New("give --key-file or --evm-key-file, not both")
	case keyFile != "":
		k, err := chain.ReadSeedFile(keyFile)
		if err != nil {
			return nil, err
		}
		fmt.Fprintln(w, "signing as leader", chain.KeyAddress(k))
		return k, nil
	case evmKeyFile != "":
		k, err := evm.LoadKey(evmKeyFile, os.Getenv("ORDO_EVM_PASSWORD"))
		if err != nil {
			return nil, err
		}
		fmt.Fprintln(w, "signing as leader", evm.KeyAddress(k))
		return k, nil
	}
	return nil, nil
}
