package chain

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
)

// Key is a sender's private key. Engines hold it opaque: only the chain's
// Signer knows its type (ed25519.PrivateKey on devchain, a secp256k1
// *ecdsa.PrivateKey on an EVM chain).
type Key = crypto.Signer

// Signer is a chain's transaction signing scheme: the form of its
// addresses, the address a key signs for, and how a transaction is hashed
// and signed. The sequencer signs every attempt through the Signer of its
// chain (SignerOf), so nothing in it depends on one scheme.
type Signer interface {
	// Scheme names the scheme ("ed25519", "secp256k1").
	Scheme() string
	// Address returns the account key signs for; an error wrapping
	// ErrBadSignature for a key of another scheme.
	Address(key Key) (Address, error)
	// ValidateAddress checks an address's form.
	ValidateAddress(a Address) error
	// Sign puts tx's args in canonical form, signs tx with key (From's
	// key) and returns its hash. It is pure: the same tx and key give the
	// same signature and hash, so an attempt resent is the same
	// transaction.
	Sign(tx *Tx, key Key) (Hash, error)
}

// SignerProvider is implemented by chains whose scheme is not ed25519.
type SignerProvider interface {
	Signer() Signer
}

// GasEstimator is implemented by chains whose transactions carry a gas
// limit (Tx.Gas): the sequencer asks for one before it signs an attempt at
// a new nonce, and a replacement at the same nonce keeps it, so that a
// replacement changes only the fee.
type GasEstimator interface {
	EstimateGas(ctx context.Context, tx Tx) (uint64, error)
}

// SignerOf returns the signer of c, or of the chain it wraps (Unwrap, as
// Metered does); Ed25519 when none says otherwise (devchain).
func SignerOf(c Chain) Signer {
	if p, ok := unwrapTo[SignerProvider](c); ok {
		return p.Signer()
	}
	return Ed25519
}

// EstimatorOf returns c's gas estimator (or that of the chain it wraps),
// or nil for a chain without gas limits.
func EstimatorOf(c Chain) GasEstimator {
	if e, ok := unwrapTo[GasEstimator](c); ok {
		return e
	}
	return nil
}

// unwrapTo finds the first of c and the chains it wraps that is a T.
func unwrapTo[T any](c Chain) (T, bool) {
	for c != nil {
		if v, ok := c.(T); ok {
			return v, true
		}
		w, ok := c.(interface{ Unwrap() Chain })
		if !ok {
			break
		}
		c = w.Unwrap()
	}
	var zero T
	return zero, false
}

// Ed25519 is devchain's scheme: an address is the lowercase hex of the
// ed25519 public key, a transaction's hash is Tx.Hash and its signature
// the hex ed25519 signature of that hash.
var Ed25519 Signer = ed25519Signer{}

type ed25519Signer struct{}

func (ed25519Signer) Scheme() string { return "ed25519" }

func (ed25519Signer) Address(key Key) (Address, error) {
	k, ok := key.(ed25519.PrivateKey)
	if !ok || len(k) != ed25519.PrivateKeySize {
		return "", fmt.Errorf("%w: want an ed25519 key, have %T", ErrBadSignature, key)
	}
	return KeyAddress(k), nil
}

func (ed25519Signer) ValidateAddress(a Address) error { return ValidateAddress(a) }

func (ed25519Signer) Sign(tx *Tx, key Key) (Hash, error) {
	k, ok := key.(ed25519.PrivateKey)
	if !ok || len(k) != ed25519.PrivateKeySize {
		return "", fmt.Errorf("%w: want an ed25519 key, have %T", ErrBadSignature, key)
	}
	tx.Args = CanonicalArgs(tx.Args)
	h := tx.HashCanonical()
	raw, _ := hex.DecodeString(string(h))
	tx.Signature = hex.EncodeToString(ed25519.Sign(k, raw))
	return h, nil
}

// FillGas sets tx.Gas from c's estimator when c has one and tx has no gas
// limit yet; on a chain without gas it does nothing.
func FillGas(ctx context.Context, c Chain, tx *Tx) error {
	e := EstimatorOf(c)
	if e == nil || tx.Gas != 0 {
		return nil
	}
	g, err := e.EstimateGas(ctx, *tx)
	if err != nil {
		return fmt.Errorf("estimate gas: %w", err)
	}
	tx.Gas = g
	return nil
}

// Ed25519Key is k as a Key, nil for none: a nil ed25519.PrivateKey put in
// a Key directly would not compare equal to nil.
func Ed25519Key(k ed25519.PrivateKey) Key {
	if k == nil {
		return nil
	}
	return k
}

// The no-op transaction: it takes its sender's nonce and fee and changes
// nothing. An operator sends one to cancel a stuck nonce (a transaction
// that will not land takes that nonce's place). devchain's intents
// contract answers it; an EVM backend sends it as a zero-value transfer
// from the sender to itself.
const (
	NoopContract = "intents"
	NoopMethod   = "noop"
)

// NoopTx is from's no-op at nonce, paying fee.
func NoopTx(from Address, nonce, fee uint64) Tx {
	return Tx{From: from, Nonce: nonce, Fee: fee, Contract: NoopContract, Method: NoopMethod}
}

// IsNoop reports whether tx is a no-op (NoopTx's form).
func (tx *Tx) IsNoop() bool {
	return tx.Contract == NoopContract && tx.Method == NoopMethod && tx.Memo == ""
}
