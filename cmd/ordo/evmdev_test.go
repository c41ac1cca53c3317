package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/spf13/cobra"

	"github.com/ordolabs/ordo/internal/chain/evm/contracts"
	"github.com/ordolabs/ordo/internal/chain/evm/evmdev"
)

// syncBuffer is a bytes.Buffer safe for a command writing while a test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// runOrdo runs `ordo args...` with ctx and returns its stdout and error.
func runOrdo(ctx context.Context, out *syncBuffer, args ...string) error {
	root := &cobra.Command{Use: "ordo", SilenceUsage: true, SilenceErrors: true}
	registerLogFlags(root.PersistentFlags())
	root.AddCommand(evmdevCommand(), evmCommand())
	var errOut syncBuffer
	root.SetOut(out)
	root.SetErr(&errOut)
	root.SetArgs(args)
	return root.ExecuteContext(ctx)
}

var configRE = regexp.MustCompile(`(?m)^evm:\n  urls: \[(ws://[^,]+), (http://[^\]]+)\]\n  chainId: (\d+)\n  router: "(0x[0-9a-f]{40})"\n  contracts:\n    voting: \{address: "(0x[0-9a-f]{40})", abi: Voting\}\n`)

func TestEVMDevCommand(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var out syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- runOrdo(ctx, &out, "evmdev", "--http", "127.0.0.1:0", "--ws", "127.0.0.1:0", "--accounts", "2", "--chain-id", "4242", "--block-time", "100ms", "--data", t.TempDir())
	}()
	var m []string
	deadline := time.Now().Add(30 * time.Second)
	for m == nil {
		select {
		case err := <-done:
			t.Fatalf("ordo evmdev ended: %v\n%s", err, out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no config printed within 30s:\n%s", out.String())
		}
		m = configRE.FindStringSubmatch(out.String())
		time.Sleep(20 * time.Millisecond)
	}
	if m[3] != "4242" {
		t.Errorf("chainId %s, want 4242", m[3])
	}
	for _, want := range []string{
		"  0  " + evmdev.AddressString(evmdev.DevAddress(0)) + "  ",
		"  1  " + evmdev.AddressString(evmdev.DevAddress(1)) + "  ",
		"dev0.key", "dev1.key", "development only",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	router := common.HexToAddress(m[4])
	for _, url := range []string{m[1], m[2]} {
		cl, err := ethclient.DialContext(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		id, err := cl.ChainID(ctx)
		if err != nil || id.Uint64() != 4242 {
			t.Errorf("%s: chain id %v, %v", url, id, err)
		}
		ok := contractValue(t, cl, router, contracts.NewOrdoRouter().PackIsSubmitter(evmdev.DevAddress(1)), contracts.NewOrdoRouter().UnpackIsSubmitter)
		if !ok {
			t.Errorf("%s: isSubmitter(dev 1) is false", url)
		}
		cl.Close()
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ordo evmdev at its end: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("ordo evmdev did not stop within 30s of its context's end")
	}
}

func TestEVMDevCommandRefuses(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--http", "0.0.0.0:0"}, "--allow-public"},
		{[]string{"--ws", "192.0.2.1:0", "--http", "127.0.0.1:0"}, "--allow-public"},
		{[]string{"--block-time", "0"}, "at least 50ms"},
		{[]string{"--min-tip", "1gwei"}, "whole number of wei"},
	} {
		var out syncBuffer
		err := runOrdo(t.Context(), &out, append([]string{"evmdev"}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ordo evmdev %s: %v; want %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}
