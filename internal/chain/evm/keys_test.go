package evm_test

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/ordolabs/ordo/internal/chain/evm"
)

// TestLoadKey reads a geth keystore file (written by keystore here) and
// raw key files, and refuses a wrong passphrase and malformed files.
func TestLoadKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	k := testKey(t, "keyfile")
	ks := keystore.NewKeyStore(filepath.Join(dir, "ks"), keystore.LightScryptN, keystore.LightScryptP)
	acct, err := ks.ImportECDSA(k, "secret")
	if err != nil {
		t.Fatal(err)
	}
	hexk := hex.EncodeToString(crypto.FromECDSA(k))
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	want := evm.KeyAddress(k)
	for _, tc := range []struct {
		name, path, pass string
		ok               bool
	}{
		{"keystore", acct.URL.Path, "secret", true},
		{"keystore, wrong passphrase", acct.URL.Path, "wrong", false},
		{"raw", file("raw", hexk), "", true},
		{"raw with 0x and space", file("prefixed", " 0x"+hexk+"\n"), "", true},
		{"raw, too short", file("short", hexk[2:]), "", false},
		{"not a key", file("bad", "not a key at all, and long enough to be 64 chars when padded out"), "", false},
		{"missing", filepath.Join(dir, "none"), "", false},
	} {
		got, err := evm.LoadKey(tc.path, tc.pass)
		if tc.ok != (err == nil) {
			t.Errorf("%s: err %v, want ok %v", tc.name, err, tc.ok)
			continue
		}
		if tc.ok && evm.KeyAddress(got) != want {
			t.Errorf("%s: address %s, want %s", tc.name, evm.KeyAddress(got), want)
		}
	}
	// Dev keys are fixed: keccak256("ordo/evm/dev/<i>").
	if d0, d1 := evm.DevKey(0), evm.DevKey(1); evm.KeyAddress(d0) == evm.KeyAddress(d1) ||
		hex.EncodeToString(crypto.FromECDSA(d0)) != hex.EncodeToString(crypto.Keccak256([]byte("ordo/evm/dev/0"))) {
		t.Error("dev keys are not keccak256(ordo/evm/dev/<i>)")
	}
}
