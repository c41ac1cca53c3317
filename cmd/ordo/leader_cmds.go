package main

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/ordolabs/ordo/client"
)

// leaderCommand returns `ordo leader`, the client of a node's leader engine
// (seed 001): events, event, retry, channels. Like the other client
// commands, each prints the API's JSON, indented, and takes the token from
// --token or $ORDO_TOKEN.
func leaderCommand() *cobra.Command {
	var f clientFlags
	cmd := &cobra.Command{
		Use:   "leader",
		Short: "Read the leader's indexed requests and channels (seed 001) on a running node; retry a Dead request",
		Long: `Read what the leader engine of a running node (seed 001) did with the workflow's
requests: each indexed RequestWalkExecution event with its status (Queued, Active,
Successful, Dead), and the channels its results go over (one per leader cap).
The reads need the read role; retrying a Dead event needs admin.`,
	}
	f.register(cmd)
	cmd.AddCommand(leaderEventsCmd(&f), leaderEventCmd(&f), leaderRetryCmd(&f), leaderChannelsCmd(&f))
	return cmd
}

func leaderEventsCmd(f *clientFlags) *cobra.Command {
	var o client.LeaderEventsOptions
	cmd := &cobra.Command{
		Use:   "events [--status S] [--after N] [--limit N]",
		Short: "List the leader's indexed events in ID order, by status",
		Long: `List the leader's indexed events (one per requested walk) in ID order (the
event's chain cursor). --status is Queued, Active, Successful or Dead. The
output's "next" is the --after of the following page.`,
		Args: cobra.NoArgs,
		RunE: run(func(cmd *cobra.Command, _ []string) (any, error) {
			evs, next, err := f.client().LeaderEvents(cmd.Context(), o)
			if err != nil {
				return nil, err
			}
			return struct {
				Events []client.LeaderEvent `json:"events"`
				Next   int64                `json:"next"`
			}{orEmpty(evs), next}, nil
		}),
	}
	cmd.Flags().StringVar(&o.Status, "status", "", "only events in this status: Queued, Active, Successful or Dead")
	cmd.Flags().Int64Var(&o.After, "after", 0, "only events with an ID above this")
	cmd.Flags().IntVar(&o.Limit, "limit", 0, "page size, 1-1000 (default 100)")
	return cmd
}

// eventID parses an event ID argument.
func eventID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id < 1 {
		return 0, fmt.Errorf("ID must be a whole number from 1 (an event's id), got %q", s)
	}
	return id, nil
}

func leaderEventCmd(f *clientFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "event ID",
		Short: "Print one indexed event: its status, retries, error, result and the channel it went over",
		Args:  cobra.ExactArgs(1),
		RunE: run(func(cmd *cobra.Command, args []string) (any, error) {
			id, err := eventID(args[0])
			if err != nil {
				return nil, err
			}
			return f.client().LeaderEvent(cmd.Context(), id)
		}),
	}
}

func leaderRetryCmd(f *clientFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "retry ID",
		Short: "Put a Dead event back to Queued, its retries reset (needs admin); prints it",
		Long: `Put a Dead event back to Queued, its retries reset, and print it as the node
committed it: the leader runs its tool again. An event that is not Dead is refused
(conflict). If a result for its walk is already on chain, the workflow refuses the
new one (already_reported) and the event ends Dead again.`,
		Args: cobra.ExactArgs(1),
		RunE: run(func(cmd *cobra.Command, args []string) (any, error) {
			id, err := eventID(args[0])
			if err != nil {
				return nil, err
			}
			return f.client().RetryLeaderEvent(cmd.Context(), id)
		}),
	}
}

func leaderChannelsCmd(f *clientFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "channels",
		Short: "List the leader's channels: the account holding each cap, and whether it is blocked and until when",
		Args:  cobra.NoArgs,
		RunE: run(func(cmd *cobra.Command, _ []string) (any, error) {
			chs, err := f.client().LeaderChannels(cmd.Context())
			if err != nil {
				return nil, err
			}
			return orEmpty(chs), nil
		}),
	}
}
