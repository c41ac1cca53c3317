package chain

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits on a transaction's fields.
const (
	// MaxMemo is the longest memo, in bytes. ordo puts its record id here.
	MaxMemo = 256
	// MaxArgs is the largest args document, in bytes.
	MaxArgs = 64 << 10
	// MaxName is the longest contract or method name.
	MaxName = 64
	// MaxEncodedTx bounds a JSON-encoded transaction.
	MaxEncodedTx = MaxArgs + 4<<10
)

// Tx is a transaction: a call of a contract method, signed by its sender.
type Tx struct {
	From     Address         `json:"from"`
	Nonce    uint64          `json:"nonce"`
	Fee      uint64          `json:"fee"`
	Contract string          `json:"contract"`
	Method   string          `json:"method"`
	Args     json.RawMessage `json:"args,omitempty"`
	Memo     string          `json:"memo,omitempty"`
	// Gas is the attempt's gas limit on a chain that has one (an EVM
	// chain: see GasEstimator); 0 on devchain, which has none.
	Gas uint64 `json:"gas,omitempty"`
	// Signature is the hex signature by From's key, in the scheme of the
	// chain's Signer (devchain: ed25519 over Hash). A devchain in dev mode
	// signs for its dev accounts when it is empty.
	Signature string `json:"signature,omitempty"`
}

// Validate checks the transaction's form (not its signature or its fit with
// chain state).
func (tx *Tx) Validate() error {
	if err := ValidateAddress(tx.From); err != nil {
		return fmt.Errorf("%w: from: %w", ErrInvalidTx, err)
	}
	if !ValidName(tx.Contract) {
		return fmt.Errorf("%w: contract must be 1-%d characters of [a-z0-9_-]", ErrInvalidTx, MaxName)
	}
	if !ValidName(tx.Method) {
		return fmt.Errorf("%w: method must be 1-%d characters of [a-z0-9_-]", ErrInvalidTx, MaxName)
	}
	if !utf8.ValidString(tx.Memo) {
		return fmt.Errorf("%w: memo is not valid UTF-8", ErrInvalidTx)
	}
	if len(tx.Memo) > MaxMemo {
		return fmt.Errorf("%w: memo is %d bytes, the limit is %d", ErrInvalidTx, len(tx.Memo), MaxMemo)
	}
	if len(tx.Args) > MaxArgs {
		return fmt.Errorf("%w: args are %d bytes, the limit is %d", ErrInvalidTx, len(tx.Args), MaxArgs)
	}
	if len(tx.Args) > 0 && !json.Valid(tx.Args) {
		return fmt.Errorf("%w: args are not valid JSON", ErrInvalidTx)
	}
	if tx.Signature != "" {
		if b, err := hex.DecodeString(tx.Signature); err != nil || len(b) != ed25519.SignatureSize {
			return fmt.Errorf("%w: signature must be %d bytes of hex", ErrInvalidTx, ed25519.SignatureSize)
		}
	}
	return nil
}

// ValidName reports whether s is a valid contract or method name: 1 to
// MaxName characters of [a-z0-9_-].
func ValidName(s string) bool {
	if len(s) == 0 || len(s) > MaxName {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// ValidateAddress checks that a is 32 bytes of lowercase hex.
func ValidateAddress(a Address) error {
	if len(a) != 2*ed25519.PublicKeySize {
		return fmt.Errorf("address must be %d hex characters", 2*ed25519.PublicKeySize)
	}
	if !lowerHex(string(a)) {
		return fmt.Errorf("address must be lowercase hex")
	}
	return nil
}

// IsHash reports whether h has the form of a hash: 32 bytes of lowercase
// hex.
func IsHash(h Hash) bool { return len(h) == 2*sha256.Size && lowerHex(string(h)) }

func lowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Hash returns the transaction's hash: SHA-256 over a length-prefixed
// encoding of every signed field. Args are hashed in canonical JSON (keys
// sorted, no insignificant whitespace, escaping as encoding/json writes it) so
// that re-encoding the transaction does not change its hash.
func (tx *Tx) Hash() Hash { return tx.hash(CanonicalArgs(tx.Args)) }

// HashCanonical is Hash for a transaction whose Args are already canonical,
// as DecodeTx and CanonicalArgs leave them: it skips re-encoding the args.
func (tx *Tx) HashCanonical() Hash { return tx.hash(tx.Args) }

func (tx *Tx) hash(args []byte) Hash {
	h := sha256.New()
	var n [8]byte
	writeField := func(b []byte) {
		binary.BigEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	h.Write([]byte("ordo-tx-v1"))
	writeField([]byte(tx.From))
	binary.BigEndian.PutUint64(n[:], tx.Nonce)
	h.Write(n[:])
	binary.BigEndian.PutUint64(n[:], tx.Fee)
	h.Write(n[:])
	writeField([]byte(tx.Contract))
	writeField([]byte(tx.Method))
	writeField(args)
	writeField([]byte(tx.Memo))
	return Hash(hex.EncodeToString(h.Sum(nil)))
}

// CanonicalArgs returns a in canonical JSON (keys sorted, no insignificant
// whitespace, no HTML escaping, numbers as written); null and empty args are
// nil. It returns a itself when it is not valid JSON (Validate rejects such a
// transaction).
func CanonicalArgs(a json.RawMessage) json.RawMessage {
	if len(a) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(a))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return a
	}
	if v == nil {
		return nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return a
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// Sign sets the transaction's signature with key, which must be From's key.
func (tx *Tx) Sign(key ed25519.PrivateKey) { tx.SignHash(key, tx.Hash()) }

// SignHash signs with key a hash already computed for this transaction.
func (tx *Tx) SignHash(key ed25519.PrivateKey, h Hash) {
	raw, _ := hex.DecodeString(string(h))
	tx.Signature = hex.EncodeToString(ed25519.Sign(key, raw))
}

// VerifySignature checks the signature against From's public key.
func (tx *Tx) VerifySignature() error { return tx.VerifyHash(tx.Hash()) }

// VerifyHash checks the signature over a hash already computed for this
// transaction against From's public key.
func (tx *Tx) VerifyHash(h Hash) error {
	pub, err := hex.DecodeString(string(tx.From))
	if err != nil || len(pub) != ed25519.PublicKeySize {
		return fmt.Errorf("%w: from is not a public key", ErrBadSignature)
	}
	sig, err := hex.DecodeString(tx.Signature)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return fmt.Errorf("%w: missing or malformed signature", ErrBadSignature)
	}
	raw, _ := hex.DecodeString(string(h))
	if !ed25519.Verify(pub, raw, sig) {
		return ErrBadSignature
	}
	return nil
}

// DecodeTx decodes one JSON transaction strictly: unknown fields, trailing
// data and oversized input are errors, and the result passes Validate. Args
// are stored in canonical form.
func DecodeTx(data []byte) (Tx, error) {
	var tx Tx
	if len(data) > MaxEncodedTx {
		return tx, fmt.Errorf("%w: encoded transaction is %d bytes, the limit is %d", ErrInvalidTx, len(data), MaxEncodedTx)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&tx); err != nil {
		return Tx{}, fmt.Errorf("%w: %w", ErrInvalidTx, err)
	}
	if err := dec.Decode(&struct{}{}); !errors.Is(err, io.EOF) {
		return Tx{}, fmt.Errorf("%w: trailing data after the transaction", ErrInvalidTx)
	}
	if err := tx.Normalize(); err != nil {
		return Tx{}, err
	}
	return tx, nil
}

// Normalize puts Args in canonical form and checks the transaction's form:
// what DecodeTx does after decoding, for a transaction built in memory.
func (tx *Tx) Normalize() error {
	if len(tx.Args) > MaxArgs {
		return fmt.Errorf("%w: args are %d bytes, the limit is %d", ErrInvalidTx, len(tx.Args), MaxArgs)
	}
	tx.Args = CanonicalArgs(tx.Args)
	return tx.Validate()
}

// KeyAddress returns the address of an ed25519 key.
func KeyAddress(key ed25519.PrivateKey) Address {
	return Address(hex.EncodeToString(key.Public().(ed25519.PublicKey)))
}

// KeyFromSeed derives a deterministic key from a label, for dev accounts and
// tests.
func KeyFromSeed(label string) ed25519.PrivateKey {
	s := sha256.Sum256([]byte(label))
	return ed25519.NewKeyFromSeed(s[:])
}

// ReadSeedFile reads an ed25519 key from a file holding the hex of its
// 32-byte seed (surrounding space ignored): a sender's or a tool
// signer's key file.
func ReadSeedFile(path string) (ed25519.PrivateKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("key file: %w", err)
	}
	seed, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("key file %s: want %d bytes of hex", path, ed25519.SeedSize)
	}
	return ed25519.NewKeyFromSeed(seed), nil
}

// ErrNumberRange is wrapped by the error of a JSON number the chain's
// encoding cannot carry (CheckNumber).
var ErrNumberRange = errors.New("number out of the range of a float64")

// CheckNumber checks a JSON number literal against the rule of the
// chain's encoding: it must parse as a float64, that is, a magnitude up to
// about 1.8e308 (1e999999 does not; a number with more digits than a
// float64 holds is rounded, and one too small becomes 0, as any JSON
// decoder of numbers reads them). devchain's transaction encoding refuses
// args holding any other (checkTxInput; over HTTP, the strict decoding of
// the body), and the sequencer's intake refuses the same numbers in an
// intent's data: one rule, so that an intent taken in can always be sent.
func CheckNumber(n string) error {
	if _, err := strconv.ParseFloat(n, 64); err != nil {
		return fmt.Errorf("%w: %s", ErrNumberRange, excerptNumber(n))
	}
	return nil
}

// CheckArgsNumbers applies CheckNumber to every number of args (one JSON
// value; args that are not JSON are left to Validate).
func CheckArgsNumbers(args json.RawMessage) error {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // the end, or not JSON: Validate's to say
		}
		if n, ok := tok.(json.Number); ok {
			if err := CheckNumber(string(n)); err != nil {
				return err
			}
		}
	}
}

// excerptNumber cuts a number literal to 32 bytes for a message.
func excerptNumber(n string) string {
	if len(n) <= 32 {
		return n
	}
	return fmt.Sprintf("%s… (%d bytes)", n[:32], len(n))
}
