package dispatch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
)

// callSchema compiles the call type's schema as intake does.
func callSchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	d := dispatch.NewCallDispatcher(3, nil, nil)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(d.DataSchema()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("ordo:/types/call.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("ordo:/types/call.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func schemaAccepts(t testing.TB, s *jsonschema.Schema, data []byte) bool {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return false
	}
	return s.Validate(inst) == nil
}

// calls returns n calls of zkapp.set, as MultiCallData's JSON.
func callsJSON(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`{"contract":"zkapp","method":"set","args":{"zkapp":"z%d","key":"k","value":%d}}`, i, i)
	}
	return `{"calls":[` + strings.Join(parts, ",") + `]}`
}

// TestCallDataSchema: the schema and the decoder accept and refuse the same
// data, but for args over chain.MaxArgs, which only the decoder refuses.
func TestCallDataSchema(t *testing.T) {
	s := callSchema(t)
	big := `"` + strings.Repeat("x", chain.MaxArgs) + `"`
	half := `"` + strings.Repeat("x", chain.MaxArgs/2) + `"`
	for _, tc := range []struct {
		name, data string
		schema     bool // the schema accepts
		decoder    bool // ParseCallData accepts
	}{
		{"call", `{"contract":"zkapp","method":"set"}`, true, true},
		{"call with object args", `{"contract":"zkapp","method":"set","args":{"zkapp":"a","key":"k","value":1}}`, true, true},
		{"call with array args", `{"contract":"library","method":"run","args":[1,2]}`, true, true},
		{"call with scalar args", `{"contract":"library","method":"run","args":7}`, true, true},
		{"call with null args", `{"contract":"library","method":"run","args":null}`, true, true},
		{"names with digits, - and _", `{"contract":"lib_2-x","method":"m_1-y"}`, true, true},
		{"64-character name", `{"contract":"` + strings.Repeat("a", 64) + `","method":"m"}`, true, true},
		{"one call", callsJSON(1), true, true},
		{"64 calls", callsJSON(64), true, true},
		{"empty object", `{}`, false, false},
		{"array", `[]`, false, false},
		{"string", `"x"`, false, false},
		{"null", `null`, false, false},
		{"number", `1`, false, false},
		{"no method", `{"contract":"zkapp"}`, false, false},
		{"no contract", `{"method":"set"}`, false, false},
		{"upper-case contract", `{"contract":"ZkApp","method":"set"}`, false, false},
		{"empty method", `{"contract":"zkapp","method":""}`, false, false},
		{"65-character name", `{"contract":"` + strings.Repeat("a", 65) + `","method":"m"}`, false, false},
		{"space in a name", `{"contract":"zk app","method":"set"}`, false, false},
		{"newline after a name", `{"contract":"zkapp\n","method":"set"}`, false, false},
		{"number as a name", `{"contract":1,"method":"set"}`, false, false},
		{"null as a name", `{"contract":null,"method":"set"}`, false, false},
		{"unknown field", `{"contract":"zkapp","method":"set","memo":"x"}`, false, false},
		{"case-variant key", `{"Contract":"zkapp","method":"set"}`, false, false},
		{"multicall as a call", `{"contract":"multicall","method":"all","args":{"calls":[]}}`, false, false},
		{"multicall in calls", `{"calls":[{"contract":"multicall","method":"all"}]}`, false, false},
		{"no calls", `{"calls":[]}`, false, false},
		{"65 calls", callsJSON(65), false, false},
		{"calls not an array", `{"calls":{}}`, false, false},
		{"calls null", `{"calls":null}`, false, false},
		{"calls and a call", `{"calls":[{"contract":"a","method":"b"}],"contract":"a","method":"b"}`, false, false},
		{"a call not an object", `{"calls":["zkapp.set"]}`, false, false},
		{"a call without a method", `{"calls":[{"contract":"a","method":"b"},{"contract":"a"}]}`, false, false},
		{"a call with an unknown field", `{"calls":[{"contract":"a","method":"b","fee":1}]}`, false, false},
		{"args over MaxArgs", `{"contract":"library","method":"run","args":` + big + `}`, true, false},
		{"a multi-call's args over MaxArgs", `{"calls":[{"contract":"a","method":"b","args":` + half + `},{"contract":"a","method":"b","args":` + half + `}]}`, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := schemaAccepts(t, s, []byte(tc.data)); got != tc.schema {
				t.Errorf("schema accepts: %v, want %v", got, tc.schema)
			}
			_, _, err := dispatch.ParseCallData(json.RawMessage(tc.data))
			if got := err == nil; got != tc.decoder {
				t.Fatalf("decoder accepts: %v (%v), want %v", got, err, tc.decoder)
			}
			if err != nil && !errors.Is(err, dispatch.ErrCallData) {
				t.Fatalf("error %v does not wrap ErrCallData", err)
			}
			if tc.schema && !tc.decoder && !errors.Is(err, dispatch.ErrCallTooLarge) {
				t.Fatalf("the schema accepts what the decoder refuses, and not for size: %v", err)
			}
		})
	}
	if dispatch.MaxCalls != 64 || !strings.Contains(string(dispatch.NewCallDispatcher(0, nil, nil).DataSchema()), `"maxItems": 64`) {
		t.Fatal("the schema's maxItems and MaxCalls differ")
	}
}

// testSender is a sender with a valid address.
var testSender = sequencer.Sender{AccountID: string(chain.KeyAddress(chain.KeyFromSeed("call-test"))), Queue: "q", Nonce: 7, Fee: 1500}

// TestCallBuild: Build makes the call (or the multi-call) with the sender's
// nonce and fee and the uid in the memo, the same transaction every time and
// whatever the data's spacing and key order; the hash is pinned so that a
// change of encoding, which would orphan the hashes committed by an older
// node, is seen.
func TestCallBuild(t *testing.T) {
	d := dispatch.NewCallDispatcher(3, nil, nil)
	if d.Name() != dispatch.CallType || d.MaxRetries() != 3 {
		t.Fatalf("name %q retries %d", d.Name(), d.MaxRetries())
	}
	for _, tc := range []struct {
		name     string
		variants []string
		contract string
		method   string
		args     string
		hash     chain.Hash
	}{
		{"call", []string{
			`{"contract":"zkapp","method":"set","args":{"zkapp":"a","key":"k","value":[1,2.50,"<x>"]}}`,
			` { "args" : { "value":[1, 2.50, "<x>"], "key":"k", "zkapp":"a" }, "method":"set", "contract":"zkapp" } `,
			string(dispatch.CallData("zkapp", "set", json.RawMessage(`{"zkapp":"a","key":"k","value":[1,2.50,"\u003cx>"]}`))),
		}, "zkapp", "set", `{"key":"k","value":[1,2.50,"<x>"],"zkapp":"a"}`, "7f1da8ac07a0e598542a892d9772f0cac7a7ab4a3765c68e398c0405556f8ada"},
		{"call without args", []string{
			`{"contract":"library","method":"ping"}`,
			`{"method":"ping","contract":"library","args":null}`,
			string(dispatch.CallData("library", "ping", nil)),
		}, "library", "ping", ``, "4e24263e714ff7e80054d1aad4987af5dec4dae2f95cabebdbb79b6853ae3d64"},
		{"multi-call", []string{
			`{"calls":[{"contract":"zkapp","method":"deploy","args":{"zkapp":"a"}},{"contract":"library","method":"ping"}]}`,
			`{"calls":[{"method":"deploy","args":{"zkapp":"a"},"contract":"zkapp"},{"args":null,"contract":"library","method":"ping"}]}`,
			string(dispatch.MultiCallData([]dispatch.Call{{Contract: "zkapp", Method: "deploy", Args: json.RawMessage(`{"zkapp":"a"}`)}, {Contract: "library", Method: "ping"}})),
		}, "multicall", "all", `{"calls":[{"args":{"zkapp":"a"},"contract":"zkapp","method":"deploy"},{"contract":"library","method":"ping"}]}`, "bd5752a7f3f8e718a2464879a33d4b30a26975f0a0f984a0278d5d09c2dfb1e5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var first chain.Tx
			for i, v := range tc.variants {
				txn := sequencer.RawTxnData{UID: "tx_0001", Type: dispatch.CallType, Data: json.RawMessage(v)}
				tx, err := d.Build(context.Background(), txn, testSender)
				if err != nil {
					t.Fatalf("variant %d: %v", i, err)
				}
				if tx.From != chain.Address(testSender.AccountID) || tx.Nonce != 7 || tx.Fee != 1500 || tx.Memo != "tx_0001" || tx.Signature != "" {
					t.Fatalf("variant %d: %+v", i, tx)
				}
				if tx.Contract != tc.contract || tx.Method != tc.method || string(tx.Args) != tc.args {
					t.Fatalf("variant %d: %s.%s %s, want %s.%s %s", i, tx.Contract, tx.Method, tx.Args, tc.contract, tc.method, tc.args)
				}
				again, _ := d.Build(context.Background(), txn, testSender)
				if i == 0 {
					first = tx
				}
				if again.Hash() != tx.Hash() || tx.Hash() != first.Hash() {
					t.Fatalf("variant %d: hash %s, again %s, first variant %s", i, tx.Hash(), again.Hash(), first.Hash())
				}
				if tx.HashCanonical() != tx.Hash() {
					t.Fatalf("variant %d: args not canonical: %s", i, tx.Args)
				}
				norm := tx
				if err := norm.Normalize(); err != nil {
					t.Fatalf("variant %d: the chain would refuse it: %v", i, err)
				}
			}
			if first.Hash() != tc.hash {
				t.Fatalf("hash %s, pinned %s", first.Hash(), tc.hash)
			}
		})
	}
	if _, err := d.Build(context.Background(), sequencer.RawTxnData{UID: "u", Data: json.RawMessage(`{"contract":"zkapp"}`)}, testSender); !errors.Is(err, dispatch.ErrCallData) {
		t.Fatalf("bad data built: %v", err)
	}
}

// TestCallDataHelpers: CallData and MultiCallData give data the decoder
// reads back as given; args that are not JSON give data that is not JSON.
func TestCallDataHelpers(t *testing.T) {
	calls := []dispatch.Call{
		{Contract: "zkapp", Method: "deploy", Args: json.RawMessage(`{"zkapp":"a"}`)},
		{Contract: "library", Method: "ping"},
		{Contract: "library", Method: "run", Args: json.RawMessage(`"s"`)},
	}
	got, multi, err := dispatch.ParseCallData(dispatch.MultiCallData(calls))
	if err != nil || !multi || len(got) != len(calls) {
		t.Fatalf("multi-call: %v %v %+v", err, multi, got)
	}
	for i := range calls {
		if got[i].Contract != calls[i].Contract || got[i].Method != calls[i].Method || string(got[i].Args) != string(calls[i].Args) {
			t.Fatalf("call %d: %+v, want %+v", i, got[i], calls[i])
		}
	}
	one, multi, err := dispatch.ParseCallData(dispatch.CallData("zkapp", "set", json.RawMessage(`{"zkapp":"a"}`)))
	if err != nil || multi || len(one) != 1 || one[0].Contract != "zkapp" || one[0].Method != "set" || string(one[0].Args) != `{"zkapp":"a"}` {
		t.Fatalf("call: %v %v %+v", err, multi, one)
	}
	if b := dispatch.CallData("zkapp", "set", json.RawMessage(`{"zkapp":`)); json.Valid(b) {
		t.Fatalf("CallData with args that are not JSON gave JSON: %s", b)
	}
	if b := dispatch.CallData(`a"b`, "m", nil); !json.Valid(b) {
		t.Fatalf("CallData did not quote a name: %s", b)
	}
}

// FuzzCallData: for any data intake lets through, the decoder never panics,
// refuses only what the schema refuses or what is over chain.MaxArgs, and
// builds the same valid transaction every time.
func FuzzCallData(f *testing.F) {
	for _, s := range []string{
		`{"contract":"zkapp","method":"set","args":{"zkapp":"a"}}`,
		`{"contract":"library","method":"run","args":null}`,
		`{"calls":[{"contract":"zkapp","method":"deploy","args":{"zkapp":"a"}},{"contract":"library","method":"ping"}]}`,
		`{"calls":[]}`, `{"Contract":"a","method":"b"}`, `{"contract":"multicall","method":"all"}`,
		`{"contract":"a\u0062","method":"b"}`, `[]`, `null`, `{}`,
	} {
		f.Add([]byte(s))
	}
	s := callSchema(f)
	d := dispatch.NewCallDispatcher(0, nil, nil)
	f.Fuzz(func(t *testing.T, data []byte) {
		if (sequencer.IntakeRules{}).CheckIntake(sequencer.Intake{Queue: "q", Type: dispatch.CallType, Data: data}) != nil || len(bytes.TrimSpace(data)) == 0 {
			return
		}
		_, _, err := dispatch.ParseCallData(data)
		schemaOK := schemaAccepts(t, s, data)
		switch {
		case err == nil && !schemaOK:
			t.Fatalf("the decoder accepts what the schema refuses: %q", data)
		case err != nil && schemaOK && !errors.Is(err, dispatch.ErrCallTooLarge):
			t.Fatalf("the schema accepts what the decoder refuses (%v): %q", err, data)
		case err != nil && !errors.Is(err, dispatch.ErrCallData):
			t.Fatalf("error %v does not wrap ErrCallData", err)
		}
		if err != nil {
			return
		}
		txn := sequencer.RawTxnData{UID: "tx_f", Type: dispatch.CallType, Data: data}
		a, err := d.Build(context.Background(), txn, testSender)
		if err != nil {
			t.Fatalf("decoded but not built: %v", err)
		}
		b, _ := d.Build(context.Background(), txn, testSender)
		if a.Hash() != b.Hash() {
			t.Fatal("Build is not deterministic")
		}
		if err := a.Normalize(); err != nil {
			t.Fatalf("built a transaction the chain refuses: %v", err)
		}
	})
}
