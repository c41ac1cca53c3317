package devchain

import (
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
)

func TestPrivacyDigest(t *testing.T) {
	st := func(id, owner, data string) PrivacyState {
		return PrivacyState{ID: id, Owner: owner, Data: json.RawMessage(data)}
	}
	type in struct {
		group, tx string
		spends    []string
		creates   []PrivacyState
	}
	base := in{"g", "t", []string{"a", "b"}, []PrivacyState{st("c", "", `{"v":1}`)}}
	cases := []struct {
		name  string
		other in
		same  bool
	}{
		{"itself", base, true},
		{"data whitespace", in{"g", "t", []string{"a", "b"}, []PrivacyState{st("c", "", "{ \"v\" : 1 }\n")}}, true},
		{"nil and empty lists", in{"g", "t", []string{"a", "b"}, []PrivacyState{st("c", "", `{"v":1}`)}}, true},
		{"group and txId boundary", in{"gt", "", base.spends, base.creates}, false},
		{"spends boundary", in{"g", "t", []string{"ab"}, base.creates}, false},
		{"spends order", in{"g", "t", []string{"b", "a"}, base.creates}, false},
		{"a spend moved to creates", in{"g", "t", []string{"a"}, []PrivacyState{st("b", "", `{"v":1}`), st("c", "", `{"v":1}`)}}, false},
		{"owner", in{"g", "t", base.spends, []PrivacyState{st("c", "o", `{"v":1}`)}}, false},
		{"data", in{"g", "t", base.spends, []PrivacyState{st("c", "", `{"v":2}`)}}, false},
		{"id and owner boundary", in{"g", "t", base.spends, []PrivacyState{st("", "c", `{"v":1}`)}}, false},
		{"no creates", in{"g", "t", base.spends, nil}, false},
	}
	want := PrivacyDigest(base.group, base.tx, base.spends, base.creates)
	for _, c := range cases {
		got := PrivacyDigest(c.other.group, c.other.tx, c.other.spends, c.other.creates)
		if (got == want) != c.same {
			t.Errorf("%s: digest equal %v, want %v", c.name, got == want, c.same)
		}
	}
	if PrivacyDigest("g", "t", nil, nil) != PrivacyDigest("g", "t", []string{}, []PrivacyState{}) {
		t.Error("nil and empty lists digest differently")
	}
	// Pinned: the engine signs this digest; changing the encoding breaks
	// every endorsement made before.
	if got := hex.EncodeToString(want[:]); got != pinnedPrivacyDigest {
		t.Errorf("digest %s, pinned %s", got, pinnedPrivacyDigest)
	}
}

const pinnedPrivacyDigest = "6171dd379dec7c42027e3a40e744006e98dbb971e9467ce485cca634760aa294"

// pgFuzzState is a state holding group g (members A and B, threshold 2, by
// dev) and minted state m1, and a valid confirm of it.
func pgFuzzState(t testing.TB) (state map[string][]byte, dev chain.Address, confirm []byte) {
	dev = chain.KeyAddress(chain.KeyFromSeed("pgfuzz/dev"))
	a, b := chain.KeyFromSeed("pgfuzz/A"), chain.KeyFromSeed("pgfuzz/B")
	pub := func(k ed25519.PrivateKey) string { return hex.EncodeToString(k.Public().(ed25519.PublicKey)) }
	state = map[string][]byte{}
	for _, call := range []struct{ method, args string }{
		{PrivacyDeploy, fmt.Sprintf(`{"group":"g","members":[{"id":"A","publicKey":%q},{"id":"B","publicKey":%q}]}`, pub(a), pub(b))},
		{PrivacyMint, `{"group":"g","states":[{"id":"m1","data":1},{"id":"m2","owner":"A","data":{"x":[1]}}]}`},
	} {
		x := &Exec{Height: 1, From: dev, contract: PrivacyGroupContract, state: state}
		if err := (PrivacyGroup{}).Apply(x, call.method, json.RawMessage(call.args)); err != nil {
			t.Fatalf("%s: %v", call.method, err)
		}
		for k, v := range x.writes.vals {
			state[k] = v
		}
	}
	creates := []PrivacyState{{ID: "c1", Data: json.RawMessage(`2`)}}
	d := PrivacyDigest("g", "t1", []string{"m1"}, creates)
	confirm, err := json.Marshal(map[string]any{"group": "g", "txId": "t1", "spends": []string{"m1"}, "creates": creates,
		"endorsements": []PrivacyEndorsement{EndorsePrivacy("A", a, d), EndorsePrivacy("B", b, d)}})
	if err != nil {
		t.Fatal(err)
	}
	x := &Exec{Height: 2, From: dev, contract: PrivacyGroupContract, state: state}
	if err := (PrivacyGroup{}).Apply(x, PrivacyConfirm, confirm); err != nil {
		t.Fatalf("the seed confirm fails: %v", err)
	}
	return state, dev, confirm
}

// FuzzPrivacyGroupArgs applies arbitrary args to every privacygroup method
// and read: nothing panics, a failure is a *Failure with a reason that does
// not depend on the run, and the same args on the same state give the same
// outcome and the same writes.
func FuzzPrivacyGroupArgs(f *testing.F) {
	state, dev, confirm := pgFuzzState(f)
	for _, s := range []string{
		string(confirm), ``, `null`, `{}`, `[]`, `{"group":"g"}`, `{"group":"g","id":"m1"}`, `{"group":"g","txId":"t1"}`,
		`{"group":"g","states":[{"id":"m3","data":null}]}`, `{"group":"h","members":[{"id":"A","publicKey":"` + string(dev) + `"}],"threshold":1}`,
		`{"group":"g","txId":"t","spends":["m1","m1"],"endorsements":[{"member":"A","signature":"00"}]}`,
		`{"group":"g","states":[{"id":"\ud800","data":1}]}`, `{"group":"g","states":[{"id":"q","data":1e400}]}`,
	} {
		f.Add(s)
	}
	methods := []string{PrivacyDeploy, PrivacyMint, PrivacyConfirm}
	reads := []string{"group", "state", "intent"}
	f.Fuzz(func(t *testing.T, args string) {
		for _, m := range methods {
			run := func() (string, map[string][]byte) {
				x := &Exec{Height: 2, From: dev, contract: PrivacyGroupContract, state: state}
				err := (PrivacyGroup{}).Apply(x, m, json.RawMessage(args))
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
		}
		r := contractReader{contract: PrivacyGroupContract, state: state}
		for _, m := range reads {
			raw, err := (PrivacyGroup{}).Call(r, m, json.RawMessage(args))
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
