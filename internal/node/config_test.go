package node

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/sequencer"
)

// The example config documents every field with its default: it must load,
// and loading it must give what SetDefaults gives an empty config.
func TestExampleConfigIsTheDefaults(t *testing.T) {
	got, err := LoadConfig("../../docs/ordo.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got.SetDefaults()
	var want Config
	want.SetDefaults()
	if got.Listen != want.Listen || got.Data != want.Data || got.DevSenders != want.DevSenders ||
		got.RetryDelay != want.RetryDelay || got.MaxRetries != want.MaxRetries ||
		got.InclusionTimeoutBlocks != want.InclusionTimeoutBlocks || got.WorkerTimeout != want.WorkerTimeout ||
		got.Devchain.BlockTime != want.Devchain.BlockTime || len(got.AllowedTypes) != len(want.AllowedTypes) ||
		got.MaxDataDepth != want.MaxDataDepth || len(got.API.CORSOrigins) != len(want.API.CORSOrigins) {
		t.Fatalf("example config %+v differs from defaults %+v", got, want)
	}
	if got.MaxDataDepth != 64 {
		t.Fatalf("maxDataDepth %d", got.MaxDataDepth)
	}
	if len(got.Principals) != 0 || got.OpenReads || !reflect.DeepEqual(got.IntakeAccess.TypeRoles, want.IntakeAccess.TypeRoles) {
		t.Fatalf("access: principals %v, openReads %v, typeRoles %v; want none, false, %v", got.Principals, got.OpenReads, got.IntakeAccess.TypeRoles, want.IntakeAccess.TypeRoles)
	}
	if time.Duration(got.RetryDelay) != 5*time.Second {
		t.Fatalf("retry delay %v", time.Duration(got.RetryDelay))
	}
}

func TestConfigRejectsUnknownFields(t *testing.T) {
	p := t.TempDir() + "/c.yaml"
	if err := writeFile(p, "listen: x\nbogus: 1\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(p); err == nil {
		t.Fatal("unknown field accepted")
	}
}

// An allowed type without a dispatcher stops the node at start, naming it.
func TestBuildRefusesAllowedTypeWithoutDispatcher(t *testing.T) {
	cfg := Config{Data: t.TempDir(), AllowedTypes: []string{"SEND_CLAIM_VOTE", "MINT_NFT"}, DevSenders: 1}
	n, err := Build(context.Background(), cfg, Options{})
	if err == nil {
		n.Close()
		t.Fatal("Build accepted an allowed type with no dispatcher")
	}
	if !strings.Contains(err.Error(), "MINT_NFT") {
		t.Fatalf("error %q does not name the type", err)
	}
}

// devSenders given as 0, in the file or by SetDevSenders, means no dev
// senders; left out, it means the default.
func TestDevSendersZeroMeansZero(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		yaml string
		want int
	}{
		{"listen: x\n", 8},
		{"devSenders: 3\n", 3},
		{"devSenders: 0\nsenders: [{keyFile: k.hex}]\n", 0},
		{"senders: [{keyFile: k.hex}]\n", 0},
		{"devSenders: 2\nsenders: [{keyFile: k.hex}]\n", 2},
	} {
		p := filepath.Join(dir, "c.yaml")
		if err := writeFile(p, tt.yaml); err != nil {
			t.Fatal(err)
		}
		c, err := LoadConfig(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("%q: %v", tt.yaml, err)
		}
		c.SetDefaults()
		if c.DevSenders != tt.want {
			t.Errorf("%q: devSenders %d, want %d", tt.yaml, c.DevSenders, tt.want)
		}
	}
	if err := writeFile(filepath.Join(dir, "c.yaml"), "devSenders: 0\n"); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(filepath.Join(dir, "c.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "devSenders: is 0 and no senders are configured") {
		t.Fatalf("devSenders: 0 alone: %v", err)
	}
	var set Config
	set.SetDevSenders(0)
	set.Senders = []SenderFile{{KeyFile: "k.hex"}}
	set.SetDefaults()
	if set.DevSenders != 0 {
		t.Fatalf("SetDevSenders(0): %d after SetDefaults", set.DevSenders)
	}
}

// A node built with devSenders 0 and one key-file sender has that sender
// only, and creates no dev keystore.
func TestBuildWithZeroDevSenders(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "k.hex")
	if err := writeFile(key, strings.Repeat("ab", 32)+"\n"); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Data: filepath.Join(dir, "data"), Senders: []SenderFile{{KeyFile: key}}}
	cfg.SetDevSenders(0)
	n, err := Build(context.Background(), cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if n.Config.DevSenders != 0 {
		t.Fatalf("devSenders %d", n.Config.DevSenders)
	}
	if _, err := os.Stat(filepath.Join(cfg.Data, "keys.json")); !os.IsNotExist(err) {
		t.Fatalf("a dev keystore was made: %v", err)
	}
}

// The config's intake rules and CORS origins reach what it builds.
func TestConfigIntakeAndCORS(t *testing.T) {
	var c Config
	c.SetDefaults()
	if got := c.Intake(); got.MaxDataDepth != sequencer.DefaultMaxDataDepth {
		t.Fatalf("default intake rules %+v", got)
	}
	c.MaxDataDepth = 7
	if got := c.Intake(); got.MaxDataDepth != 7 {
		t.Fatalf("intake rules %+v", got)
	}
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	preflight := func(h http.Handler) *httptest.ResponseRecorder {
		req := httptest.NewRequest("OPTIONS", "/v1/transactions", nil)
		req.Header.Set("Origin", "https://app.example.com")
		req.Header.Set("Access-Control-Request-Method", "POST")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	h, err := c.WrapHandler(inner)
	if err != nil {
		t.Fatal(err)
	}
	if w := preflight(h); w.Code != http.StatusTeapot || w.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("without origins: %d %v", w.Code, w.Header())
	}
	c.API.CORSOrigins = []string{"https://app.example.com"}
	if h, err = c.WrapHandler(inner); err != nil {
		t.Fatal(err)
	}
	if w := preflight(h); w.Code != http.StatusNoContent || w.Header().Get("Access-Control-Allow-Origin") != "https://app.example.com" {
		t.Fatalf("with an origin: %d %v", w.Code, w.Header())
	}
	c.API.CORSOrigins = []string{"*"}
	if _, err := c.WrapHandler(inner); err == nil || !strings.Contains(err.Error(), "api.corsOrigins") {
		t.Fatalf("wildcard: %v", err)
	}
}
