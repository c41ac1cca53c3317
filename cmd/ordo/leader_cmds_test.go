package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/ordolabs/ordo/client"
	"github.com/ordolabs/ordo/internal/api/apitest"
	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/chain"
)

// runLeader runs `ordo leader` with args and returns stdout and the error.
func runLeader(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := &cobra.Command{Use: "ordo", SilenceUsage: true, SilenceErrors: true}
	root.AddCommand(leaderCommand())
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(append([]string{"leader"}, args...))
	err := root.ExecuteContext(context.Background())
	return out.String(), err
}

// leaderJSON runs a command that must succeed and decodes its output into v.
func leaderJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	out, err := runLeader(t, args...)
	if err != nil {
		t.Fatalf("leader %v: %v", args, err)
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("leader %v printed %q: %v", args, out, err)
	}
}

// TestLeaderCommands: a request for a tool the registry does not hold is a
// fatal failure (Dead, the failure in its Output: the result to report;
// apitest's sequencer refuses the result transaction, Error says so); the
// commands list it, print it, retry it and show
// the channel; bad arguments and refusals are errors naming the cause.
func TestLeaderCommands(t *testing.T) {
	n := startProcNode(t, apitest.Options{BlockTime: 20 * time.Millisecond, Principals: []auth.PrincipalConfig{
		{Principal: "ops", Token: "ops-token-0123456789", Roles: []auth.Role{auth.RoleAdmin}},
		{Principal: "app", Token: "app-token-0123456789", Roles: []auth.Role{auth.RoleRead}},
	}})
	ctx := context.Background()
	accts, err := n.Chain.DevAccounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.Chain.SendTx(ctx, chain.Tx{From: accts[len(accts)-1].Address, Fee: 1000, Contract: "workflow", Method: "request",
		Args: json.RawMessage(`{"walk":"w1","tool":"nosuch","input":{}}`)}); err != nil {
		t.Fatal(err)
	}
	node, ops := "--node="+n.URL, "--token=ops-token-0123456789"
	t.Setenv(tokenEnv, "app-token-0123456789") // the reads take the token from the environment

	var page struct {
		Events []client.LeaderEvent `json:"events"`
		Next   int64                `json:"next"`
	}
	pollUntil(t, "the request's end", func() bool {
		leaderJSON(t, &page, "events", node, "--status", "Dead")
		return len(page.Events) == 1
	})
	e := page.Events[0]
	if e.Walk != "w1" || e.Tool != "nosuch" || !strings.Contains(string(e.Output), `no tool \"nosuch\"`) || page.Next != e.ID {
		t.Fatalf("events: %+v", page)
	}
	leaderJSON(t, &page, "events", node, "--after", "0", "--limit", "1")
	if len(page.Events) != 1 || page.Events[0].ID != e.ID {
		t.Fatalf("events --limit 1: %+v", page)
	}
	out, err := runLeader(t, "events", node, "--status", "Queued")
	if err != nil || !strings.Contains(out, `"events": []`) {
		t.Fatalf("no Queued events: %q %v", out, err)
	}
	var got client.LeaderEvent
	id := strconv.FormatInt(e.ID, 10)
	leaderJSON(t, &got, "event", node, id)
	if got.ID != e.ID || got.Status != client.LeaderDead {
		t.Fatalf("event: %+v", got)
	}
	var chs []client.LeaderChannel
	leaderJSON(t, &chs, "channels", node)
	if len(chs) != 1 || chs[0].Account != string(accts[0].Address) {
		t.Fatalf("channels: %+v", chs)
	}
	got = client.LeaderEvent{} // omitted fields must not keep the last values
	leaderJSON(t, &got, "retry", node, ops, id)
	if got.ID != e.ID || got.Status != client.LeaderQueued || got.Error != "" {
		t.Fatalf("retry: %+v", got)
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"event", node, "x"}, `ID must be a whole number from 1 (an event's id), got "x"`},
		{[]string{"event", node, "99999"}, "not_found: no event 99999 (HTTP 404)"},
		{[]string{"events", node, "--status", "Done"}, "bad_query: status must be Queued, Active, Successful or Dead"},
		{[]string{"retry", node, id}, "forbidden:"},
		{[]string{"channels", node, "--token", "wrong-token-0123456789"}, "unauthenticated:"},
	} {
		if _, err := runLeader(t, tt.args...); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: %v, want %q", tt.args, err, tt.want)
		}
	}
}
