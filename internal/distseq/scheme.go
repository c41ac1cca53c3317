package distseq

import (
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
)

// Scheme is how a node signs what its committees sign (its assemblies and
// its endorsements) and checks a member's signature: the signature scheme
// of the base ledger the groups live on, chosen at wiring. The core never
// names one; CoreConfig.Scheme nil is Ed25519Scheme over CoreConfig.Key
// (devchain's privacygroup). Both methods are pure.
type Scheme interface {
	// Sign signs digest with this node's endorsing key.
	Sign(digest [32]byte) ([]byte, error)
	// Verify reports whether sig is digest signed by the member whose key
	// is key, as the group's deploy event names it (store.DistseqMember's
	// PublicKey).
	Verify(key string, digest [32]byte, sig []byte) bool
	// CheckKey refuses a member key this scheme cannot verify with.
	CheckKey(key string) error
}

// Ed25519Scheme signs with an ed25519 key; a member's key is its public
// key, 64 hex characters (devchain's privacygroup).
type Ed25519Scheme struct{ Key ed25519.PrivateKey }

var _ Scheme = Ed25519Scheme{}

// Sign is ed25519.Sign over digest.
func (s Ed25519Scheme) Sign(digest [32]byte) ([]byte, error) {
	if len(s.Key) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("%w: a 64-byte ed25519 key is required", ErrConfig)
	}
	return ed25519.Sign(s.Key, digest[:]), nil
}

// Verify is ed25519.Verify of sig over digest by the hex public key.
func (Ed25519Scheme) Verify(key string, digest [32]byte, sig []byte) bool {
	pk, err := decodeKey(key)
	return err == nil && len(sig) == ed25519.SignatureSize && ed25519.Verify(pk, digest[:], sig)
}

// CheckKey refuses anything but 64 hex characters.
func (Ed25519Scheme) CheckKey(key string) error {
	_, err := decodeKey(key)
	return err
}

// decodeSig reads a signature as a message carries it: hex.
func decodeSig(h string) ([]byte, bool) {
	b, err := hex.DecodeString(h)
	return b, err == nil && len(b) > 0
}
