package chain_test

import (
	"crypto/ed25519"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
)

// TestReadSeedFile: a file holding the hex of a 32-byte seed (space
// around it ignored) gives its key; anything else is an error.
func TestReadSeedFile(t *testing.T) {
	t.Parallel()
	seed := make([]byte, ed25519.SeedSize)
	seed[0] = 7
	for _, tt := range []struct {
		name, body string
		ok         bool
	}{
		{"hex with a newline", "  " + hex.EncodeToString(seed) + "\n", true},
		{"short", hex.EncodeToString(seed[:16]), false},
		{"not hex", "zz", false},
	} {
		path := filepath.Join(t.TempDir(), "key")
		if err := os.WriteFile(path, []byte(tt.body), 0o600); err != nil {
			t.Fatal(err)
		}
		k, err := chain.ReadSeedFile(path)
		if (err == nil) != tt.ok || (tt.ok && !k.Equal(ed25519.NewKeyFromSeed(seed))) {
			t.Errorf("%s: %v, %v", tt.name, k, err)
		}
	}
	if _, err := chain.ReadSeedFile(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("a missing file read")
	}
}
