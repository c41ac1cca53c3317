package evmdev

import (
	"bytes"
	"crypto/ecdsa"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// devKeyPrefix is hashed with the account's index into its dev key.
const devKeyPrefix = "ordo/evm/dev/"

// ErrKeyPassword is returned by ParseKey for a keystore file given no
// password, or the wrong one.
var ErrKeyPassword = errors.New("keystore key file: missing or wrong password")

// DevKey returns dev account i's key: the secp256k1 private key whose scalar
// is keccak256("ordo/evm/dev/<i>"). These keys are public (anyone can derive
// them): they are for development chains only, never for a chain with value.
// It panics for i < 0, and for the (never yet seen) hash that is no valid
// scalar.
func DevKey(i int) *ecdsa.PrivateKey {
	if i < 0 {
		panic(fmt.Sprintf("evmdev: dev key index %d < 0", i))
	}
	k, err := crypto.ToECDSA(crypto.Keccak256([]byte(devKeyPrefix + strconv.Itoa(i))))
	if err != nil {
		panic(fmt.Sprintf("evmdev: dev key %d: %v", i, err))
	}
	return k
}

// DevAddress returns dev account i's address (of DevKey(i)).
func DevAddress(i int) common.Address { return crypto.PubkeyToAddress(DevKey(i).PublicKey) }

// AddressString is addr as ordo's chain.Address spells an EVM address:
// "0x" and 40 lowercase hex digits.
func AddressString(addr common.Address) string { return strings.ToLower(addr.Hex()) }

// WriteKeyFile writes key to path as a raw key file (geth's format, which
// crypto.LoadECDSA reads: 64 hex digits, here followed by a newline), readable
// by its owner only (0600).
func WriteKeyFile(path string, key *ecdsa.PrivateKey) error {
	b := []byte(hex.EncodeToString(crypto.FromECDSA(key)) + "\n")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return fmt.Errorf("writing key file: %w", err)
	}
	// WriteFile keeps the mode of a file that existed.
	if err := os.Chmod(path, 0o600); err != nil {
		return fmt.Errorf("writing key file: %w", err)
	}
	return nil
}

// writeDevKeyFiles writes dev keys 0..n-1 to dir as dev<i>.key and returns
// their paths.
func writeDevKeyFiles(dir string, keys []*ecdsa.PrivateKey) ([]string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("key directory: %w", err)
	}
	paths := make([]string, len(keys))
	for i, k := range keys {
		paths[i] = filepath.Join(dir, fmt.Sprintf("dev%d.key", i))
		if err := WriteKeyFile(paths[i], k); err != nil {
			return nil, err
		}
	}
	return paths, nil
}

// ParseKey reads a secp256k1 private key from a key file's content: a Web3
// Secret Storage keystore file (geth's keystore: JSON, decrypted with
// password), or a raw key file (64 hex digits, an optional 0x, surrounding
// white space ignored). A keystore file without its password, or with a wrong
// one, is ErrKeyPassword.
func ParseKey(data []byte, password string) (*ecdsa.PrivateKey, error) {
	data = bytes.TrimSpace(data)
	if bytes.HasPrefix(data, []byte("{")) {
		if password == "" {
			return nil, fmt.Errorf("%w: the key file is a keystore file and no password was given", ErrKeyPassword)
		}
		k, err := keystore.DecryptKey(data, password)
		if errors.Is(err, keystore.ErrDecrypt) {
			return nil, fmt.Errorf("%w: %w", ErrKeyPassword, err)
		}
		if err != nil {
			return nil, fmt.Errorf("keystore key file: %w", err)
		}
		return k.PrivateKey, nil
	}
	s := strings.TrimPrefix(strings.TrimPrefix(string(data), "0x"), "0X")
	if len(s) != 64 {
		return nil, fmt.Errorf("raw key file: want 64 hex digits, got %d characters", len(s))
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("raw key file: %w", err)
	}
	k, err := crypto.ToECDSA(b)
	if err != nil {
		return nil, fmt.Errorf("raw key file: %w", err)
	}
	return k, nil
}
