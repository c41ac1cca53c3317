package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/testkit/ports"
)

// freeAddr returns a loopback address whose port was free a moment ago,
// below the kernel's ephemeral range (internal/testkit/ports).
func freeAddr(t *testing.T) string {
	t.Helper()
	addr, err := ports.Addr()
	if err != nil {
		t.Fatal(err)
	}
	return addr
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

// serveToken is the admin token of the serve tests' principal.
const serveToken = "serve-test-admin-token-0123"

// principalsYAML is a config's principals: one admin with serveToken.
const principalsYAML = "principals:\n  - principal: root\n    token: " + serveToken + "\n    roles: [admin]\n"

// ordo serve serves the in-process devchain's dev routes on its address only
// with --dev-mode (or devMode: true in its config); its reads always (to a
// principal with read outside dev mode).
func TestServeDevMode(t *testing.T) {
	dir := t.TempDir()
	cfg, auth := filepath.Join(dir, "dev.yaml"), filepath.Join(dir, "auth.yaml")
	if err := os.WriteFile(cfg, []byte("devMode: true\n"+principalsYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(auth, []byte(principalsYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		args []string
		dev  bool
	}{
		{"default", []string{"--config", auth}, false},
		{"--dev-mode", []string{"--dev-mode"}, true},
		{"devMode in the config", []string{"--config", cfg}, true},
		{"--dev-mode=false over the config", []string{"--config", cfg, "--dev-mode=false"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			url := startServe(t, tt.args...)
			get, _ := http.NewRequest("GET", url+"/v1/head", nil)
			resp, err := http.DefaultClient.Do(get)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if want := map[bool]int{true: http.StatusOK, false: http.StatusUnauthorized}[tt.dev]; resp.StatusCode != want {
				t.Fatalf("GET /v1/head without a token: %d, want %d", resp.StatusCode, want)
			}
			get.Header.Set("Authorization", "Bearer "+serveToken)
			resp, err = http.DefaultClient.Do(get)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET /v1/head: %d", resp.StatusCode)
			}
			req, _ := http.NewRequest("POST", url+"/v1/dev/mine", strings.NewReader("{}"))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+serveToken)
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

// ordo serve without dev mode and without a principal refuses to start,
// saying how to add one; it listens on loopback unless told otherwise.
func TestServeNeedsAPrincipal(t *testing.T) {
	data := filepath.Join(t.TempDir(), "node")
	cmd := serveCommand()
	cmd.SetArgs([]string{"--data", data, "--listen", "127.0.0.1:0"})
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	err := cmd.ExecuteContext(context.Background())
	if err == nil {
		t.Fatal("serve started without a principal and without dev mode")
	}
	for _, s := range []string{"no principal", "principals:", "tokenSHA256:", "ordo token", "--token", "ORDO_TOKEN", "--dev-mode"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("the refusal does not say %q:\n%v", s, err)
		}
	}
	if _, statErr := os.Stat(data); !os.IsNotExist(statErr) {
		t.Errorf("a refused serve touched its data directory: %v", statErr)
	}
	if def := serveCommand().Flags().Lookup("listen").DefValue; def != "127.0.0.1:7070" {
		t.Errorf("--listen defaults to %q, want 127.0.0.1:7070", def)
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
	cmd.SetArgs([]string{"--data", filepath.Join(t.TempDir(), "node"), "--listen", "127.0.0.1:0", "--chain", srv.URL, "--dev-senders", "2", "--dev-mode"})
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	err = cmd.ExecuteContext(context.Background())
	if err == nil || !strings.Contains(err.Error(), "the chain at "+srv.URL+" answered the faucet not_dev_mode") {
		t.Fatalf("serve --dev-senders 2 on a chain without a faucet: %v", err)
	}
}
