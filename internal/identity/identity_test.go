package identity

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var (
	t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	t1 = t0.Add(365 * 24 * time.Hour)
)

// seeded returns a deterministic key: ed25519 keys from a fixed seed.
func seeded(b byte) Key {
	return Key{Private: ed25519.NewKeyFromSeed(bytes.Repeat([]byte{b}, ed25519.SeedSize))}
}

func TestNodeIDOf(t *testing.T) {
	tests := []struct {
		name string
		pub  ed25519.PublicKey
	}{
		{"seed 1", seeded(1).Public()},
		{"seed 2", seeded(2).Public()},
		{"zero key", make(ed25519.PublicKey, ed25519.PublicKeySize)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sum := sha256.Sum256(tt.pub)
			want := "n" + hex.EncodeToString(sum[:20])
			got := string(NodeIDOf(tt.pub))
			if got != want || len(got) != 41 || strings.ToLower(got) != got {
				t.Fatalf("NodeIDOf = %q, want %q (41 lowercase characters)", got, want)
			}
		})
	}
	// A known vector pins the rule: the all-zero public key.
	if got := NodeIDOf(make(ed25519.PublicKey, 32)); got != "n66687aadf862bd776c8fc18b8e9f8e2008971485" {
		t.Fatalf("NodeIDOf(zero key) = %s", got)
	}
}

func TestGenerate(t *testing.T) {
	a, err := Generate(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Generate(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if a.ID() == b.ID() {
		t.Fatal("two generated keys share an id")
	}
	if _, err := Generate(bytes.NewReader(nil)); err == nil {
		t.Fatal("Generate from an empty reader: no error")
	}
}

func TestNewCertificate(t *testing.T) {
	k := seeded(7)
	cert, err := NewCertificate(k, t0, t1)
	if err != nil {
		t.Fatal(err)
	}
	leaf := cert.Leaf
	if leaf.Subject.CommonName != string(k.ID()) || len(leaf.URIs) != 1 || leaf.URIs[0].String() != "ordo-node://"+string(k.ID()) {
		t.Fatalf("names: CN %q, URIs %v", leaf.Subject.CommonName, leaf.URIs)
	}
	if !leaf.NotBefore.Equal(t0) || !leaf.NotAfter.Equal(t1) {
		t.Fatalf("validity %v..%v", leaf.NotBefore, leaf.NotAfter)
	}
	if err := leaf.CheckSignatureFrom(leaf); err != nil {
		t.Fatalf("not self-signed: %v", err)
	}
	if id, err := NodeIDOfCertificate(leaf); err != nil || id != k.ID() {
		t.Fatalf("NodeIDOfCertificate = %s, %v", id, err)
	}
	fp := Fingerprint(leaf)
	sum := sha256.Sum256(cert.Certificate[0])
	if fp != hex.EncodeToString(sum[:]) || len(fp) != 64 {
		t.Fatalf("Fingerprint = %s", fp)
	}
	if err := Check(k, cert); err != nil {
		t.Fatal(err)
	}
	if err := Check(seeded(8), cert); !errors.Is(err, ErrMismatch) {
		t.Fatalf("Check with another key: %v", err)
	}
	// Usable by crypto/tls on both sides.
	if _, err := tls.X509KeyPair(pemOf(t, cert), pemKey(t, k)); err != nil {
		t.Fatalf("tls.X509KeyPair: %v", err)
	}
	if _, err := NewCertificate(k, t1, t0); err == nil {
		t.Fatal("notAfter before notBefore: no error")
	}
	if _, err := NewCertificate(Key{}, t0, t1); err == nil {
		t.Fatal("empty key: no error")
	}
}

// TestNodeIDOfCertificateRefusesLies: a certificate whose names disagree with
// its key is refused.
func TestNodeIDOfCertificateRefusesLies(t *testing.T) {
	k, other := seeded(1), seeded(2)
	tests := []struct {
		name string
		edit func(c *x509.Certificate)
	}{
		{"CN of another node", func(c *x509.Certificate) { c.Subject.CommonName = string(other.ID()) }},
		{"URI of another node", func(c *x509.Certificate) { c.URIs = []*url.URL{URI(other.ID())} }},
		{"no URI", func(c *x509.Certificate) { c.URIs = nil }},
		{"two URIs", func(c *x509.Certificate) { c.URIs = append(c.URIs, URI(other.ID())) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cert, err := NewCertificate(k, t0, t1)
			if err != nil {
				t.Fatal(err)
			}
			tmpl := *cert.Leaf
			tmpl.RawSubject, tmpl.RawIssuer = nil, nil
			tt.edit(&tmpl)
			der, err := x509.CreateCertificate(nil, &tmpl, &tmpl, k.Public(), k.Private)
			if err != nil {
				t.Fatal(err)
			}
			leaf, err := x509.ParseCertificate(der)
			if err != nil {
				t.Fatal(err)
			}
			if id, err := NodeIDOfCertificate(leaf); !errors.Is(err, ErrMismatch) {
				t.Fatalf("NodeIDOfCertificate = %s, %v; want ErrMismatch", id, err)
			}
		})
	}
}

func TestSaveLoad(t *testing.T) {
	dir := t.TempDir()
	k := seeded(3)
	cert, err := NewCertificate(k, t0, t1)
	if err != nil {
		t.Fatal(err)
	}
	kp, cp := filepath.Join(dir, "node.key"), filepath.Join(dir, "node.crt")
	if err := Save(kp, cp, k, cert); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(kp); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v, %v", fi.Mode(), err)
	}
	k2, c2, err := Load(kp, cp)
	if err != nil {
		t.Fatal(err)
	}
	if !k2.Private.Equal(k.Private) || Fingerprint(c2.Leaf) != Fingerprint(cert.Leaf) || c2.PrivateKey == nil {
		t.Fatal("Load does not give back what Save wrote")
	}
	// A certificate for another key beside the key file is refused.
	other := seeded(4)
	oc, err := NewCertificate(other, t0, t1)
	if err != nil {
		t.Fatal(err)
	}
	op := filepath.Join(dir, "other.crt")
	if err := Save(filepath.Join(dir, "other.key"), op, other, oc); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load(kp, op); !errors.Is(err, ErrMismatch) {
		t.Fatalf("Load with another node's certificate: %v", err)
	}
	// Garbage and missing files.
	junk := filepath.Join(dir, "junk")
	if err := os.WriteFile(junk, []byte("not pem"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ key, cert string }{{junk, cp}, {kp, junk}, {filepath.Join(dir, "none"), cp}, {kp, filepath.Join(dir, "none")}, {cp, cp}} {
		if _, _, err := Load(c.key, c.cert); err == nil {
			t.Errorf("Load(%s, %s): no error", c.key, c.cert)
		}
	}
}
