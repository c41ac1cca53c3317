package evm

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

func TestSignAndRecoverPrivacy(t *testing.T) {
	t.Parallel()
	key, _ := crypto.ToECDSA(crypto.Keccak256([]byte("ordo/test/privacy")))
	who := crypto.PubkeyToAddress(key.PublicKey)
	d := PrivacyDigest(big.NewInt(1337), common.Address{1}, "g", "t", []string{"a"}, []PrivacyState{{ID: "b", Data: "{}"}})
	sig, err := SignPrivacy(key, d)
	if err != nil {
		t.Fatal(err)
	}
	highS := append([]byte{}, sig...)
	s := new(big.Int).Sub(crypto.S256().Params().N, new(big.Int).SetBytes(sig[32:64]))
	copy(highS[32:64], common.LeftPadBytes(s.Bytes(), 32))
	highS[64] ^= 1
	v01 := append([]byte{}, sig...)
	v01[64] -= 27
	badV := append([]byte{}, sig...)
	badV[64] = 29
	for _, c := range []struct {
		name string
		sig  []byte
		ok   bool
	}{
		{"V 27/28", sig, true},
		{"V 0/1", v01, true},
		{"V 29", badV, false},
		{"the high-s twin", highS, false},
		{"64 bytes", sig[:64], false},
	} {
		got, err := RecoverPrivacy(d, c.sig)
		if (err == nil) != c.ok || (c.ok && got != who) {
			t.Errorf("%s: recovered %s, %v; want ok %v", c.name, got.Hex(), err, c.ok)
		}
	}
	if other := PrivacyDigest(big.NewInt(1), common.Address{1}, "g", "t", []string{"a"}, []PrivacyState{{ID: "b", Data: "{}"}}); other == d {
		t.Fatal("the digest does not depend on the chain id")
	}
}
