package devchain

import (
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
)

// TestNodeIDOf pins the node id derivation: internal/identity derives the
// same id, and every registered entry depends on it.
func TestNodeIDOf(t *testing.T) {
	pub := make(ed25519.PublicKey, ed25519.PublicKeySize) // all zero
	// SHA-256 of 32 zero bytes is 66687aad...d5f2925 (sha256sum agrees); the
	// digests below were also computed independently (Python hashlib).
	if got, want := NodeIDOf(pub), "n66687aadf862bd776c8fc18b8e9f8e2008971485"; got != want {
		t.Fatalf("NodeIDOf(zero key) = %s, want %s", got, want)
	}
	k := chain.KeyFromSeed("nodes/test")
	id := NodeIDOf(k.Public().(ed25519.PublicKey))
	if !ValidNodeID(id) || len(id) != 41 {
		t.Fatalf("NodeIDOf = %q: not a valid id", id)
	}
	for _, bad := range []string{"", "n", id[1:], "N" + id[1:], "x" + id[1:], strings.ToUpper(id), id + "0", id[:40], "n" + strings.Repeat("g", 40)} {
		if ValidNodeID(bad) {
			t.Errorf("ValidNodeID(%q) = true", bad)
		}
	}
}

func TestNodeDigests(t *testing.T) {
	const id, fp = "n0000000000000000000000000000000000000000", "ff"
	base := NodeRegistrationDigest(id, fp, "a:1", 1)
	for _, c := range []struct {
		name string
		d    [32]byte
	}{
		{"seq", NodeRegistrationDigest(id, fp, "a:1", 2)},
		{"endpoint", NodeRegistrationDigest(id, fp, "a:2", 1)},
		{"fingerprint and endpoint boundary", NodeRegistrationDigest(id, fp+"a", ":1", 1)},
		{"id", NodeRegistrationDigest("n1"+id[2:], fp, "a:1", 1)},
		{"deregister", NodeDeregistrationDigest(id, 1)},
	} {
		if c.d == base {
			t.Errorf("%s: digest equals the base's", c.name)
		}
	}
	// Pinned: nodes sign these; changing the encoding voids every entry.
	d := NodeDeregistrationDigest(id, 7)
	if got := hex.EncodeToString(base[:]) + " " + hex.EncodeToString(d[:]); got != pinnedNodeDigests {
		t.Errorf("digests %s, pinned %s", got, pinnedNodeDigests)
	}
}

const pinnedNodeDigests = "312692eff73f943fb4af080d95397245b862f8d1ce76afcd6dbd87238d100173 7261bb6addf7e9fd693606cf30ca055ab56e240faf3ec197d2632830c391848e"

func TestValidNodeEndpoint(t *testing.T) {
	for _, c := range []struct {
		s  string
		ok bool
	}{
		{"localhost:7000", true},
		{"127.0.0.1:1", true},
		{"node-1.example.com:65535", true},
		{"node_1:80", true},
		{"[::1]:9000", true},
		{"[2001:db8::1]:443", true},
		{strings.Repeat("a", MaxNodeEndpoint-5) + ":1234", true},
		{strings.Repeat("a", MaxNodeEndpoint-4) + ":1234", false},
		{"", false},
		{"localhost", false},
		{"localhost:", false},
		{":80", false},
		{"localhost:0", false},
		{"localhost:080", false},
		{"localhost:65536", false},
		{"localhost:-1", false},
		{"localhost:+80", false},
		{"-host:80", false},
		{".host:80", false},
		{"ho st:80", false},
		{"host/x:80", false},
		{"http://host:80", false},
		{"::1:80", false},
		{"[::1%eth0]:80", false},
		{"[1.2.3.4]:80", false},
		{"[host]:80", false},
		{"hést:80", false},
		{"host:80\n", false},
	} {
		if got := ValidNodeEndpoint(c.s); got != c.ok {
			t.Errorf("ValidNodeEndpoint(%q) = %v, want %v", c.s, got, c.ok)
		}
	}
}

// nodesFuzzState is a state holding one registered node (seq 3), and a
// register (seq 4) and a deregister (seq 5) of it that apply to that state.
func nodesFuzzState(t testing.TB) (state map[string][]byte, reg, dereg []byte) {
	key := chain.KeyFromSeed("nodesfuzz/node")
	id := NodeIDOf(key.Public().(ed25519.PublicKey))
	fp := strings.Repeat("ab", 32)
	state = map[string][]byte{}
	apply := func(method string, args any, keep bool) []byte {
		b, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		x := &Exec{Height: 1, From: chain.KeyAddress(key), contract: NodesContract, state: state}
		if err := (Nodes{}).Apply(x, method, b); err != nil {
			t.Fatalf("%s %s: %v", method, b, err)
		}
		if keep {
			for k, v := range x.writes.vals {
				state[k] = v
			}
		}
		return b
	}
	apply(NodesRegister, SignNodeRegistration(key, id, fp, "localhost:7000", 3), true)
	reg = apply(NodesRegister, SignNodeRegistration(key, id, fp, "[::1]:7001", 4), false)
	dereg = apply(NodesDeregister, SignNodeDeregistration(key, id, 5), false)
	return state, reg, dereg
}

// FuzzNodesArgs applies arbitrary args to both nodes methods and every read:
// nothing panics, a failure is a *Failure whose reason does not depend on the
// run, the same args on the same state give the same outcome and writes, and
// a success is a valid entry signed by the key of its id.
func FuzzNodesArgs(f *testing.F) {
	state, reg, dereg := nodesFuzzState(f)
	for _, s := range []string{
		string(reg), string(dereg), ``, `null`, `{}`, `[]`, `{"id":"n"}`, `{"seq":0}`, `{"seq":1e3}`, `{"seq":-1}`,
		`{"seq":18446744073709551616}`, `{"id":"\ud800"}`, strings.Replace(string(reg), `"seq":4`, `"seq":5`, 1),
		strings.Replace(string(reg), `[::1]:7001`, `[::1]:7002`, 1),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		for _, m := range []string{NodesRegister, NodesDeregister} {
			run := func() (string, map[string][]byte) {
				x := &Exec{Height: 2, contract: NodesContract, state: state}
				err := (Nodes{}).Apply(x, m, json.RawMessage(args))
				if err == nil {
					return "", x.writes.vals
				}
				var fl *Failure
				if !errors.As(err, &fl) {
					t.Fatalf("%s %q: %v is not a *Failure", m, args, err)
				}
				return fl.Reason, nil
			}
			r1, w1 := run()
			r2, w2 := run()
			if r1 != r2 || fmt.Sprint(w1) != fmt.Sprint(w2) {
				t.Fatalf("%s %q: two runs differ: %q %v / %q %v", m, args, r1, w1, r2, w2)
			}
			if r1 == "" && m == NodesRegister {
				var a NodeRegistration
				if err := json.Unmarshal([]byte(args), &a); err != nil {
					t.Fatalf("register %q succeeded on args that do not decode: %v", args, err)
				}
				pub, _ := hex.DecodeString(a.PublicKey)
				sig, _ := hex.DecodeString(a.Signature)
				d := NodeRegistrationDigest(a.ID, a.Fingerprint, a.Endpoint, a.Seq)
				if a.ID != NodeIDOf(pub) || !ed25519.Verify(pub, d[:], sig) || !ValidNodeEndpoint(a.Endpoint) || !ValidNodeFingerprint(a.Fingerprint) {
					t.Fatalf("register %q succeeded", args)
				}
			}
		}
		r := contractReader{contract: NodesContract, state: state}
		for _, m := range []string{"node", "nodes", "seq"} {
			raw, err := (Nodes{}).Call(r, m, json.RawMessage(args))
			var fl *Failure
			switch {
			case err == nil && !json.Valid(raw):
				t.Fatalf("read %s %q answered %q", m, args, raw)
			case err != nil && !errors.Is(err, chain.ErrNotFound) && !errors.As(err, &fl):
				t.Fatalf("read %s %q: %v is neither not found nor a *Failure", m, args, err)
			}
		}
	})
}

// TestNodesFull: with MaxNodes registered, a new id is refused and a
// registered one still updates.
func TestNodesFull(t *testing.T) {
	state, reg, _ := nodesFuzzState(t)
	var held NodeRegistration
	if err := json.Unmarshal(reg, &held); err != nil {
		t.Fatal(err)
	}
	ids := []string{held.ID}
	for i := len(ids); i < MaxNodes; i++ {
		ids = append(ids, fmt.Sprintf("n%040x", i))
	}
	slices.Sort(ids)
	b, _ := json.Marshal(ids)
	state[stateKey(NodesContract, nodeIndexKey)] = b
	k := chain.KeyFromSeed("nodesfull/new")
	fresh, _ := json.Marshal(SignNodeRegistration(k, NodeIDOf(k.Public().(ed25519.PublicKey)), held.Fingerprint, "new.test:1", 1))
	for _, c := range []struct {
		name   string
		args   []byte
		reason string
	}{
		{"a new id", fresh, ReasonTooManyNodes},
		{"a registered id", reg, ""},
	} {
		x := &Exec{Height: 2, contract: NodesContract, state: state}
		err := (Nodes{}).Apply(x, NodesRegister, c.args)
		if got := fmt.Sprint(err); (c.reason == "" && err != nil) || (c.reason != "" && got != c.reason) {
			t.Errorf("%s: %v, want %q", c.name, err, c.reason)
		}
	}
}
