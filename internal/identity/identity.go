package identity

import (
	"crypto"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/url"
	"time"

	"github.com/ordolabs/ordo/internal/transport"
)

// URIScheme is the scheme of the URI SAN that names a node in its
// certificate: ordo-node://<id>.
const URIScheme = "ordo-node"

// ErrMismatch is returned when a certificate does not belong to the key or the id it is
// presented with (its public key, its CN or its URI SAN disagree).
var ErrMismatch = errors.New("identity: certificate does not match")

// Key is a node's identity key.
type Key struct {
	// Private is the ed25519 private key.
	Private ed25519.PrivateKey
}

// Public returns the key's public half.
func (k Key) Public() ed25519.PublicKey {
	return k.Private.Public().(ed25519.PublicKey)
}

// ID returns the key's NodeID.
func (k Key) ID() transport.NodeID { return NodeIDOf(k.Public()) }

// Generate draws a new identity key from rand (crypto/rand.Reader in
// production; a seeded reader in tests).
func Generate(rand io.Reader) (Key, error) {
	_, priv, err := ed25519.GenerateKey(rand)
	if err != nil {
		return Key{}, fmt.Errorf("identity: generate key: %w", err)
	}
	return Key{Private: priv}, nil
}

// NodeIDOf derives the node id of a public key: "n" and the first 20 bytes
// of SHA-256(pub) in lowercase hex.
func NodeIDOf(pub ed25519.PublicKey) transport.NodeID {
	sum := sha256.Sum256(pub)
	return transport.NodeID("n" + hex.EncodeToString(sum[:20]))
}

// URI returns the URI SAN naming id: ordo-node://<id>.
func URI(id transport.NodeID) *url.URL {
	return &url.URL{Scheme: URIScheme, Host: string(id)}
}

// NewCertificate makes a self-signed certificate for key, valid from
// notBefore to notAfter, usable by a TLS server and a TLS client, naming the
// key's NodeID as its CN and its URI SAN.
func NewCertificate(key Key, notBefore, notAfter time.Time) (tls.Certificate, error) {
	if len(key.Private) != ed25519.PrivateKeySize {
		return tls.Certificate{}, errors.New("identity: new certificate: no ed25519 private key")
	}
	if !notAfter.After(notBefore) {
		return tls.Certificate{}, fmt.Errorf("identity: new certificate: not after %v is not after not before %v", notAfter, notBefore)
	}
	id := key.ID()
	// A serial from the public key and the validity: stable for the same
	// inputs, different for a renewal.
	h := sha256.New()
	h.Write(key.Public())
	h.Write([]byte(notBefore.UTC().Format(time.RFC3339Nano) + notAfter.UTC().Format(time.RFC3339Nano)))
	serial := new(big.Int).SetBytes(h.Sum(nil)[:16])
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: string(id)},
		NotBefore:             notBefore,
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		URIs:                  []*url.URL{URI(id)},
	}
	der, err := x509.CreateCertificate(nil, tmpl, tmpl, key.Public(), crypto.Signer(key.Private))
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("identity: new certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("identity: new certificate: %w", err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key.Private, Leaf: leaf}, nil
}

// Fingerprint returns the SHA-256 of the certificate's DER in lowercase hex.
func Fingerprint(cert *x509.Certificate) string {
	return FingerprintDER(cert.Raw)
}

// FingerprintDER returns the SHA-256 of a certificate's DER in lowercase
// hex.
func FingerprintDER(der []byte) string {
	sum := sha256.Sum256(der)
	return hex.EncodeToString(sum[:])
}

// NodeIDOfCertificate derives the node id of a certificate from its ed25519
// public key and checks that the CN and the URI SAN name the same id. It
// does not check the signature, the validity or the fingerprint: the
// transport pins the fingerprint, which covers all of them.
func NodeIDOfCertificate(cert *x509.Certificate) (transport.NodeID, error) {
	pub, ok := cert.PublicKey.(ed25519.PublicKey)
	if !ok {
		return "", fmt.Errorf("%w: public key is %T, not ed25519", ErrMismatch, cert.PublicKey)
	}
	id := NodeIDOf(pub)
	if cert.Subject.CommonName != string(id) {
		return "", fmt.Errorf("%w: CN %q is not the key's id %s", ErrMismatch, cert.Subject.CommonName, id)
	}
	if len(cert.URIs) != 1 || cert.URIs[0].String() != URI(id).String() {
		return "", fmt.Errorf("%w: URI SANs %v are not [%s]", ErrMismatch, cert.URIs, URI(id))
	}
	return id, nil
}
