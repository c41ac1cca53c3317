package tool

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/evm"
)

// A leader signs invocations with its account's key, in its chain's
// scheme. The scheme is read from the key when signing and from the
// leader's address when verifying, here and nowhere else.

// secp256k1VOffset is added to the recovery id in V, as personal_sign
// wallets write it: V is 27 or 28.
const secp256k1VOffset = 27

// scheme is one way a leader signs: how its address is written, which
// key signs for it, and its signatures.
type scheme struct {
	// address is the address key signs for; an error wrapping
	// chain.ErrBadSignature for a key of another scheme.
	address func(key chain.Key) (chain.Address, error)
	// validate checks an address's form.
	validate func(a chain.Address) error
	// sigLen is a signature's length in bytes.
	sigLen int
	// sign signs msg (SigningString) with key, which address took.
	sign func(key chain.Key, msg []byte) ([]byte, error)
	// verify reports whether sig over msg is leader's.
	verify func(leader chain.Address, msg, sig []byte) bool
}

// schemes are the schemes a leader may sign with: devchain's and an EVM
// chain's, their addresses and keys as the chain seam has them
// (chain.Ed25519, evm.KeyAddress and evm.ValidateAddress).
var schemes = [...]scheme{
	{address: chain.Ed25519.Address, validate: chain.Ed25519.ValidateAddress, sigLen: ed25519.SignatureSize, sign: signEd25519, verify: verifyEd25519},
	{address: secp256k1Address, validate: evm.ValidateAddress, sigLen: crypto.SignatureLength, sign: signSecp256k1, verify: verifySecp256k1},
}

// keyScheme returns the scheme of key and the address it signs for, or an
// error wrapping chain.ErrBadSignature for a key of no known scheme.
func keyScheme(key chain.Key) (*scheme, chain.Address, error) {
	for i := range schemes {
		if a, err := schemes[i].address(key); err == nil {
			return &schemes[i], a, nil
		}
	}
	return nil, "", fmt.Errorf("%w: a leader's key is an ed25519 or a secp256k1 private key, not %T", chain.ErrBadSignature, key)
}

// addressScheme returns the scheme whose addresses look like a, or an
// error saying what an address is.
func addressScheme(a chain.Address) (*scheme, error) {
	for i := range schemes {
		if schemes[i].validate(a) == nil {
			return &schemes[i], nil
		}
	}
	return nil, fmt.Errorf(`%q is neither 64 lowercase hex digits (ed25519) nor "0x" and 40 lowercase hex digits (EVM)`, a)
}

// ValidLeader checks that a is a leader's address in one of the schemes:
// an ed25519 public key in lowercase hex, or a lowercase 0x EVM address.
func ValidLeader(a string) error {
	_, err := addressScheme(chain.Address(a))
	return err
}

func signEd25519(key chain.Key, msg []byte) ([]byte, error) {
	return ed25519.Sign(key.(ed25519.PrivateKey), msg), nil // address (chain.Ed25519's) checked the type
}

func verifyEd25519(leader chain.Address, msg, sig []byte) bool {
	pub, err := hex.DecodeString(string(leader))
	return err == nil && len(pub) == ed25519.PublicKeySize && ed25519.Verify(pub, msg, sig)
}

// secp256k1Digest is the EIP-191 personal message hash of msg:
// keccak256("\x19Ethereum Signed Message:\n" + len(msg) + msg), what a
// wallet's personal_sign signs.
func secp256k1Digest(msg []byte) []byte { return accounts.TextHash(msg) }

func signSecp256k1(key chain.Key, msg []byte) ([]byte, error) {
	sig, err := crypto.Sign(secp256k1Digest(msg), key.(*ecdsa.PrivateKey)) // secp256k1Address checked it
	if err != nil {
		return nil, fmt.Errorf("%w: %w", chain.ErrBadSignature, err)
	}
	sig[crypto.RecoveryIDOffset] += secp256k1VOffset
	return sig, nil
}

// verifySecp256k1 recovers sig's signer, which must be leader. It takes
// one form of each signature only (V 27 or 28, S in the lower half of the
// order), so a replay cannot pass as a new signature by changing V or S.
func verifySecp256k1(leader chain.Address, msg, sig []byte) bool {
	if len(sig) != crypto.SignatureLength {
		return false
	}
	v := sig[crypto.RecoveryIDOffset]
	if v != secp256k1VOffset && v != secp256k1VOffset+1 {
		return false
	}
	r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:64])
	if !crypto.ValidateSignatureValues(v-secp256k1VOffset, r, s, true) {
		return false
	}
	raw := make([]byte, crypto.SignatureLength)
	copy(raw, sig)
	raw[crypto.RecoveryIDOffset] -= secp256k1VOffset
	pub, err := crypto.SigToPub(secp256k1Digest(msg), raw)
	if err != nil {
		return false
	}
	a := crypto.PubkeyToAddress(*pub)
	return "0x"+hex.EncodeToString(a[:]) == string(leader)
}

// secp256k1Address is the EVM account of a secp256k1 key.
func secp256k1Address(key chain.Key) (chain.Address, error) {
	k, ok := key.(*ecdsa.PrivateKey)
	if !ok || k == nil || k.Curve != crypto.S256() {
		return "", fmt.Errorf("%w: want a secp256k1 key, have %T", chain.ErrBadSignature, key)
	}
	return evm.KeyAddress(k), nil
}

// isNoKey reports whether key is none: nil, or a nil key of a scheme put
// in a chain.Key.
func isNoKey(key chain.Key) bool {
	switch k := key.(type) {
	case nil:
		return true
	case ed25519.PrivateKey:
		return len(k) == 0
	case *ecdsa.PrivateKey:
		return k == nil
	}
	return false
}
