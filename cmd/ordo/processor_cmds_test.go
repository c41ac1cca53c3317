package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/ordolabs/ordo/client"
	"github.com/ordolabs/ordo/internal/api/apitest"
	"github.com/ordolabs/ordo/internal/auth"
)

// runProc runs `ordo processor` with args and returns stdout and the error.
func runProc(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	root := &cobra.Command{Use: "ordo", SilenceUsage: true, SilenceErrors: true}
	root.AddCommand(processorCommand())
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetIn(strings.NewReader(stdin))
	root.SetArgs(append([]string{"processor"}, args...))
	err := root.ExecuteContext(context.Background())
	return out.String(), err
}

// procJSON runs a command that must succeed and decodes its output into v.
func procJSON(t *testing.T, v any, stdin string, args ...string) string {
	t.Helper()
	out, err := runProc(t, stdin, args...)
	if err != nil {
		t.Fatalf("processor %v: %v", args, err)
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("processor %v printed %q: %v", args, out, err)
	}
	return out
}

// startProcNode starts a node and waits until its processor engine has
// started too (apitest.Start waits for the sequencer only).
func startProcNode(t *testing.T, opts apitest.Options) *apitest.Node {
	t.Helper()
	n, err := apitest.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	pollUntil(t, "the processor engine's start", func() bool {
		select {
		case <-n.Proc.Started():
			return true
		default:
			return false
		}
	})
	return n
}

// pollUntil calls done every 10ms until it reports true, failing the
// test after 30s.
func pollUntil(t *testing.T, what string, done func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !done() {
		select {
		case <-ctx.Done():
			t.Fatalf("%s: %v", what, ctx.Err())
		case <-tick.C:
		}
	}
}

const oneCall = `{"msgs":[{"contract":"library","method":"steady"}],"actionsConfig":{"atomic":{"actions":[{}]}}}`

func TestProcessorCommands(t *testing.T) {
	n := startProcNode(t, apitest.Options{BlockTime: 20 * time.Millisecond})
	node := "--node=" + n.URL

	var p client.Processor
	out := procJSON(t, &p, "", "create", "p1", node, "--owner", "dev", "--auto-tick", "0", "--lanes", "2", "--callback-url", "http://127.0.0.1:1/cb")
	if p.Name != "p1" || p.Owner != "dev" || p.Lanes != 2 || p.CallbackURL != "http://127.0.0.1:1/cb" || !strings.Contains(out, "\n  \"name\"") {
		t.Fatalf("create: %q", out)
	}
	procJSON(t, &p, "", "create", "p2", node, "--owner", "dev")

	// The batch: inline, @FILE, --file, @- (stdin); the priority from the
	// flag or the batch.
	dir := t.TempDir()
	file, anon := filepath.Join(dir, "f1.json"), filepath.Join(dir, "anon.json")
	if err := os.WriteFile(file, []byte(`{"id":"f1","priority":"medium",`+oneCall[1:]), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(anon, []byte(oneCall), 0o600); err != nil {
		t.Fatal(err)
	}
	var added client.AddResult
	for _, tt := range []struct {
		stdin string
		args  []string
		want  client.AddResult
	}{
		{"", []string{"batch", "p2", node, "--priority", "high", `{"id":"i1",` + oneCall[1:]}, client.AddResult{ID: "i1", Priority: "high"}},
		{"", []string{"batch", "p2", node, "@" + file}, client.AddResult{ID: "f1", Priority: "medium"}},
		{"", []string{"batch", "p2", node, "--file", anon, "--priority", "medium"}, client.AddResult{ID: "auto-1", Priority: "medium", Position: 1}},
		{oneCall, []string{"batch", "p2", node, "--priority", "medium", "@-"}, client.AddResult{ID: "auto-2", Priority: "medium", Position: 2}},
	} {
		if procJSON(t, &added, tt.stdin, tt.args...); added != tt.want {
			t.Errorf("%v: %+v, want %+v", tt.args, added, tt.want)
		}
	}
	var page struct {
		Batches []client.BatchRecord `json:"batches"`
		Offset  int                  `json:"offset"`
	}
	procJSON(t, &page, "", "queue", "p2", "medium", node, "--offset", "1", "--limit", "1")
	if len(page.Batches) != 1 || page.Batches[0].ID != "auto-1" || page.Offset != 1 {
		t.Fatalf("queue: %+v", page)
	}
	var removed client.RemoveResult
	if procJSON(t, &removed, "", "remove", "p2", "medium", "0", node); removed.ID != "f1" {
		t.Fatalf("remove: %+v", removed)
	}
	var paused struct {
		Processor string `json:"processor"`
		Paused    bool   `json:"paused"`
	}
	if procJSON(t, &paused, "", "pause", "p2", node); !paused.Paused || paused.Processor != "p2" {
		t.Fatalf("pause: %+v", paused)
	}
	var tick client.TickResult
	if procJSON(t, &tick, "", "tick", "p2", node); tick.Outcome != client.TickPaused {
		t.Fatalf("tick while paused: %+v", tick)
	}
	if procJSON(t, &paused, "", "resume", "p2", node); paused.Paused {
		t.Fatalf("resume: %+v", paused)
	}
	if procJSON(t, &tick, "", "tick", "p2", node); tick.Outcome != client.TickStarted || tick.BatchID != "i1" || tick.Exec == "" {
		t.Fatalf("tick: %+v", tick)
	}

	// Callbacks: f1's RemovedByOwner is first; i1's Executed comes once its
	// execution lands.
	var cbs struct {
		Callbacks []client.Callback `json:"callbacks"`
		Next      int64             `json:"next"`
	}
	pollUntil(t, "i1's callback", func() bool {
		procJSON(t, &cbs, "", "callbacks", "p2", node, "--after", "1")
		return len(cbs.Callbacks) > 0
	})
	if len(cbs.Callbacks) != 1 || cbs.Callbacks[0].BatchID != "i1" || cbs.Next != 2 {
		t.Fatalf("callbacks --after 1: %+v", cbs)
	}
	if body, err := client.CallbackOutcome(cbs.Callbacks[0]); err != nil || body.Outcome.Status != client.StatusExecuted {
		t.Fatalf("i1's callback: %+v %v", body, err)
	}
	var view client.ProcessorView
	if procJSON(t, &view, "", "get", "p2", node); view.Counts.Done != 2 || view.Counts.Queued["medium"] != 2 {
		t.Fatalf("get: %+v", view)
	}

	for _, tt := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{"", []string{"create", "p3", node}, `required flag(s) "owner" not set`},
		{"", []string{"create", "p1", node, "--owner", "dev"}, `conflict: processor "p1" exists (HTTP 409)`},
		{"", []string{"create", "P!", node, "--owner", "dev"}, "invalid: name"},
		{"", []string{"get", "nope", node}, `not_found: no processor "nope" (HTTP 404)`},
		{"", []string{"batch", "p2", node, "--priority", "high"}, "no batch"},
		{"", []string{"batch", "p2", node, oneCall}, "no priority"},
		{"", []string{"batch", "p2", node, "--priority", "low", oneCall}, "invalid: priority"},
		{"", []string{"batch", "p2", node, "--priority", "high", `{"id":"x","priority":"medium",` + oneCall[1:]}, `--priority high, but the batch says "medium"`},
		{"", []string{"batch", "p2", node, "--priority", "high", `{"msgz":[]}`}, `unknown field "msgz"`},
		{"", []string{"batch", "p2", node, "--priority", "high", "{"}, "not a valid batch JSON object"},
		{"", []string{"batch", "p2", node, "--file", file, oneCall}, "not both"},
		{"", []string{"batch", "p2", node, "@/no/such/file"}, "reading the batch @/no/such/file"},
		{"", []string{"batch", "p2", node, "--priority", "high", `{"msgs":[{"contract":"library","method":"m"}],"actionsConfig":{"atomic":{"actions":[]}}}`}, "invalid: actionsConfig.atomic.actions: must hold one action per message"},
		{"", []string{"remove", "p2", "medium", "x", node}, "POSITION must be a whole number"},
		{"", []string{"remove", "p2", "medium", "9", node}, "not_found: "},
		{"", []string{"queue", "p2", "low", node}, "not_found: "},
		{"", []string{"confirm", "p2", "p2/i1/0/1", node}, "exactly one of --success and --failure"},
		{"", []string{"confirm", "p2", "p2/i1/0/1", node, "--success", "--failure"}, "exactly one of --success and --failure"},
		{"", []string{"confirm", "p2", "p2/nope/0/1", node, "--failure"}, "not_found: "},
		{"", []string{"tick", node}, "accepts 1 arg"},
		{"", []string{"tick", "p2", "--node=http://127.0.0.1:1"}, "connection refused"},
	} {
		out, err := runProc(t, tt.stdin, tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) || out != "" {
			t.Errorf("%v: err %v, stdout %q; want an error containing %q", tt.args, err, out, tt.want)
		}
	}
}

// A non-atomic action waits for its owner's confirmation, given with
// `ordo processor confirm`; the token comes from --token or $ORDO_TOKEN.
func TestProcessorCommandsConfirmAndToken(t *testing.T) {
	toks := map[string]string{"ops": "ops-token-0123456789", "app": "app-token-0123456789", "eve": "eve-token-0123456789"}
	n := startProcNode(t, apitest.Options{BlockTime: 20 * time.Millisecond, Principals: []auth.PrincipalConfig{
		{Principal: "ops", Token: toks["ops"], Roles: []auth.Role{auth.RoleAdmin}},
		{Principal: "app", Token: toks["app"], Roles: []auth.Role{auth.RoleRead}},
		{Principal: "eve", Token: toks["eve"], Roles: []auth.Role{auth.RoleRead}},
	}})
	node := "--node=" + n.URL

	t.Setenv(tokenEnv, "")
	if _, err := runProc(t, "", "create", "p", node, "--owner", "app"); err == nil || !strings.Contains(err.Error(), "unauthenticated") || !strings.Contains(err.Error(), "--token") {
		t.Fatalf("create without a token: %v", err)
	}
	if _, err := runProc(t, "", "create", "p", node, "--owner", "app", "--token", toks["app"]); err == nil || !strings.Contains(err.Error(), "forbidden") {
		t.Fatalf("create by app: %v", err)
	}
	var p client.Processor
	procJSON(t, &p, "", "create", "p", node, "--owner", "app", "--token", toks["ops"])
	batch := `{"id":"n1","msgs":[{"contract":"library","method":"steady"}],"actionsConfig":{"nonAtomic":{"actions":[{"callbackConfirmation":{"contract":"library"}}]}}}`
	if _, err := runProc(t, "", "batch", "p", node, "--priority", "high", "--token", toks["eve"], batch); err == nil || !strings.Contains(err.Error(), "forbidden") {
		t.Fatalf("batch by a stranger: %v", err)
	}
	t.Setenv(tokenEnv, toks["app"])
	var added client.AddResult
	procJSON(t, &added, "", "batch", "p", node, "--priority", "high", batch)
	var tick client.TickResult
	if procJSON(t, &tick, "", "tick", "p", node, "--token", toks["eve"]); tick.Outcome != client.TickStarted {
		t.Fatalf("tick by anyone: %+v", tick)
	}
	pollUntil(t, "n1 pending", func() bool {
		var view client.ProcessorView
		procJSON(t, &view, "", "get", "p", node)
		return view.Counts.Pending == 1
	})
	if _, err := runProc(t, "", "confirm", "p", tick.Exec, node, "--success", "--token", toks["eve"]); err == nil || !strings.Contains(err.Error(), "forbidden") {
		t.Fatalf("confirm by a stranger: %v", err)
	}
	var cr client.ConfirmResult
	if procJSON(t, &cr, "", "confirm", "p", tick.Exec, node, "--success"); cr.BatchID != "n1" || !cr.Success {
		t.Fatalf("confirm: %+v", cr)
	}
	var cbs struct {
		Callbacks []client.Callback `json:"callbacks"`
	}
	pollUntil(t, "n1's callback", func() bool {
		procJSON(t, &tick, "", "tick", "p", node) // a confirmed batch is queued again: its next tick ends it
		procJSON(t, &cbs, "", "callbacks", "p", node)
		return len(cbs.Callbacks) > 0
	})
	if len(cbs.Callbacks) != 1 {
		t.Fatalf("callbacks: %+v", cbs)
	}
	if body, err := client.CallbackOutcome(cbs.Callbacks[0]); err != nil || body.Outcome.Status != client.StatusExecuted || body.Key != "p/n1" {
		t.Fatalf("n1's callback: %+v %v", body, err)
	}
}
