package node

import (
	"crypto/rand"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/identity"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/smm"
)

// TestPinRegistration: on an EVM chain the registration goes out on the
// sender of the replica-set updates (pinned with it), on the only sender
// without a pin, else on a sender of its own; off an EVM chain nothing is
// pinned.
func TestPinRegistration(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	k, err := identity.Generate(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := identity.NewCertificate(k, time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	keyFile, certFile := filepath.Join(dir, "node.key"), filepath.Join(dir, "node.crt")
	if err := identity.Save(keyFile, certFile, k, cert); err != nil {
		t.Fatal(err)
	}
	reg := RegisterQueue(string(k.ID()))
	senders := func(ids ...string) []sequencer.SenderConfig {
		var out []sequencer.SenderConfig
		for _, id := range ids {
			out = append(out, sequencer.SenderConfig{ID: chain.Address(id)})
		}
		return out
	}
	evmCfg := Config{EVM: EVMConfig{URLs: []string{"http://x:1"}}, Distseq: DistseqConfig{Key: keyFile, Cert: certFile, Registry: true}}
	for _, c := range []struct {
		name    string
		cfg     Config
		senders []sequencer.SenderConfig
		pins    map[string]string
		acc     string
		pinned  string // the registration's pin, "" for none
		wantErr string
	}{
		{"devchain", Config{Distseq: evmCfg.Distseq}, senders("0xa", "0xb"), nil, "", "", ""},
		{"one sender", evmCfg, senders("0xa"), nil, "0xa", "", ""},
		{"with replication's sender", evmCfg, senders("0xa", "0xb", "0xc"), map[string]string{smm.SetsQueue: "0xa"}, "0xa", "0xa", ""},
		{"a sender of its own", evmCfg, senders("0xa", "0xb", "0xc"), map[string]string{"lead/0": "0xc"}, "0xb", "0xb", ""},
		{"every sender pinned", evmCfg, senders("0xa", "0xb"), map[string]string{"x": "0xa", "y": "0xb"}, "", "", "every sender is pinned"},
		{"no sender", evmCfg, nil, nil, "", "", "no sender"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			pins, acc, err := pinRegistration(c.cfg, c.senders, c.pins)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil || acc != c.acc || pins[reg] != c.pinned {
				t.Errorf("account %q, registration pinned to %q (%v); want %q, %q", acc, pins[reg], err, c.acc, c.pinned)
			}
		})
	}
}
