package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/ordolabs/ordo/client"
)

// processorCommand returns `ordo processor`, the client of a node's
// processors (seed 002): create, get, batch, tick, pause, resume, remove,
// queue, callbacks, confirm. Like the other client commands, each prints
// the API's JSON, indented, and takes the token from --token or
// $ORDO_TOKEN.
func processorCommand() *cobra.Command {
	var f clientFlags
	cmd := &cobra.Command{
		Use:   "processor",
		Short: "Create, feed, tick and read processors (seed 002) on a running node",
		Long: `Create, feed, tick and read the processors of a running node (seed 002).

An admin creates a processor; its owner (or an admin) adds batches, pauses,
resumes, removes and confirms; anyone may tick unless the node's
processor.openTick is false (then the owner); reads need the read role.`,
	}
	f.register(cmd)
	cmd.AddCommand(procCreateCmd(&f), procGetCmd(&f), procBatchCmd(&f), procTickCmd(&f), procPauseCmd(&f, false), procPauseCmd(&f, true),
		procRemoveCmd(&f), procQueueCmd(&f), procCallbacksCmd(&f), procConfirmCmd(&f))
	return cmd
}

func procCreateCmd(f *clientFlags) *cobra.Command {
	var s client.ProcessorSpec
	cmd := &cobra.Command{
		Use:   "create NAME --owner P [--callback-url U] [--auto-tick D] [--lanes N]",
		Short: "Create a processor (needs admin); prints it",
		Long: `Create a processor (the caller must be an admin) and print it as the node
committed it. NAME is 1-64 characters of [a-z0-9_-]. Its owner is the principal
that adds batches, pauses, resumes, removes and confirms. With --callback-url,
each batch outcome is POSTed there (Idempotency-Key: <processor>/<batch>) until
a 2xx; without, outcomes are only kept ('ordo processor callbacks' reads them).
--auto-tick D (at least 10ms) makes the node tick it every D while work is queued.`,
		Args: cobra.ExactArgs(1),
		RunE: run(func(cmd *cobra.Command, args []string) (any, error) {
			s.Name = args[0]
			return f.client().CreateProcessor(cmd.Context(), s)
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&s.Owner, "owner", "", "the principal that owns the processor")
	fl.StringVar(&s.CallbackURL, "callback-url", "", "http(s) URL each batch outcome is POSTed to")
	fl.DurationVar(&s.AutoTick, "auto-tick", 0, "tick every D while work is queued (0: only on request)")
	fl.IntVar(&s.Lanes, "lanes", 0, "sequencer queues the executions spread over, 1-256 (default 1: they land in tick order)")
	_ = cmd.MarkFlagRequired("owner")
	return cmd
}

func procGetCmd(f *clientFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "get NAME",
		Short: "Print a processor with its counts of batches (queued, executing, pending, done) and callbacks",
		Args:  cobra.ExactArgs(1),
		RunE: run(func(cmd *cobra.Command, args []string) (any, error) {
			return f.client().Processor(cmd.Context(), args[0])
		}),
	}
}

func procBatchCmd(f *clientFlags) *cobra.Command {
	var priority, file string
	cmd := &cobra.Command{
		Use:   "batch NAME [--priority high|medium] (--file F | @- | @FILE | JSON)",
		Short: "Add a message batch to a processor (needs its owner); prints its id and place",
		Long: `Add a message batch to a processor's queue (the caller must be its owner or an
admin) and print its id, priority and position. The batch is JSON, given inline,
as @FILE or --file FILE, or as @- for stdin:

  {"id": "b1",                                   (optional: the node assigns auto-<n>)
   "msgs": [{"contract": "library", "method": "m", "args": {...}}],
   "actionsConfig": {"atomic": {"actions": [{}], "retryLogic":
       {"times": {"amount": 2}, "interval": {"blocks": 1}}}},
   "priority": "high",                           (or --priority)
   "expiration": {"height": 500},                (optional; or {"time": "..."})
   "position": 0}                                (optional: insert there, 0 is the front)

or "actionsConfig": {"nonAtomic": {"actions": [{"retryLogic": ..., "callbackConfirmation":
{"contract": "library"}}]}}, one action per message. times is "indefinitely" or
{"amount": n} (n+1 attempts); interval is {"blocks": b} or {"duration": "30s"}.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: run(func(cmd *cobra.Command, args []string) (any, error) {
			var src string
			switch {
			case len(args) == 2 && file != "":
				return nil, errors.New("give the batch once: as an argument or with --file, not both")
			case len(args) == 2:
				src = args[1]
			case file != "":
				src = "@" + file
			default:
				return nil, errors.New("no batch: give it as JSON, @FILE, @- (stdin) or --file FILE")
			}
			b, err := readBatch(cmd.InOrStdin(), src)
			if err != nil {
				return nil, err
			}
			switch {
			case priority != "" && b.Priority != "" && string(b.Priority) != priority:
				return nil, fmt.Errorf("--priority %s, but the batch says %q", priority, b.Priority)
			case priority != "":
				b.Priority = client.Priority(priority)
			case b.Priority == "":
				return nil, errors.New(`no priority: give --priority high|medium or "priority" in the batch`)
			}
			return f.client().AddBatch(cmd.Context(), args[0], b)
		}),
	}
	cmd.Flags().StringVar(&priority, "priority", "", "the queue: high or medium (overrides none given in the batch)")
	cmd.Flags().StringVar(&file, "file", "", "read the batch from this file")
	return cmd
}

// readBatch reads a batch: inline JSON, @FILE, or @- for stdin. Fields the
// client does not know are refused here, as the node refuses them.
func readBatch(stdin io.Reader, v string) (client.BatchSpec, error) {
	b, err := readArg(stdin, v, "the batch")
	if err != nil {
		return client.BatchSpec{}, err
	}
	var s client.BatchSpec
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return client.BatchSpec{}, fmt.Errorf("the batch is not a valid batch JSON object: %w", err)
	}
	if dec.More() {
		return client.BatchSpec{}, errors.New("the batch is not a valid batch JSON object: more after it")
	}
	return s, nil
}

func procTickCmd(f *clientFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "tick NAME",
		Short: "Tick a processor once; prints what the tick did",
		Long: `Tick a processor once and print what the tick did: NoMessagesToProcess,
ProcessorPaused, Rotated (the first batch was cooling down after a failure),
Expired, or Started with the batch, its execution id and attempt. A started
execution lands blocks later; its outcome arrives as a callback.`,
		Args: cobra.ExactArgs(1),
		RunE: run(func(cmd *cobra.Command, args []string) (any, error) {
			return f.client().Tick(cmd.Context(), args[0])
		}),
	}
}

func procPauseCmd(f *clientFlags, resume bool) *cobra.Command {
	use, short := "pause NAME", "Pause a processor (needs its owner): its ticks answer ProcessorPaused"
	if resume {
		use, short = "resume NAME", "Resume a paused processor (needs its owner)"
	}
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: run(func(cmd *cobra.Command, args []string) (any, error) {
			c := f.client()
			err := c.Pause(cmd.Context(), args[0])
			if resume {
				err = c.Resume(cmd.Context(), args[0])
			}
			if err != nil {
				return nil, err
			}
			return struct {
				Processor string `json:"processor"`
				Paused    bool   `json:"paused"`
			}{args[0], !resume}, nil
		}),
	}
}

func procRemoveCmd(f *clientFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "remove NAME PRIORITY POSITION",
		Short: "Remove the batch at POSITION (0 is the front) of a queue (needs its owner); it ends RemovedByOwner",
		Args:  cobra.ExactArgs(3),
		RunE: run(func(cmd *cobra.Command, args []string) (any, error) {
			pos, err := strconv.Atoi(args[2])
			if err != nil || pos < 0 {
				return nil, fmt.Errorf("POSITION must be a whole number from 0, got %q", args[2])
			}
			return f.client().RemoveBatch(cmd.Context(), args[0], args[1], pos)
		}),
	}
}

func procQueueCmd(f *clientFlags) *cobra.Command {
	var offset, limit int
	cmd := &cobra.Command{
		Use:   "queue NAME PRIORITY [--offset N] [--limit N]",
		Short: "List the batches queued in a processor's high or medium queue, in queue order",
		Args:  cobra.ExactArgs(2),
		RunE: run(func(cmd *cobra.Command, args []string) (any, error) {
			bs, err := f.client().QueueBatches(cmd.Context(), args[0], args[1], offset, limit)
			if err != nil {
				return nil, err
			}
			return struct {
				Batches []client.BatchRecord `json:"batches"`
				Offset  int                  `json:"offset"`
			}{orEmpty(bs), offset}, nil
		}),
	}
	cmd.Flags().IntVar(&offset, "offset", 0, "skip this many batches from the front")
	cmd.Flags().IntVar(&limit, "limit", 0, "page size, 1-1000 (default 100)")
	return cmd
}

func procCallbacksCmd(f *clientFlags) *cobra.Command {
	var (
		after int64
		limit int
	)
	cmd := &cobra.Command{
		Use:   "callbacks NAME [--after N] [--limit N]",
		Short: "List a processor's callbacks (one per batch outcome) with their delivery state",
		Long: `List a processor's callbacks, one per batch outcome, in the order of outcomes,
with their delivery state (pending, delivered, or stored when the processor has
no callback URL). The output's "next" is the --after of the following page.`,
		Args: cobra.ExactArgs(1),
		RunE: run(func(cmd *cobra.Command, args []string) (any, error) {
			cbs, next, err := f.client().Callbacks(cmd.Context(), args[0], after, limit)
			if err != nil {
				return nil, err
			}
			return struct {
				Callbacks []client.Callback `json:"callbacks"`
				Next      int64             `json:"next"`
			}{orEmpty(cbs), next}, nil
		}),
	}
	cmd.Flags().Int64Var(&after, "after", 0, "only callbacks with a seq above this")
	cmd.Flags().IntVar(&limit, "limit", 0, "page size, 1-1000 (default 100)")
	return cmd
}

func procConfirmCmd(f *clientFlags) *cobra.Command {
	var success, failure bool
	cmd := &cobra.Command{
		Use:   "confirm NAME EXEC_ID --success|--failure",
		Short: "Confirm an execution waiting for its callback confirmation (needs the owner)",
		Long: `Deliver the callback confirmation of an execution (the executionId a tick
printed) whose action waits for one. --failure counts as a failed attempt of the
action, retried as its retryLogic says.`,
		Args: cobra.ExactArgs(2),
		RunE: run(func(cmd *cobra.Command, args []string) (any, error) {
			if success == failure {
				return nil, errors.New("give exactly one of --success and --failure")
			}
			return f.client().Confirm(cmd.Context(), args[0], args[1], success)
		}),
	}
	cmd.Flags().BoolVar(&success, "success", false, "the execution succeeded")
	cmd.Flags().BoolVar(&failure, "failure", false, "the execution failed")
	return cmd
}
