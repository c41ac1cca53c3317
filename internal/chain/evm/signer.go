package evm

import (
	"bytes"
	"crypto/ecdsa"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/ordolabs/ordo/internal/chain"
)

// Scheme is the name of the EVM signing scheme.
const Scheme = "secp256k1"

// addressOf is a's ordo form: "0x" and 40 lowercase hex digits.
func addressOf(a common.Address) chain.Address {
	return chain.Address("0x" + hex.EncodeToString(a[:]))
}

// hashOf is h's ordo form: "0x" and 64 lowercase hex digits.
func hashOf(h common.Hash) chain.Hash { return chain.Hash("0x" + hex.EncodeToString(h[:])) }

func hexOf(b []byte) string { return "0x" + hex.EncodeToString(b) }

// ValidateAddress checks that a is "0x" and 40 lowercase hex digits.
func ValidateAddress(a chain.Address) error {
	s := string(a)
	if len(s) != 42 || !strings.HasPrefix(s, "0x") {
		return errors.New(`an EVM address is "0x" and 40 hex digits`)
	}
	for i := 2; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return errors.New("an EVM address is written in lowercase hex")
		}
	}
	return nil
}

// parseAddress reads an ordo address.
func parseAddress(a chain.Address) (common.Address, error) {
	if err := ValidateAddress(a); err != nil {
		return common.Address{}, fmt.Errorf("%w: address %q: %w", chain.ErrInvalidTx, a, err)
	}
	return common.HexToAddress(string(a)), nil
}

// parseHash reads an ordo hash ("0x" and 64 hex digits).
func parseHash(h chain.Hash) (common.Hash, bool) {
	s := string(h)
	if len(s) != 66 || !strings.HasPrefix(s, "0x") {
		return common.Hash{}, false
	}
	b, err := hex.DecodeString(s[2:])
	if err != nil {
		return common.Hash{}, false
	}
	return common.BytesToHash(b), true
}

// ecdsaKey is key as a secp256k1 key.
func ecdsaKey(key chain.Key) (*ecdsa.PrivateKey, error) {
	k, ok := key.(*ecdsa.PrivateKey)
	if !ok || k == nil || k.Curve != crypto.S256() {
		return nil, fmt.Errorf("%w: want a secp256k1 key, have %T", chain.ErrBadSignature, key)
	}
	return k, nil
}

// KeyAddress is the account of a secp256k1 key.
func KeyAddress(k *ecdsa.PrivateKey) chain.Address {
	return addressOf(crypto.PubkeyToAddress(k.PublicKey))
}

// DevKey is dev account i's key: keccak256("ordo/evm/dev/<i>"), the
// derivation ordo evmdev funds (evmdev.DevKey). These keys are public:
// for development chains only.
func DevKey(i int) *ecdsa.PrivateKey {
	k, err := crypto.ToECDSA(crypto.Keccak256([]byte(fmt.Sprintf("ordo/evm/dev/%d", i))))
	if err != nil { // a keccak digest is a valid key but with odds of 2^-128
		panic(err)
	}
	return k
}

// LoadKey reads a secp256k1 key from path: a Web3 Secret Storage key file
// (geth's keystore JSON), decrypted with passphrase, or a raw key file of
// 64 hex digits (an optional 0x, surrounding space ignored).
func LoadKey(path, passphrase string) (*ecdsa.PrivateKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("key file: %w", err)
	}
	t := bytes.TrimSpace(b)
	if len(t) > 0 && t[0] == '{' {
		k, err := keystore.DecryptKey(t, passphrase)
		if err != nil {
			return nil, fmt.Errorf("key file %s: %w", path, err)
		}
		return k.PrivateKey, nil
	}
	s := strings.TrimPrefix(string(t), "0x")
	if len(s) != 64 {
		return nil, fmt.Errorf("key file %s: neither a keystore JSON file nor 64 hex digits", path)
	}
	k, err := crypto.HexToECDSA(s)
	if err != nil {
		return nil, fmt.Errorf("key file %s: %w", path, err)
	}
	return k, nil
}

// Signer is the EVM signing scheme of one chain: EIP-1559 transactions
// signed with secp256k1 keys for its chain id, whose calldata it encodes
// from the registry (an intent through the router). It does no I/O.
type Signer struct {
	chainID    *big.Int
	signer     types.Signer
	reg        *registry
	tipPercent uint64
}

var _ chain.Signer = (*Signer)(nil)

func newSigner(chainID *big.Int, reg *registry, tipPercent uint64) *Signer {
	return &Signer{chainID: chainID, signer: types.LatestSignerForChainID(chainID), reg: reg, tipPercent: tipPercent}
}

// Scheme is "secp256k1".
func (s *Signer) Scheme() string { return Scheme }

// Address is the account key signs for.
func (s *Signer) Address(key chain.Key) (chain.Address, error) {
	k, err := ecdsaKey(key)
	if err != nil {
		return "", err
	}
	return KeyAddress(k), nil
}

// ValidateAddress checks an EVM address's form.
func (s *Signer) ValidateAddress(a chain.Address) error { return ValidateAddress(a) }

// Sign builds tx's EIP-1559 transaction, signs it with key and sets
// tx.Signature to the 65 bytes [R‖S‖V] in 0x hex; it returns the signed
// transaction's hash. Signing is deterministic (RFC 6979).
func (s *Signer) Sign(tx *chain.Tx, key chain.Key) (chain.Hash, error) {
	k, err := ecdsaKey(key)
	if err != nil {
		return "", err
	}
	tx.Args = chain.CanonicalArgs(tx.Args)
	unsigned, err := s.build(*tx)
	if err != nil {
		return "", err
	}
	h := s.signer.Hash(unsigned)
	sig, err := crypto.Sign(h[:], k)
	if err != nil {
		return "", fmt.Errorf("%w: %w", chain.ErrBadSignature, err)
	}
	signed, err := unsigned.WithSignature(s.signer, sig)
	if err != nil {
		return "", fmt.Errorf("%w: %w", chain.ErrBadSignature, err)
	}
	tx.Signature = hexOf(sig)
	return hashOf(signed.Hash()), nil
}

// tip is the priority fee of an attempt whose fee cap is fee.
func (s *Signer) tip(fee uint64) *big.Int {
	t := new(big.Int).SetUint64(fee)
	t.Mul(t, new(big.Int).SetUint64(s.tipPercent))
	t.Div(t, big.NewInt(100))
	if t.Sign() == 0 {
		t.SetInt64(1)
	}
	return t
}

// checkForm checks what the chain cannot: the sender's form, names, memo,
// a gas limit.
func checkForm(tx chain.Tx) error {
	if err := ValidateAddress(tx.From); err != nil {
		return fmt.Errorf("%w: from: %w", chain.ErrInvalidTx, err)
	}
	if tx.Contract != "" && !chain.ValidName(tx.Contract) || !chain.ValidName(tx.Method) {
		return fmt.Errorf("%w: contract and method must be 1-%d characters of [a-z0-9_-]", chain.ErrInvalidTx, chain.MaxName)
	}
	if !utf8.ValidString(tx.Memo) || len(tx.Memo) > chain.MaxMemo {
		return fmt.Errorf("%w: memo must be valid UTF-8 of at most %d bytes", chain.ErrInvalidTx, chain.MaxMemo)
	}
	if len(tx.Args) > chain.MaxArgs {
		return fmt.Errorf("%w: args are %d bytes, the limit is %d", chain.ErrInvalidTx, len(tx.Args), chain.MaxArgs)
	}
	if tx.Gas == 0 {
		return fmt.Errorf("%w: no gas limit (Gas 0): estimate it first (chain.FillGas)", chain.ErrInvalidTx)
	}
	if tx.Fee == 0 {
		return fmt.Errorf("%w: fee 0: an EIP-1559 fee cap is at least 1 wei", chain.ErrInvalidTx)
	}
	return nil
}

// build returns tx's unsigned EIP-1559 transaction.
func (s *Signer) build(tx chain.Tx) (*types.Transaction, error) {
	if err := checkForm(tx); err != nil {
		return nil, err
	}
	to, data, err := s.reg.encode(tx, false)
	if err != nil {
		return nil, err
	}
	return types.NewTx(&types.DynamicFeeTx{
		ChainID:   s.chainID,
		Nonce:     tx.Nonce,
		GasTipCap: s.tip(tx.Fee),
		GasFeeCap: new(big.Int).SetUint64(tx.Fee),
		Gas:       tx.Gas,
		To:        &to,
		Data:      data,
	}), nil
}

// signed rebuilds tx's signed transaction from its fields and signature,
// and checks that it recovers to tx.From (else chain.ErrBadSignature).
func (s *Signer) signed(tx chain.Tx) (*types.Transaction, error) {
	unsigned, err := s.build(tx)
	if err != nil {
		return nil, err
	}
	sig, err := hex.DecodeString(strings.TrimPrefix(tx.Signature, "0x"))
	if err != nil || len(sig) != crypto.SignatureLength || !strings.HasPrefix(tx.Signature, "0x") {
		return nil, fmt.Errorf("%w: the signature is 0x and %d bytes of hex", chain.ErrBadSignature, crypto.SignatureLength)
	}
	signed, err := unsigned.WithSignature(s.signer, sig)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", chain.ErrBadSignature, err)
	}
	from, err := types.Sender(s.signer, signed)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", chain.ErrBadSignature, err)
	}
	if addressOf(from) != tx.From {
		return nil, fmt.Errorf("%w: signed by %s, not %s", chain.ErrBadSignature, addressOf(from), tx.From)
	}
	return signed, nil
}
