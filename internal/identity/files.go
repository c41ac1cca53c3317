package identity

import (
	"bytes"
	"crypto/ed25519"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
)

// Save writes key (PKCS #8, PEM "PRIVATE KEY", mode 0600) to keyPath and
// cert's chain (PEM "CERTIFICATE", mode 0644) to certPath.
func Save(keyPath, certPath string, key Key, cert tls.Certificate) error {
	der, err := x509.MarshalPKCS8PrivateKey(key.Private)
	if err != nil {
		return fmt.Errorf("identity: save key: %w", err)
	}
	if err := writeFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		return fmt.Errorf("identity: save key: %w", err)
	}
	var buf bytes.Buffer
	for _, c := range cert.Certificate {
		if err := pem.Encode(&buf, &pem.Block{Type: "CERTIFICATE", Bytes: c}); err != nil {
			return fmt.Errorf("identity: save certificate: %w", err)
		}
	}
	if err := writeFile(certPath, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("identity: save certificate: %w", err)
	}
	return nil
}

// writeFile writes data to path with mode perm, also when the file exists
// with a wider mode.
func writeFile(path string, data []byte, perm os.FileMode) error {
	if err := os.WriteFile(path, data, perm); err != nil {
		return err
	}
	return os.Chmod(path, perm)
}

// Load reads a key and its certificate written by Save and checks that the
// certificate is for the key and names its id.
func Load(keyPath, certPath string) (Key, tls.Certificate, error) {
	kb, err := os.ReadFile(keyPath)
	if err != nil {
		return Key{}, tls.Certificate{}, fmt.Errorf("identity: load key: %w", err)
	}
	blk, _ := pem.Decode(kb)
	if blk == nil || blk.Type != "PRIVATE KEY" {
		return Key{}, tls.Certificate{}, fmt.Errorf("identity: load key %s: no PEM PRIVATE KEY block", keyPath)
	}
	parsed, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
	if err != nil {
		return Key{}, tls.Certificate{}, fmt.Errorf("identity: load key %s: %w", keyPath, err)
	}
	priv, ok := parsed.(ed25519.PrivateKey)
	if !ok {
		return Key{}, tls.Certificate{}, fmt.Errorf("identity: load key %s: %T is not an ed25519 key", keyPath, parsed)
	}
	key := Key{Private: priv}
	cb, err := os.ReadFile(certPath)
	if err != nil {
		return Key{}, tls.Certificate{}, fmt.Errorf("identity: load certificate: %w", err)
	}
	var cert tls.Certificate
	for rest := cb; ; {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if b.Type == "CERTIFICATE" {
			cert.Certificate = append(cert.Certificate, b.Bytes)
		}
	}
	if len(cert.Certificate) == 0 {
		return Key{}, tls.Certificate{}, fmt.Errorf("identity: load certificate %s: no PEM CERTIFICATE block", certPath)
	}
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		return Key{}, tls.Certificate{}, fmt.Errorf("identity: load certificate %s: %w", certPath, err)
	}
	cert.Leaf = leaf
	if err := Check(key, cert); err != nil {
		return Key{}, tls.Certificate{}, fmt.Errorf("identity: load certificate %s (key %s): %w", certPath, keyPath, err)
	}
	cert.PrivateKey = priv
	return key, cert, nil
}

// errNoKey is returned by helpers given an empty Key.
var errNoKey = errors.New("identity: no key")

// Check reports whether cert is a certificate for key naming its id.
func Check(key Key, cert tls.Certificate) error {
	if len(key.Private) != ed25519.PrivateKeySize {
		return errNoKey
	}
	if len(cert.Certificate) == 0 {
		return fmt.Errorf("%w: no certificate", ErrMismatch)
	}
	leaf := cert.Leaf
	if leaf == nil {
		var err error
		if leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
			return fmt.Errorf("identity: check: %w", err)
		}
	}
	if pub, ok := leaf.PublicKey.(ed25519.PublicKey); !ok || !pub.Equal(key.Public()) {
		return fmt.Errorf("%w: not for the key %s", ErrMismatch, key.ID())
	}
	_, err := NodeIDOfCertificate(leaf)
	return err
}
