package devchain

import (
	"strings"
	"testing"
)

func TestTextError(t *testing.T) {
	cases := []struct {
		name, in string
		says     string // "" for no error
	}{
		{"ascii", `{"a":"b"}`, ""},
		{"UTF-8", `{"a":"é世😀"}`, ""},
		{"pair", `{"a":"\ud83d\ude00"}`, ""},
		{"pair upper case", `{"a":"\uD83D\uDE00"}`, ""},
		{"escaped backslash before u", `{"a":"\\ud800"}`, ""},
		{"escaped quote", `{"a":"\"\ud800"}`, "surrogate \\ud800 at byte 8"},
		{"surrogate outside a string", `\ud800`, ""},
		{"lone high", `{"a":"\ud800"}`, "surrogate \\ud800 at byte 6"},
		{"lone low", `{"a":"x\udfff"}`, "surrogate \\udfff at byte 7"},
		{"high then other escape", `{"a":"\ud800\u0041"}`, "surrogate"},
		{"high then text", `{"a":"\ud800\n"}`, "surrogate"},
		{"two highs", `{"a":"\ud800\ud800\udc00"}`, "at byte 6"},
		{"in a key", `{"\udc00":1}`, "surrogate"},
		{"truncated escape", `{"a":"\ud8`, ""},
		{"bad hex", `{"a":"\uzzzz"}`, ""},
		{"invalid UTF-8", "{\"a\":\"\xc3\"}", "UTF-8 at byte 6"},
		{"overlong UTF-8", "\xc0\xaf", "UTF-8 at byte 0"},
		{"UTF-8 surrogate", "\"\xed\xa0\x80\"", "UTF-8 at byte 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := textError([]byte(c.in))
			switch {
			case c.says == "" && err != nil:
				t.Fatalf("textError(%q) = %v, want nil", c.in, err)
			case c.says != "" && (err == nil || !strings.Contains(err.Error(), c.says)):
				t.Fatalf("textError(%q) = %v, want an error saying %q", c.in, err, c.says)
			}
		})
	}
}

func TestDuplicateKey(t *testing.T) {
	const none = "(none)"
	cases := []struct{ in, want string }{
		{`{}`, none},
		{`[]`, none},
		{`1`, none},
		{`"a"`, none},
		{`{"a":1,"b":2}`, none},
		{`{"a":{"a":{"a":1}}}`, none},
		{`[{"a":1},{"a":1}]`, none},
		{`{"a":[1,2,{"b":1}],"b":{"a":null}}`, none},
		{`{"a":1,"a":1}`, "a"},
		{`{"a":1,"b":2,"a":3}`, "a"},
		{`{"":1,"":2}`, ""},
		{`{"a":{"":1,"":2}}`, "a."},
		{`{"a":{"b":1,"b":1}}`, "a.b"},
		{`{"a":{"b":{}},"c":{"d":[],"d":[]}}`, "c.d"},
		{`[{"a":1,"a":2}]`, "[0].a"},
		{`[[], [{"x":[{}, {"y":1,"y":1}]}]]`, "[1][0].x[1].y"},
		{`{"a\u0062":1,"ab":2}`, "ab"},
		{`{"a":{"b":1},"a":2}`, "a"},
		{`{"a":1,`, none},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, found, _ := duplicateKey([]byte(c.in))
			if !found {
				got = none
			}
			if got != c.want {
				t.Fatalf("duplicateKey(%s) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}
