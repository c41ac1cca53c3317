package chain

import (
	"errors"
	"testing"
)

func testTx() Tx {
	key := KeyFromSeed("alice")
	return Tx{From: KeyAddress(key), Nonce: 3, Fee: 1000, Contract: "zkapp", Method: "set", Args: []byte(`{"zkapp":"a","key":"k","value":1}`), Memo: "tx_1"}
}

func TestSignVerifyAndHashCoversFields(t *testing.T) {
	key := KeyFromSeed("alice")
	tx := testTx()
	tx.Sign(key)
	if err := tx.VerifySignature(); err != nil {
		t.Fatalf("verify: %v", err)
	}
	base := tx.Hash()
	mutations := map[string]func(*Tx){
		"nonce":    func(t *Tx) { t.Nonce++ },
		"fee":      func(t *Tx) { t.Fee++ },
		"contract": func(t *Tx) { t.Contract = "other" },
		"method":   func(t *Tx) { t.Method = "deploy" },
		"args":     func(t *Tx) { t.Args = []byte(`{"zkapp":"b"}`) },
		"memo":     func(t *Tx) { t.Memo = "tx_2" },
		"from":     func(t *Tx) { t.From = KeyAddress(KeyFromSeed("bob")) },
	}
	for name, mut := range mutations {
		m := tx
		mut(&m)
		if m.Hash() == base {
			t.Errorf("%s: hash did not change", name)
		}
		if err := m.VerifySignature(); !errors.Is(err, ErrBadSignature) {
			t.Errorf("%s: verify = %v, want ErrBadSignature", name, err)
		}
	}
	ws := tx
	ws.Args = []byte("{ \"zkapp\" : \"a\", \"key\":\"k\",\n \"value\":1 }")
	if ws.Hash() != base {
		t.Error("whitespace in args changed the hash")
	}
}

func TestDecodeTx(t *testing.T) {
	cases := []struct {
		name string
		in   string
		ok   bool
	}{
		{"valid", `{"from":"` + string(KeyAddress(KeyFromSeed("a"))) + `","nonce":0,"fee":1,"contract":"zkapp","method":"deploy","args":{"zkapp":"x"}}`, true},
		{"unknown field", `{"from":"` + string(KeyAddress(KeyFromSeed("a"))) + `","nonce":0,"fee":1,"contract":"zkapp","method":"deploy","x":1}`, false},
		{"trailing", `{"from":"` + string(KeyAddress(KeyFromSeed("a"))) + `","nonce":0,"fee":1,"contract":"zkapp","method":"deploy"} {}`, false},
		{"bad from", `{"from":"zz","nonce":0,"fee":1,"contract":"zkapp","method":"deploy"}`, false},
		{"negative nonce", `{"from":"` + string(KeyAddress(KeyFromSeed("a"))) + `","nonce":-1,"fee":1,"contract":"zkapp","method":"deploy"}`, false},
		{"no method", `{"from":"` + string(KeyAddress(KeyFromSeed("a"))) + `","nonce":0,"fee":1,"contract":"zkapp"}`, false},
		{"long memo", `{"from":"` + string(KeyAddress(KeyFromSeed("a"))) + `","nonce":0,"fee":1,"contract":"zkapp","method":"m","memo":"` + string(make([]byte, 0)) + repeat("x", 257) + `"}`, false},
		{"bad sig", `{"from":"` + string(KeyAddress(KeyFromSeed("a"))) + `","nonce":0,"fee":1,"contract":"zkapp","method":"m","signature":"00"}`, false},
		{"not json", `nope`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tx, err := DecodeTx([]byte(c.in))
			if (err == nil) != c.ok {
				t.Fatalf("err = %v, want ok=%v", err, c.ok)
			}
			if err != nil && !errors.Is(err, ErrInvalidTx) {
				t.Fatalf("err %v does not wrap ErrInvalidTx", err)
			}
			if err == nil {
				if err := tx.Validate(); err != nil {
					t.Fatalf("decoded tx fails Validate: %v", err)
				}
			}
		})
	}
}

func repeat(s string, n int) string {
	b := make([]byte, 0, n*len(s))
	for range n {
		b = append(b, s...)
	}
	return string(b)
}

// FuzzDecodeTx checks that the decoder never panics, that whatever it accepts
// is valid, and that a decoded transaction round-trips to the same hash.
func FuzzDecodeTx(f *testing.F) {
	f.Add([]byte(`{"from":"` + string(KeyAddress(KeyFromSeed("a"))) + `","nonce":0,"fee":1,"contract":"zkapp","method":"deploy","args":{"zkapp":"x"},"memo":"m"}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"args":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tx, err := DecodeTx(data)
		if err != nil {
			if !errors.Is(err, ErrInvalidTx) {
				t.Fatalf("error %v does not wrap ErrInvalidTx", err)
			}
			return
		}
		if err := tx.Validate(); err != nil {
			t.Fatalf("accepted tx fails Validate: %v", err)
		}
		_ = tx.VerifySignature()
		enc, err := jsonMarshal(tx)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		back, err := DecodeTx(enc)
		if err != nil {
			t.Fatalf("re-decode of %s: %v", enc, err)
		}
		if back.Hash() != tx.Hash() {
			t.Fatalf("hash changed across a round trip")
		}
	})
}
