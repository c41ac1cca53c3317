package evmdev_test

import (
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/ordolabs/ordo/internal/chain/evm/evmdev"
)

func TestDevKey(t *testing.T) {
	t.Parallel()
	seen := map[string]int{}
	for i := range 20 {
		k := evmdev.DevKey(i)
		want := crypto.Keccak256([]byte("ordo/evm/dev/" + strconv.Itoa(i)))
		if hex.EncodeToString(crypto.FromECDSA(k)) != hex.EncodeToString(want) {
			t.Errorf("DevKey(%d) is not keccak256(\"ordo/evm/dev/%d\")", i, i)
		}
		if evmdev.DevAddress(i) != crypto.PubkeyToAddress(k.PublicKey) {
			t.Errorf("DevAddress(%d) is not DevKey(%d)'s address", i, i)
		}
		a := evmdev.AddressString(evmdev.DevAddress(i))
		if len(a) != 42 || a != strings.ToLower(a) || !strings.HasPrefix(a, "0x") {
			t.Errorf("address %q is not 0x and 40 lowercase hex", a)
		}
		if j, ok := seen[a]; ok {
			t.Errorf("DevKey(%d) and DevKey(%d) share %s", i, j, a)
		}
		seen[a] = i
	}
}

func TestParseKey(t *testing.T) {
	t.Parallel()
	key := evmdev.DevKey(7)
	raw := hex.EncodeToString(crypto.FromECDSA(key))
	ks := keystore.NewKeyStore(t.TempDir(), keystore.LightScryptN, keystore.LightScryptP)
	acct, err := ks.ImportECDSA(key, "pw")
	if err != nil {
		t.Fatal(err)
	}
	ksJSON, err := os.ReadFile(acct.URL.Path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, data, password string
		wantErr              string
		wantPassword         bool
	}{
		{name: "raw", data: raw},
		{name: "raw with 0x and newline", data: "0x" + raw + "\n"},
		{name: "keystore", data: string(ksJSON), password: "pw"},
		{name: "keystore without password", data: string(ksJSON), wantErr: "no password", wantPassword: true},
		{name: "keystore wrong password", data: string(ksJSON), password: "nope", wantErr: "could not decrypt", wantPassword: true},
		{name: "short", data: raw[:60], wantErr: "want 64 hex digits"},
		{name: "not hex", data: strings.Repeat("zz", 32), wantErr: "invalid byte"},
		{name: "zero key", data: strings.Repeat("00", 32), wantErr: "invalid private key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			k, err := evmdev.ParseKey([]byte(tc.data), tc.password)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParseKey: %v; want %q", err, tc.wantErr)
				}
				if errors.Is(err, evmdev.ErrKeyPassword) != tc.wantPassword {
					t.Errorf("errors.Is(%v, ErrKeyPassword) = %v", err, !tc.wantPassword)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !k.Equal(key) {
				t.Error("ParseKey returned another key")
			}
		})
	}
}

func TestWriteKeyFileMode(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "k")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := evmdev.WriteKeyFile(p, evmdev.DevKey(1)); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	k, err := evmdev.ParseKey(b, "")
	if err != nil || !k.Equal(evmdev.DevKey(1)) {
		t.Errorf("read back: %v", err)
	}
}
