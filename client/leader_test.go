package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/ordolabs/ordo/client"
	"github.com/ordolabs/ordo/internal/api/apitest"
	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/tool"
)

// leaderWorkflow sets up the workflow on an apitest node's chain for its
// leader (one channel on the node's first sender): the last dev account
// inits the workflow, grants the sender a cap and registers arith (a tool
// with the example arith tool's schemas) served by an httptest server; then it requests the walks
// (walk → input), each transaction unsigned from that dev account, and
// waits for the requests' inclusion.
func leaderWorkflow(t *testing.T, ctx context.Context, n *apitest.Node, arith tool.Tool, walks map[string]string) {
	t.Helper()
	accts, err := n.Chain.DevAccounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := tool.NewServer(arith)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(ts)
	t.Cleanup(hs.Close)
	meta := arith.Meta()
	reg, _ := json.Marshal(map[string]any{"tool": "arith", "url": hs.URL, "inputSchema": meta.InputSchema, "outputSchema": meta.OutputSchema})
	admin := accts[len(accts)-1].Address
	txs := []struct{ contract, method, args string }{
		{"workflow", "init", `{}`},
		{"workflow", "grant_leader_cap", fmt.Sprintf(`{"leader":%q}`, accts[0].Address)},
		{"registry", "register", string(reg)},
	}
	for w, in := range walks {
		txs = append(txs, struct{ contract, method, args string }{"workflow", "request", fmt.Sprintf(`{"walk":%q,"tool":"arith","input":%s}`, w, in)})
	}
	var last chain.Hash
	for i, tx := range txs {
		h, err := n.Chain.SendTx(ctx, chain.Tx{From: admin, Nonce: uint64(i), Fee: 1000, Contract: tx.contract, Method: tx.method, Args: json.RawMessage(tx.args)})
		if err != nil {
			t.Fatalf("%s.%s: %v", tx.contract, tx.method, err)
		}
		last = h
	}
	poll(t, ctx, "the workflow's set-up", func() (bool, error) {
		st, err := n.Chain.TxStatus(ctx, last)
		return err == nil && st.State == chain.TxIncluded, nil
	})
}

// gatedTool is the example arith tool whose "mul" invocations wait until
// its gate closes.
type gatedTool struct {
	tool.Arith
	gate chan struct{}
}

func (g gatedTool) Invoke(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
	var in tool.ArithInput
	if json.Unmarshal(input, &in) == nil && in.Op == "mul" {
		select {
		case <-g.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return g.Arith.Invoke(ctx, input)
}

// TestLeaderClient: the tool answers one request (its result reported over
// the node's one channel), refuses one whose input breaks its schema (a
// fatal failure: Dead) and holds a third (Active); the client lists them
// by status and page, reads one, retries the Dead one (and is refused for
// the Active one and an unknown one), and reads the channel.
//
// apitest's sequencer takes no "call" transactions, the type of the
// leader's results, so a result transaction is refused there and its event
// ends Dead too, its output kept; the test holds to what the tool did.
func TestLeaderClient(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	n := startProcNode(t, apitest.Options{BlockTime: 20 * time.Millisecond})
	gate := make(chan struct{})
	defer close(gate)
	leaderWorkflow(t, ctx, n, gatedTool{gate: gate}, map[string]string{
		"w-add": `{"op":"add","a":2,"b":3}`, "w-pow": `{"op":"pow","a":2,"b":3}`, "w-mul": `{"op":"mul","a":2,"b":3}`})
	c := client.New(n.URL, nil)
	var byWalk map[string]client.LeaderEvent
	poll(t, ctx, "the leader's events", func() (bool, error) {
		evs, _, err := c.LeaderEvents(ctx, client.LeaderEventsOptions{})
		byWalk = map[string]client.LeaderEvent{}
		for _, e := range evs {
			byWalk[e.Walk] = e
		}
		return byWalk["w-add"].Status != "" && byWalk["w-add"].Phase == "" && byWalk["w-add"].Status != client.LeaderQueued &&
			byWalk["w-pow"].Status == client.LeaderDead && byWalk["w-mul"].Phase == client.PhaseInvoke, err
	})
	add, pow, mul := byWalk["w-add"], byWalk["w-pow"], byWalk["w-mul"]
	if !add.OK || string(add.Output) != `{"result":5}` || add.Channel != 0 || add.Tool != "arith" || add.Height == 0 || add.Reports != 1 {
		t.Errorf("w-add: %+v", add)
	}
	if pow.OK || pow.Error == "" {
		t.Errorf("w-pow: %+v", pow)
	}
	if mul.Status != client.LeaderActive {
		t.Errorf("w-mul: %+v", mul)
	}

	count := map[string][]string{}
	var ids []int64
	for _, w := range []string{"w-add", "w-pow", "w-mul"} {
		st := string(byWalk[w].Status)
		count[st] = append(count[st], w)
	}
	for _, e := range byWalk {
		ids = append(ids, e.ID)
	}
	slices.Sort(ids)
	for _, st := range []string{client.LeaderQueued, client.LeaderActive, client.LeaderSuccessful, client.LeaderDead} {
		evs, next, err := c.LeaderEvents(ctx, client.LeaderEventsOptions{Status: st})
		if err != nil {
			t.Fatalf("%s: %v", st, err)
		}
		var got []string
		for _, e := range evs {
			if string(e.Status) != st {
				t.Errorf("status %s listed %+v", st, e)
			}
			got = append(got, e.Walk)
		}
		if len(got) != len(count[st]) {
			t.Errorf("status %s: walks %v, want %v", st, got, count[st])
		}
		if len(evs) == 0 && next != 0 || len(evs) > 0 && next != evs[len(evs)-1].ID {
			t.Errorf("status %s: next %d", st, next)
		}
	}
	// Pages of one, each after the last.
	var after int64
	for i, id := range ids {
		page, next, err := c.LeaderEvents(ctx, client.LeaderEventsOptions{After: after, Limit: 1})
		if err != nil || len(page) != 1 || page[0].ID != id || next != id {
			t.Fatalf("page %d after %d: %+v next %d %v", i, after, page, next, err)
		}
		after = next
	}
	if page, next, err := c.LeaderEvents(ctx, client.LeaderEventsOptions{After: after}); err != nil || len(page) != 0 || next != after {
		t.Errorf("after the last: %+v next %d %v", page, next, err)
	}

	got, err := c.LeaderEvent(ctx, add.ID)
	if err != nil || got.Walk != "w-add" || got.Status != add.Status {
		t.Errorf("event %d: %+v %v", add.ID, got, err)
	}
	chs, err := c.LeaderChannels(ctx)
	if err != nil || len(chs) != 1 || chs[0].Index != 0 || chs[0].Account == "" {
		t.Errorf("channels: %+v %v", chs, err)
	}

	// The errors: each a code the caller can branch on.
	for _, tt := range []struct {
		name string
		call func() error
		code string
	}{
		{"bad status", func() error {
			_, _, err := c.LeaderEvents(ctx, client.LeaderEventsOptions{Status: "Done"})
			return err
		}, client.CodeBadQuery},
		{"limit over 1000", func() error {
			_, _, err := c.LeaderEvents(ctx, client.LeaderEventsOptions{Limit: 1001})
			return err
		}, client.CodeBadQuery},
		{"unknown event", func() error { _, err := c.LeaderEvent(ctx, 999999); return err }, client.CodeNotFound},
		{"retry unknown", func() error { _, err := c.RetryLeaderEvent(ctx, 999999); return err }, client.CodeNotFound},
		{"retry Active", func() error { _, err := c.RetryLeaderEvent(ctx, mul.ID); return err }, client.CodeConflict},
	} {
		var ae *client.APIError
		if err := tt.call(); !errors.As(err, &ae) || ae.Code != tt.code {
			t.Errorf("%s: %v, want code %s", tt.name, err, tt.code)
		}
	}

	// Retrying the Dead event puts it back to Queued, retries reset; it
	// fails again (the same input) and ends Dead again.
	re, err := c.RetryLeaderEvent(ctx, pow.ID)
	if err != nil || re.ID != pow.ID || re.Status != client.LeaderQueued || re.Retried != 0 || re.Error != "" {
		t.Fatalf("retry: %+v %v", re, err)
	}
	poll(t, ctx, "the retried event's end", func() (bool, error) {
		e, err := c.LeaderEvent(ctx, pow.ID)
		return err == nil && e.Status == client.LeaderDead, err
	})
}

// Retrying needs the admin role; the reads need read.
func TestLeaderClientRoles(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n := startProcNode(t, apitest.Options{Principals: []auth.PrincipalConfig{
		{Principal: "ops", Token: "ops-token-0123456789", Roles: []auth.Role{auth.RoleAdmin}},
		{Principal: "app", Token: "app-token-0123456789", Roles: []auth.Role{auth.RoleRead}},
	}})
	app := client.New(n.URL, nil, client.WithToken("app-token-0123456789"))
	if _, err := app.LeaderChannels(ctx); err != nil {
		t.Fatalf("channels as read: %v", err)
	}
	var ae *client.APIError
	if _, err := app.RetryLeaderEvent(ctx, 1); !errors.As(err, &ae) || ae.Code != client.CodeForbidden {
		t.Errorf("retry as read: %v, want forbidden", err)
	}
	if _, _, err := client.New(n.URL, nil).LeaderEvents(ctx, client.LeaderEventsOptions{}); !errors.As(err, &ae) || ae.Code != client.CodeUnauthenticated {
		t.Errorf("events without a token: %v, want unauthenticated", err)
	}
	ops := client.New(n.URL, nil, client.WithToken("ops-token-0123456789"))
	if _, err := ops.RetryLeaderEvent(ctx, 1); !errors.As(err, &ae) || ae.Code != client.CodeNotFound {
		t.Errorf("retry of no event as admin: %v, want not_found", err)
	}
}
