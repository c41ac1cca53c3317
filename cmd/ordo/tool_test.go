package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/spf13/cobra"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/evm"
	"github.com/ordolabs/ordo/internal/tool"
)

// runTool runs `ordo tool args...` and returns stdout, stderr and the error.
func runTool(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	root := &cobra.Command{Use: "ordo", SilenceUsage: true, SilenceErrors: true}
	root.AddCommand(toolCommand())
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(append([]string{"tool"}, args...))
	err := root.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

func TestToolServeRefusesBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"serve"}, // --example is required
		{"serve", "--example", "nope", "--listen", "127.0.0.1:0"},
		{"serve", "--example", "arith", "--listen", "127.0.0.1:0", "--require-leader", "alice"},
	} {
		if _, _, err := runTool(t, args...); err == nil {
			t.Errorf("ordo tool %s succeeded", strings.Join(args, " "))
		}
	}
}

func TestToolInvokeAndMeta(t *testing.T) {
	seed := bytes.Repeat([]byte{7}, 32)
	keyFile := filepath.Join(t.TempDir(), "leader.hex")
	if err := os.WriteFile(keyFile, []byte(hex.EncodeToString(seed)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	k, err := chain.ReadSeedFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	leader := string(chain.KeyAddress(k))
	srv, err := newToolServer("arith", []string{leader})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()

	out, _, err := runTool(t, "meta", hs.URL)
	var m tool.Meta
	if err != nil || json.Unmarshal([]byte(out), &m) != nil || m.Name != "arith" {
		t.Fatalf("tool meta: %q, %v", out, err)
	}
	out, stderr, err := runTool(t, "invoke", hs.URL, `{"op":"mul","a":6,"b":7}`, "--key-file", keyFile)
	if err != nil || strings.TrimSpace(out) != "{\n  \"result\": 42\n}" || !strings.Contains(stderr, leader) {
		t.Fatalf("tool invoke: %q %q %v", out, stderr, err)
	}
	// Unsigned: refused by a server that requires a leader, and fatal.
	_, _, err = runTool(t, "invoke", hs.URL, `{"op":"mul","a":6,"b":7}`)
	var ie *tool.InvokeError
	if !errors.As(err, &ie) || ie.Retriable || ie.Code != tool.CodeUnsigned {
		t.Fatalf("unsigned invoke: %v", err)
	}
	// Division by zero: 422.
	_, _, err = runTool(t, "invoke", hs.URL, `{"op":"div","a":1,"b":0}`, "--key-file", keyFile)
	if !errors.As(err, &ie) || ie.Status != 422 || !strings.Contains(err.Error(), "division by zero") {
		t.Fatalf("div by zero: %v", err)
	}
}

// TestToolInvokeAsEVMLeader: `ordo tool serve --require-leader 0x…`
// accepts an invocation signed with --evm-key-file, and refuses an ed25519
// leader's.
func TestToolInvokeAsEVMLeader(t *testing.T) {
	dir := t.TempDir()
	evmKey := filepath.Join(dir, "evm.hex")
	if err := os.WriteFile(evmKey, []byte("0x"+hex.EncodeToString(crypto.FromECDSA(evm.DevKey(3)))+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	edKey := filepath.Join(dir, "leader.hex")
	if err := os.WriteFile(edKey, []byte(hex.EncodeToString(bytes.Repeat([]byte{7}, 32))), 0o600); err != nil {
		t.Fatal(err)
	}
	leader := string(evm.KeyAddress(evm.DevKey(3)))
	srv, err := newToolServer("arith", []string{leader})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()

	out, stderr, err := runTool(t, "invoke", hs.URL, `{"op":"add","a":40,"b":2}`, "--evm-key-file", evmKey)
	if err != nil || strings.TrimSpace(out) != "{\n  \"result\": 42\n}" || !strings.Contains(stderr, leader) {
		t.Fatalf("tool invoke as %s: %q %q %v", leader, out, stderr, err)
	}
	_, _, err = runTool(t, "invoke", hs.URL, `{"op":"add","a":40,"b":2}`, "--key-file", edKey)
	var ie *tool.InvokeError
	if !errors.As(err, &ie) || ie.Code != tool.CodeUnknownLeader {
		t.Fatalf("an ed25519 leader's invoke: %v", err)
	}
	if _, _, err := runTool(t, "invoke", hs.URL, `{}`, "--key-file", edKey, "--evm-key-file", evmKey); err == nil {
		t.Fatal("invoke with both key files succeeded")
	}
}
