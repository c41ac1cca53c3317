package identity

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"testing"
)

func pemOf(t *testing.T, c tls.Certificate) []byte {
	t.Helper()
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Certificate[0]})
}

func pemKey(t *testing.T, k Key) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(k.Private)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}
