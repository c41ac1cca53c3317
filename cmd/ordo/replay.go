package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/ordolabs/ordo/internal/sequencer"
)

func replayCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "replay FILE",
		Short: "Replay a sequencer trace (ordo serve --trace) into fresh cores and check every Ready against the recording",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := os.Open(args[0])
			if err != nil {
				return err
			}
			defer f.Close()
			st, err := sequencer.Replay(f)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "replayed %d starts, %d inputs, %d Readys: identical; digest %s\n", st.Starts, st.Inputs, st.Readys, st.Digest)
			return nil
		},
	}
}
