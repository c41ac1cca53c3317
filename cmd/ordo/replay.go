package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/distseq/token"
	"github.com/ordolabs/ordo/internal/leader"
	"github.com/ordolabs/ordo/internal/processor"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/smm"
	"github.com/ordolabs/ordo/internal/trace"
)

func replayCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "replay FILE",
		Short: "Replay an engine's trace (ordo serve --trace FILE writes FILE for the sequencer, FILE.processor, FILE.leader, FILE.distseq and FILE.smm for the other engines) into fresh cores and check every Ready against the recording",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := os.Open(args[0])
			if err != nil {
				return err
			}
			defer f.Close()
			engine, err := trace.Engine(f)
			if err != nil {
				return err
			}
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return err
			}
			var st trace.Stats
			switch engine {
			case "", sequencer.TraceEngine:
				engine = sequencer.TraceEngine
				st, err = sequencer.Replay(f)
			case processor.TraceEngine:
				st, err = processor.Replay(f)
			case leader.TraceEngine:
				st, err = leader.Replay(f)
			case smm.TraceEngine:
				st, err = smm.Replay(f)
			case distseq.TraceEngine:
				st, err = distseq.Replay(f, map[string]distseq.Domain{"token": token.Domain{}})
			default:
				return fmt.Errorf("%s: a trace of engine %q, which this ordo cannot replay", args[0], engine)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "replayed %s trace: %d starts, %d inputs, %d Readys: identical; digest %s\n", engine, st.Starts, st.Inputs, st.Readys, st.Digest)
			return nil
		},
	}
}
