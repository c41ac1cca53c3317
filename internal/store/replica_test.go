package store

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

func TestDecodeChange(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 5, time.UTC)
	for _, tc := range []struct {
		name    string
		payload string
		ok      bool
	}{
		{"intent", string(EncodeChange(Change{Op: ChangeIntent, UID: "a", Type: "T", Data: json.RawMessage(`{"x":1}`), IdempotencyKey: "k", At: at})), true},
		{"final done", string(EncodeChange(Change{Op: ChangeFinal, UID: "a", State: Done, Result: json.RawMessage(`[1]`), At: at})), true},
		{"final failed", string(EncodeChange(Change{Op: ChangeFinal, UID: "a", State: Failed, Error: "boom", At: at})), true},
		{"final waiting", `{"op":"final","uid":"a","state":"WAITING"}`, false},
		{"final without state", `{"op":"final","uid":"a"}`, false},
		{"unknown op", `{"op":"delete","uid":"a"}`, false},
		{"empty uid", `{"op":"intent","uid":""}`, false},
		{"not json", `{"op":`, false},
		{"not an object", `[]`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := DecodeChange([]byte(tc.payload))
			if (err == nil) != tc.ok {
				t.Fatalf("DecodeChange(%s): %+v, %v; want ok %v", tc.payload, c, err, tc.ok)
			}
		})
	}
}

// FuzzDecodeChange: DecodeChange never panics; what it accepts has a uid
// and a known operation (a final one DONE or FAILED), and encodes to a
// payload it decodes again to the same change.
func FuzzDecodeChange(f *testing.F) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 5, time.UTC)
	for _, c := range []Change{
		{Op: ChangeIntent, UID: "a", Type: "T", Data: json.RawMessage(`{"x":[1,2]}`), IdempotencyKey: "k", At: at},
		{Op: ChangeFinal, UID: "b", State: Done, Result: json.RawMessage(`"ok"`), At: at},
		{Op: ChangeFinal, UID: "c", State: Failed, Error: "boom"},
	} {
		f.Add(EncodeChange(c))
	}
	for _, s := range []string{``, `{}`, `null`, `{"op":"final","uid":"x","state":"RETRY"}`, `{"op":"intent","uid":"x","data":1e999}`,
		`{"op":"intent","uid":"x","at":"not a time"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		c, err := DecodeChange(p)
		if err != nil {
			return
		}
		switch {
		case c.UID == "":
			t.Fatalf("accepted an empty uid: %q", p)
		case c.Op == ChangeIntent:
		case c.Op == ChangeFinal && (c.State == Done || c.State == Failed):
		default:
			t.Fatalf("accepted op %q state %q: %q", c.Op, c.State, p)
		}
		again, err := DecodeChange(EncodeChange(c))
		if err != nil {
			t.Fatalf("re-decoding %+v: %v", c, err)
		}
		// Raw JSON comes back compacted and times lose their monotonic
		// reading: compare the re-encodings.
		if a, b := EncodeChange(again), EncodeChange(c); !reflect.DeepEqual(a, b) {
			t.Fatalf("round trip:\n got %s\nwant %s", a, b)
		}
	})
}
