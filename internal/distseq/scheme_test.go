package distseq

import (
	"crypto/ed25519"
	"encoding/hex"
	"testing"
)

func TestEd25519Scheme(t *testing.T) {
	t.Parallel()
	var seed [32]byte
	k := ed25519.NewKeyFromSeed(seed[:])
	s := Ed25519Scheme{Key: k}
	pub := hex.EncodeToString(k.Public().(ed25519.PublicKey))
	d := [32]byte{7}
	sig, err := s.Sign(d)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Verify(pub, d, sig) || s.Verify(pub, [32]byte{8}, sig) || s.Verify(pub, d, sig[:63]) || s.Verify("0xaa", d, sig) {
		t.Fatal("Verify accepts what it should refuse, or refuses its own signature")
	}
	if s.CheckKey(pub) != nil || s.CheckKey("0x00000000000000000000000000000000000000aa") == nil {
		t.Fatal("CheckKey: want an ed25519 public key in hex only")
	}
	if _, err := (Ed25519Scheme{}).Sign(d); err == nil {
		t.Fatal("signed without a key")
	}
}
