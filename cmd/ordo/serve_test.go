package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain/devchain"
)

// freeAddr returns a loopback address whose port was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startServe runs `ordo serve args...` on a free address until the test
// ends and returns its base URL once it answers /healthz.
func startServe(t *testing.T, args ...string) string {
	t.Helper()
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := serveCommand()
	cmd.SetArgs(append([]string{"--data", filepath.Join(t.TempDir(), "node"), "--listen", addr, "--block-time", "100ms"}, args...))
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("serve did not stop 10s after its context ended")
		}
	})
	url := "http://" + addr
	for deadline := time.Now().Add(10 * time.Second); ; {
		select {
		case err := <-done:
			t.Fatalf("serve stopped: %v", err)
		default:
		}
		if resp, err := http.Get(url + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("serve did not answer /healthz within 10s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ordo serve serves the in-process devchain's dev routes on its address only
// with --dev-mode (or devMode: true in its config); its reads always.
func TestServeDevMode(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "ordo.yaml")
	if err := os.WriteFile(cfg, []byte("devMode: true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		args []string
		dev  bool
	}{
		{"default", nil, false},
		{"--dev-mode", []string{"--dev-mode"}, true},
		{"devMode in the config", []string{"--config", cfg}, true},
		{"--dev-mode=false over the config", []string{"--config", cfg, "--dev-mode=false"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			url := startServe(t, tt.args...)
			resp, err := http.Get(url + "/v1/head")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET /v1/head: %d", resp.StatusCode)
			}
			req, _ := http.NewRequest("POST", url+"/v1/dev/mine", strings.NewReader("{}"))
			req.Header.Set("Content-Type", "application/json")
			resp, err = http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body struct {
				Error struct{ Code, Message string }
			}
			_ = json.NewDecoder(resp.Body).Decode(&body)
			if tt.dev {
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("POST /v1/dev/mine in dev mode: %d %+v", resp.StatusCode, body)
				}
				return
			}
			if resp.StatusCode != http.StatusForbidden || body.Error.Code != "read_only" || !strings.Contains(body.Error.Message, "--dev-mode") {
				t.Fatalf("POST /v1/dev/mine outside dev mode: %d %+v; want 403 read_only naming --dev-mode", resp.StatusCode, body)
			}
		})
	}
}

// --dev-senders on a devchain started with --no-dev-mode (no faucet) is
// refused with a sentence naming its URL.
func TestServeDevSendersWithoutAFaucet(t *testing.T) {
	c, err := devchain.New(devchain.Config{NoDevMode: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	srv := httptest.NewServer(devchain.NewHandler(c))
	t.Cleanup(srv.Close)
	cmd := serveCommand()
	cmd.SetArgs([]string{"--data", filepath.Join(t.TempDir(), "node"), "--listen", "127.0.0.1:0", "--chain", srv.URL, "--dev-senders", "2"})
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	err = cmd.ExecuteContext(context.Background())
	if err == nil || !strings.Contains(err.Error(), "the chain at "+srv.URL+" answered the faucet not_dev_mode") {
		t.Fatalf("serve --dev-senders 2 on a chain without a faucet: %v", err)
	}
}
