package noderegistry_test

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/noderegistry"
)

func testKey(name string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("ordo/test/" + name))
	return ed25519.NewKeyFromSeed(seed[:])
}

// entryOf is the registry entry that Register's args write from account,
// as NodeRegistry.page returns it through the seam.
func entryOf(t *testing.T, b noderegistry.EVM, key ed25519.PrivateKey, fp, endpoint string, seq uint64) noderegistry.EVMEntry {
	t.Helper()
	c, err := b.Register(key, fp, endpoint, seq)
	if err != nil {
		t.Fatal(err)
	}
	var x noderegistry.EVMEntry
	if err := json.Unmarshal(c.Args, &x); err != nil {
		t.Fatal(err)
	}
	x.Account, x.Registered = b.Account, true
	return x
}

// TestEVMEntryTrust: an entry is trusted only when its id derives from its
// key and the key signed this chain, this registry, the entry's account,
// fingerprint, endpoint and seq; whatever else a forger changes, or signs
// with another key, is not trusted.
func TestEVMEntryTrust(t *testing.T) {
	t.Parallel()
	const (
		registry = "0x1111111111111111111111111111111111111111"
		node     = "0x2222222222222222222222222222222222222222"
		thief    = "0x3333333333333333333333333333333333333333"
	)
	fp := strings.Repeat("ab", 32)
	b := noderegistry.EVM{Contract: "nodes", ChainID: 1337, Registry: registry, Account: node}
	key, other := testKey("node"), testKey("other")
	good := entryOf(t, b, key, fp, "n1.test:7001", 3)
	e, err := b.Verify(good)
	if err != nil {
		t.Fatalf("the node's own entry: %v", err)
	}
	if want := devchain.NodeIDOf(key.Public().(ed25519.PublicKey)); e.ID != want || e.Endpoint != "n1.test:7001" || e.Fingerprint != fp {
		t.Fatalf("the node's own entry read as %+v, want id %s", e, want)
	}
	otherChain, otherReg := b, b
	otherChain.ChainID, otherReg.Registry = 1, thief
	forgedBy := entryOf(t, b, other, fp, "evil.test:1", 4)
	forgedBy.ID, forgedBy.PublicKey = good.ID, good.PublicKey // other's signature on the node's id and key
	for _, c := range []struct {
		name  string
		edit  func(x *noderegistry.EVMEntry)
		check noderegistry.EVM
	}{
		{"another account (a front-run copy of the signed args)", func(x *noderegistry.EVMEntry) { x.Account = thief }, b},
		{"another endpoint", func(x *noderegistry.EVMEntry) { x.Endpoint = "evil.test:1" }, b},
		{"another fingerprint", func(x *noderegistry.EVMEntry) { x.Fingerprint = "0x" + strings.Repeat("cd", 32) }, b},
		{"another seq", func(x *noderegistry.EVMEntry) { x.Seq = "4" }, b},
		{"another key's signature", func(x *noderegistry.EVMEntry) { *x = forgedBy }, b},
		{"no signature", func(x *noderegistry.EVMEntry) { x.Signature = "0x" + strings.Repeat("00", 64) }, b},
		{"a short signature", func(x *noderegistry.EVMEntry) { x.Signature = x.Signature[:100] }, b},
		{"an id not of its key", func(x *noderegistry.EVMEntry) { x.ID = "0x" + strings.Repeat("12", 20) }, b},
		{"read on another chain", func(*noderegistry.EVMEntry) {}, otherChain},
		{"read from another registry", func(*noderegistry.EVMEntry) {}, otherReg},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			x := good
			c.edit(&x)
			if e, err := c.check.Verify(x); !errors.Is(err, noderegistry.ErrUntrusted) {
				t.Errorf("a forged entry is trusted: %+v, %v", e, err)
			}
		})
	}
}

// TestEVMNodeID: the registry's 0x form of a node id goes back to the same
// id, and malformed ones are refused.
func TestEVMNodeID(t *testing.T) {
	t.Parallel()
	id := devchain.NodeIDOf(testKey("node").Public().(ed25519.PublicKey))
	e, err := noderegistry.EVMNodeID(id)
	if err != nil || len(e) != 42 || e[:2] != "0x" {
		t.Fatalf("EVMNodeID(%s) = %s, %v", id, e, err)
	}
	if back, err := noderegistry.NodeIDOfEVM(e); err != nil || back != id {
		t.Errorf("NodeIDOfEVM(%s) = %s, %v", e, back, err)
	}
	for _, bad := range []string{"", "n12", "0x" + strings.Repeat("1", 39), strings.Repeat("1", 40)} {
		if _, err := noderegistry.NodeIDOfEVM(bad); !errors.Is(err, noderegistry.ErrMalformed) {
			t.Errorf("NodeIDOfEVM(%q): %v", bad, err)
		}
	}
	if _, err := noderegistry.EVMNodeID("x"); !errors.Is(err, noderegistry.ErrMalformed) {
		t.Errorf("EVMNodeID(x): %v", err)
	}
}
