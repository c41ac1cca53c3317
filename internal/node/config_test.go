package node

import (
	"context"
	"strings"
	"testing"
	"time"
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
		got.Devchain.BlockTime != want.Devchain.BlockTime || len(got.AllowedTypes) != len(want.AllowedTypes) {
		t.Fatalf("example config %+v differs from defaults %+v", got, want)
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
