package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The first signal stops gracefully (a node drains within its
	// shutdownGrace); a second one ends the process at once.
	context.AfterFunc(ctx, stop)
	root := &cobra.Command{
		Use:           "ordo",
		Short:         "ordo: a transaction sequencer that gets each intent onto a ledger once, in order",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	registerLogFlags(root.PersistentFlags())
	root.AddCommand(devchainCommand(), serveCommand(), demoCommand(), benchCommand(), replayCommand(), simCommand(), tokenCommand())
	root.AddCommand(clientCommands()...)
	root.AddCommand(processorCommand())
	root.AddCommand(toolCommand())
	root.AddCommand(committeeCommand())
	root.AddCommand(leaderCommand())
	root.AddCommand(versionCommand())
	root.AddCommand(evmdevCommand())
	root.AddCommand(evmCommand())
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "ordo:", err)
		os.Exit(1)
	}
}
