package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/ordolabs/ordo/client"
	"github.com/ordolabs/ordo/internal/api/apitest"
	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/node"
)

// runCLI runs the client commands with args and returns stdout, stderr and
// the error.
func runCLI(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	root := &cobra.Command{Use: "ordo", SilenceUsage: true, SilenceErrors: true}
	root.AddCommand(clientCommands()...)
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetIn(strings.NewReader(stdin))
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

func TestClientCommands(t *testing.T) {
	n, err := apitest.Start(apitest.Options{NoRun: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	node := "--node=" + n.URL

	out, _, err := runCLI(t, "", "tx", "send", node, "--queue", "zk", "--type", "SEND_CLAIM_VOTE", "--data", `{"v":1}`, "--idempotency-key", "k1")
	if err != nil {
		t.Fatalf("tx send: %v", err)
	}
	var tx client.Transaction
	var data bytes.Buffer
	if err := json.Unmarshal([]byte(out), &tx); err != nil || tx.State != client.StateWaiting || json.Compact(&data, tx.Data) != nil || data.String() != `{"v":1}` {
		t.Fatalf("tx send printed %q (%v)", out, err)
	}
	if !strings.Contains(out, "\n  \"uid\"") {
		t.Errorf("output is not indented: %q", out)
	}
	_, stderr, err := runCLI(t, "", "tx", "send", node, "--queue", "zk", "--type", "SEND_CLAIM_VOTE", "--data", `{"v":1}`, "--idempotency-key", "k1")
	if err != nil || !strings.Contains(stderr, "existing record") {
		t.Fatalf("tx send again: %v, stderr %q", err, stderr)
	}
	if _, _, err := runCLI(t, "", "tx", "send", node, "--queue", "zk", "--type", "SEND_CLAIM_VOTE", "--data", `{"v":2}`, "--idempotency-key", "k1"); err == nil || !strings.Contains(err.Error(), "idempotency_conflict") {
		t.Fatalf("tx send with the key of another intent: %v, want idempotency_conflict", err)
	}
	file := filepath.Join(t.TempDir(), "data.json")
	if err := os.WriteFile(file, []byte(`{"l":[1, 2]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCLI(t, "", "tx", "send", node, "--queue", "zk", "--type", "SEND_CLAIM_VOTE", "--data", "@"+file); err != nil {
		t.Fatalf("tx send @file: %v", err)
	}
	if _, _, err := runCLI(t, `{"s":"stdin"}`, "tx", "send", node, "--queue", "zk", "--type", "SEND_CLAIM_VOTE", "--data", "@-"); err != nil {
		t.Fatalf("tx send @-: %v", err)
	}

	out, _, err = runCLI(t, "", "tx", "get", node, tx.UID)
	if err != nil || !strings.Contains(out, `"transaction"`) || !strings.Contains(out, `"history"`) || !strings.Contains(out, tx.UID) {
		t.Fatalf("tx get: %v %q", err, out)
	}

	out, _, err = runCLI(t, "", "tx", "list", node, "--queue", "zk", "--limit", "2")
	var page struct {
		Transactions []client.Transaction `json:"transactions"`
		Next         string               `json:"next"`
	}
	if err != nil || json.Unmarshal([]byte(out), &page) != nil || len(page.Transactions) != 2 || page.Next == "" {
		t.Fatalf("tx list: %v %q", err, out)
	}
	out, _, err = runCLI(t, "", "tx", "list", node, "--queue", "zk", "--cursor", page.Next, "--state", "WAITING")
	if err != nil || json.Unmarshal([]byte(out), &page) != nil || len(page.Transactions) != 1 || page.Next != "" {
		t.Fatalf("tx list page 2: %v %q", err, out)
	}

	if out, _, err = runCLI(t, "", "queues", node); err != nil || !strings.Contains(out, `"name": "zk"`) {
		t.Fatalf("queues: %v %q", err, out)
	}
	if out, _, err = runCLI(t, "", "queues", node, "zk"); err != nil || !strings.Contains(out, `"WAITING": 3`) {
		t.Fatalf("queues zk: %v %q", err, out)
	}
	// Senders are saved when the node starts.
	running, err := apitest.Start(apitest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { running.Close() })
	if out, _, err = runCLI(t, "", "senders", "--node", running.URL); err != nil || strings.Count(out, `"id"`) != 4 {
		t.Fatalf("senders: %v %q", err, out)
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"tx", "send", node, "--queue", "zk", "--type", "NOPE"}, "type_not_allowed: "},
		{[]string{"tx", "get", node, "tx_nope"}, `not_found: no transaction "tx_nope" (HTTP 404)`},
		{[]string{"tx", "list", node, "--state", "NOPE"}, "bad_query: "},
		{[]string{"queues", node, "nope"}, "not_found: "},
		{[]string{"tx", "send", node, "--queue", "zk", "--type", "SEND_CLAIM_VOTE", "--data", "{"}, "--data is not valid JSON"},
		{[]string{"tx", "send", node, "--queue", "zk"}, `required flag(s) "type" not set`},
		{[]string{"tx", "get", node}, "accepts 1 arg"},
		{[]string{"senders", "--node=http://127.0.0.1:1"}, "connection refused"},
	} {
		out, _, err := runCLI(t, "", tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) || out != "" {
			t.Errorf("%v: err %v, stdout %q; want an error containing %q", tt.args, err, out, tt.want)
		}
	}
	_, _, err = runCLI(t, "", "tx", "get", node, "tx_nope")
	var ae *client.APIError
	if !errors.As(err, &ae) || ae.Status != 404 {
		t.Errorf("the error does not wrap the APIError: %v", err)
	}
}

// ordo queues pages as ordo tx list does.
func TestQueuesCommandPages(t *testing.T) {
	n, err := apitest.Start(apitest.Options{NoRun: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	node := "--node=" + n.URL
	for _, q := range []string{"q1", "q2", "q3"} {
		if _, _, err := runCLI(t, "", "tx", "send", node, "--queue", q, "--type", "SEND_CLAIM_VOTE"); err != nil {
			t.Fatalf("tx send: %v", err)
		}
	}
	type page struct {
		Queues []client.Queue `json:"queues"`
		Next   string         `json:"next"`
	}
	var names []string
	cursor := ""
	for i := 0; ; i++ {
		args := []string{"queues", node, "--limit", "2"}
		if cursor != "" {
			args = append(args, "--cursor", cursor)
		}
		out, _, err := runCLI(t, "", args...)
		var p page
		if err != nil || json.Unmarshal([]byte(out), &p) != nil || !strings.Contains(out, `"next"`) {
			t.Fatalf("queues %v: %v %q", args, err, out)
		}
		for _, q := range p.Queues {
			names = append(names, q.Name)
		}
		if cursor = p.Next; cursor == "" || i > 5 {
			break
		}
	}
	if strings.Join(names, ",") != "q1,q2,q3" {
		t.Fatalf("queues over pages: %v", names)
	}
	out, _, err := runCLI(t, "", "queues", node)
	if all := (page{}); err != nil || json.Unmarshal([]byte(out), &all) != nil || len(all.Queues) != 3 || all.Next != "" {
		t.Fatalf("queues: %v %q", err, out)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"queues", node, "--limit", "1001"}, "bad_query: limit"},
		{[]string{"queues", node, "--cursor", "!"}, "bad_query: cursor"},
		{[]string{"queues", node, "q1", "--limit", "2"}, "do not go with NAME"},
	} {
		if out, _, err := runCLI(t, "", tt.args...); err == nil || !strings.Contains(err.Error(), tt.want) || out != "" {
			t.Errorf("%v: %v %q; want an error containing %q", tt.args, err, out, tt.want)
		}
	}
}

// ordo serve checks its flags at start, naming the field at fault, before it
// creates anything: --dev-senders 0 means no dev sender (so, alone, no
// sender at all), and --chain must be an http(s) URL.
func TestServeChecksFlags(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--dev-senders", "0"}, "devSenders: is 0 and no senders are configured"},
		{[]string{"--dev-senders", "-1"}, "devSenders: must not be negative"},
		{[]string{"--chain", "localhost:7545"}, "chain: must be an http(s) URL"},
		{[]string{"--chain", "ftp://127.0.0.1:7545"}, "chain: must be an http(s) URL"},
		{[]string{"--chain", "http://"}, "chain: must be an http(s) URL with a host"},
		{[]string{"--chain", "http://127.0.0.1:7545?x=1"}, "chain: must be a base URL, without a query"},
		{[]string{"--chain", "http://[::1"}, "chain: must be an http(s) URL"},
	} {
		data := filepath.Join(dir, "node")
		cmd := serveCommand()
		cmd.SetArgs(append([]string{"--data", data, "--listen", "127.0.0.1:0"}, tt.args...))
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		err := cmd.ExecuteContext(context.Background())
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("serve %v: %v; want %q", tt.args, err, tt.want)
		}
		if _, err := os.Stat(data); !os.IsNotExist(err) {
			t.Errorf("serve %v created its data directory", tt.args)
		}
	}
	// In a config file too: devSenders: 0 is zero, not the default.
	cfg := filepath.Join(dir, "ordo.yaml")
	if err := os.WriteFile(cfg, []byte("devSenders: 0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := serveCommand()
	cmd.SetArgs([]string{"--config", cfg, "--data", filepath.Join(dir, "node"), "--listen", "127.0.0.1:0"})
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	if err := cmd.ExecuteContext(context.Background()); err == nil || !strings.Contains(err.Error(), "devSenders: is 0") {
		t.Errorf("serve with devSenders: 0 in its config: %v", err)
	}
}

// The client commands send the token of --token, else of $ORDO_TOKEN; a
// node outside dev mode answers 401 without one, with a hint.
func TestClientCommandsToken(t *testing.T) {
	const tok = "cli-test-token-0123456789"
	n, err := apitest.Start(apitest.Options{NoRun: true, Principals: []auth.PrincipalConfig{
		{Principal: "cli", Token: tok, Roles: []auth.Role{auth.RoleSubmit, auth.RoleRead}}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	node := "--node=" + n.URL

	t.Setenv(tokenEnv, "")
	_, _, err = runCLI(t, "", "queues", node)
	if err == nil || !strings.Contains(err.Error(), "unauthenticated") || !strings.Contains(err.Error(), "--token") {
		t.Fatalf("queues without a token: %v", err)
	}
	if _, _, err := runCLI(t, "", "queues", node, "--token", tok); err != nil {
		t.Fatalf("queues --token: %v", err)
	}
	t.Setenv(tokenEnv, tok)
	if _, _, err := runCLI(t, "", "tx", "send", node, "--queue", "zk", "--type", "SEND_CLAIM_VOTE"); err != nil {
		t.Fatalf("tx send with ORDO_TOKEN: %v", err)
	}
	if _, _, err := runCLI(t, "", "senders", node, "--token", "another-token-0123456789"); err == nil || !strings.Contains(err.Error(), "unauthenticated") {
		t.Fatalf("--token wins over ORDO_TOKEN: %v", err)
	}
}

// ordo token prints the config lines of a principal with its token's
// SHA-256 on stdout, never the token: that goes to stderr, or to a new
// 0600 file with --token-file; so ordo token > node.yaml keeps no
// plaintext token in the config.
func TestTokenCommand(t *testing.T) {
	run := func(args ...string) (string, string) {
		t.Helper()
		cmd := tokenCommand()
		var out, errOut bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetErr(&errOut)
		cmd.SetArgs(args)
		if err := cmd.ExecuteContext(context.Background()); err != nil {
			t.Fatal(err)
		}
		return out.String(), errOut.String()
	}
	out, stderr := run("--principal", "alice", "--roles", "submit,read")
	_, tok, _ := strings.Cut(strings.TrimSpace(stderr), "is not in the config lines): ")
	var sum string
	for line := range strings.Lines(out) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "tokenSHA256: "); ok {
			sum = strings.TrimSpace(v)
		}
	}
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || len(raw) != 32 || sum != auth.TokenSHA256(tok) {
		t.Fatalf("token %q (%d bytes, %v), sha %q:\n%s\nstderr: %s", tok, len(raw), err, sum, out, stderr)
	}
	if strings.Contains(out, tok) {
		t.Fatalf("stdout holds the token:\n%s", out)
	}
	if other, otherErr := run(); strings.Contains(other+otherErr, tok) {
		t.Fatal("two runs printed the same token")
	}
	// --token-file: the token in a new file of mode 0600, nowhere else.
	dir := t.TempDir()
	tf := filepath.Join(dir, "app.token")
	fout, ferr := run("--principal", "bob", "--token-file", tf)
	b, err := os.ReadFile(tf)
	if err != nil {
		t.Fatal(err)
	}
	ftok := strings.TrimSpace(string(b))
	if st, err := os.Stat(tf); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode: %v %v", st.Mode(), err)
	}
	if !strings.Contains(fout, auth.TokenSHA256(ftok)) || strings.Contains(fout+ferr, ftok) || !strings.Contains(fout, tf) {
		t.Fatalf("with --token-file:\nstdout %s\nstderr %s", fout, ferr)
	}
	cmd := tokenCommand()
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	cmd.SetArgs([]string{"--token-file", tf})
	if err := cmd.ExecuteContext(context.Background()); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Fatalf("an existing token file: %v", err)
	}
	if b2, _ := os.ReadFile(tf); string(b2) != string(b) {
		t.Fatal("the existing token file was overwritten")
	}
	// The printed lines are a config the node accepts, and its principal
	// is authenticated by the token.
	file := filepath.Join(t.TempDir(), "ordo.yaml")
	if err := os.WriteFile(file, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := node.LoadConfig(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	a, err := auth.New(cfg.Auth())
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest("GET", "/", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	if p, err := a.Authenticate(req); err != nil || p.Name != "alice" || !p.Has(auth.RoleSubmit) || p.Has(auth.RoleAdmin) {
		t.Fatalf("the printed principal: %v %v", p, err)
	}
	cmd = tokenCommand()
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	cmd.SetArgs([]string{"--roles", "Not A Role"})
	if err := cmd.ExecuteContext(context.Background()); err == nil || !strings.Contains(err.Error(), "roles[0]") {
		t.Fatalf("a bad role: %v", err)
	}
}

// The client commands talk to a node over HTTPS: its certificate is
// trusted through --ca-file (or $ORDO_CA_FILE) and refused without.
func TestClientCommandsCAFile(t *testing.T) {
	n, err := apitest.Start(apitest.Options{NoRun: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	srv := httptest.NewUnstartedServer(n.Handler)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake
	srv.StartTLS()
	t.Cleanup(srv.Close)
	ca := filepath.Join(t.TempDir(), "node.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	node := "--node=" + srv.URL
	t.Setenv(caFileEnv, "")
	if _, _, err := runCLI(t, "", "senders", node); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("without a CA file: %v", err)
	}
	if _, _, err := runCLI(t, "", "senders", node, "--ca-file", ca); err != nil {
		t.Fatalf("--ca-file: %v", err)
	}
	t.Setenv(caFileEnv, ca)
	if _, _, err := runCLI(t, "", "tx", "send", node, "--queue", "zk", "--type", "SEND_CLAIM_VOTE"); err != nil {
		t.Fatalf("$%s: %v", caFileEnv, err)
	}
	if _, _, err := runCLI(t, "", "senders", node, "--ca-file", filepath.Join(t.TempDir(), "none.pem")); err == nil || !strings.Contains(err.Error(), "CA file") {
		t.Fatalf("a missing CA file: %v", err)
	}
}
