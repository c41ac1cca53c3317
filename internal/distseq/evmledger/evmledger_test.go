package evmledger

import (
	"crypto/ed25519"
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/evm"
	"github.com/ordolabs/ordo/internal/distseq"
)

func idKey(name string) ed25519.PrivateKey {
	var seed [32]byte
	copy(seed[:], name)
	return ed25519.NewKeyFromSeed(seed[:])
}

func TestEndorsingKeyIsDerived(t *testing.T) {
	t.Parallel()
	a1, err := EndorsingAddress(idKey("a"))
	if err != nil {
		t.Fatal(err)
	}
	a2, _ := EndorsingAddress(idKey("a"))
	b, _ := EndorsingAddress(idKey("b"))
	if a1 != a2 || a1 == b || !common.IsHexAddress(a1) || a1 != strings.ToLower(a1) {
		t.Fatalf("addresses %s %s %s: want one per identity key, stable, lowercase", a1, a2, b)
	}
	if _, err := EndorsingKey(nil); err == nil {
		t.Fatal("an endorsing key from no identity key")
	}
}

func TestSchemeSignsWhatTheContractChecks(t *testing.T) {
	t.Parallel()
	ka, _ := EndorsingKey(idKey("a"))
	addrA, _ := EndorsingAddress(idKey("a"))
	addrB, _ := EndorsingAddress(idKey("b"))
	s := Scheme{Key: ka}
	d := [32]byte{1, 2, 3}
	sig, err := s.Sign(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(sig) != 65 || (sig[64] != 27 && sig[64] != 28) {
		t.Fatalf("signature %x: want 65 bytes with V 27 or 28", sig)
	}
	for _, c := range []struct {
		name string
		key  string
		d    [32]byte
		sig  []byte
		want bool
	}{
		{"its signer", addrA, d, sig, true},
		{"another member", addrB, d, sig, false},
		{"another digest", addrA, [32]byte{9}, sig, false},
		{"a truncated signature", addrA, d, sig[:64], false},
		{"not an address", "ab", d, sig, false},
	} {
		if got := s.Verify(c.key, c.d, c.sig); got != c.want {
			t.Errorf("%s: Verify = %v, want %v", c.name, got, c.want)
		}
	}
	if err := s.CheckKey(addrA); err != nil {
		t.Fatal(err)
	}
	if err := s.CheckKey(strings.Repeat("ab", 32)); err == nil {
		t.Fatal("an ed25519 key passes as an endorsing address")
	}
	if _, err := (Scheme{}).Sign(d); err == nil {
		t.Fatal("signed without a key")
	}
}

func TestLedgerEncodesTheContractsCall(t *testing.T) {
	t.Parallel()
	l := Ledger{ChainID: big.NewInt(1337), Contract: common.HexToAddress("0x00000000000000000000000000000000000000aa")}
	creates := []distseq.StateRef{{ID: "c1", Owner: "o@n", Data: []byte(`{"amount":5}`)}}
	want := evm.PrivacyDigest(l.ChainID, l.Contract, "g", "t", []string{"s1"}, []evm.PrivacyState{{ID: "c1", Owner: "o@n", Data: `{"amount":5}`}})
	if got := l.Digest("g", "t", []string{"s1"}, creates); got != want {
		t.Fatalf("Digest %x, want evm.PrivacyDigest %x", got, want)
	}
	b, err := l.ConfirmArgs("g", "t", nil, creates, []distseq.Endorsement{{Member: "n1", Signature: []byte{0xab, 0xcd}}})
	if err != nil {
		t.Fatal(err)
	}
	const wantArgs = `{"group":"g","txId":"t","spends":[],"creates":[{"id":"c1","owner":"o@n","data":"{\"amount\":5}"}],"endorsements":[{"member":"n1","signature":"0xabcd"}]}`
	if string(b) != wantArgs {
		t.Fatalf("ConfirmArgs %s, want %s", b, wantArgs)
	}
}

func TestDecodeEvent(t *testing.T) {
	t.Parallel()
	ev := func(name, data string) chain.Event {
		return chain.Event{Contract: Contract, Name: name, Height: 7, Data: json.RawMessage(data)}
	}
	g, ok := DecodeEvent(ev("GroupDeployed", `{"group":"g","deployer":"0x01","members":[{"id":"n1","signer":"0x00000000000000000000000000000000000000AA"}],"threshold":"1"}`))
	if !ok || g.Kind != distseq.EventGroupDeployed || g.Group.Threshold != 1 || g.Group.Members[0].PublicKey != "0x00000000000000000000000000000000000000aa" || g.Height != 7 {
		t.Fatalf("GroupDeployed: %+v %v", g, ok)
	}
	m, ok := DecodeEvent(ev("StatesMinted", `{"group":"g","states":["a"],"minted":[{"id":"a","owner":"o@n","data":"{\"amount\":5}"}]}`))
	if !ok || m.Kind != distseq.EventStatesMinted || len(m.States) != 1 || string(m.States[0].Data) != `{"amount":5}` {
		t.Fatalf("StatesMinted: %+v %v", m, ok)
	}
	c, ok := DecodeEvent(ev("IntentConfirmed", `{"group":"g","txId":"t","spends":["a"],"creates":["b"],"digest":"0x0102"}`))
	if !ok || c.Kind != distseq.EventIntentConfirmed || c.TxID != "t" || c.Digest != "0102" {
		t.Fatalf("IntentConfirmed: %+v %v", c, ok)
	}
	for _, e := range []chain.Event{
		{Contract: "library", Name: "IntentConfirmed", Data: json.RawMessage(`{}`)},
		ev("Other", `{}`),
		ev("GroupDeployed", `{"group":"g","threshold":"x"}`),
		ev("IntentConfirmed", `[]`),
	} {
		if got, ok := DecodeEvent(e); ok {
			t.Errorf("%s.%s %s decoded as %+v", e.Contract, e.Name, e.Data, got)
		}
	}
}
