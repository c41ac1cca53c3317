package sequencer_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ordolabs/ordo/internal/sequencer"
)

// nested returns data nested depth deep: depth 0 is a scalar.
func nested(depth int, open, close string) string {
	return strings.Repeat(open, depth) + "1" + strings.Repeat(close, depth)
}

func TestCheckIntake(t *testing.T) {
	ok := func(queue string) sequencer.Intake { return sequencer.Intake{Queue: queue, Type: "T"} }
	withKey := func(key string) sequencer.Intake { return sequencer.Intake{Queue: "q", Type: "T", IdempotencyKey: key} }
	withData := func(data string) sequencer.Intake {
		return sequencer.Intake{Queue: "q", Type: "T", Data: []byte(data)}
	}
	tests := []struct {
		name string
		it   sequencer.Intake
		// want is "" for accepted, else a part of the message.
		want string
	}{
		{"plain", ok("claim-1"), ""},
		{"unicode letters", ok("投票-ü-é"), ""},
		{"emoji", ok("vote 🗳"), ""},
		{"inner and outer spaces", ok(" a b "), ""},
		{"slash", ok("a/b"), ""},
		{"at the length limit", ok(strings.Repeat("q", sequencer.MaxQueueName)), ""},
		{"multi-byte at the length limit", ok(strings.Repeat("é", sequencer.MaxQueueName/2)), ""},

		{"empty", ok(""), "queue is required"},
		{"over the length limit", ok(strings.Repeat("q", sequencer.MaxQueueName+1)), "queue is 129 bytes; the most is 128"},
		{"invalid UTF-8", ok("q\xff"), "queue is not valid UTF-8 (byte 1)"},
		{"truncated rune", ok("q\xe2\x82"), "queue is not valid UTF-8"},
		{"overlong encoding", ok("\xc0\xaf"), "queue is not valid UTF-8"},
		{"surrogate encoded in UTF-8 (CESU)", ok("q\xed\xa0\x80"), "queue is not valid UTF-8"},
		{"replacement character", ok("q\uFFFD"), "U+FFFD"},
		{"NUL", ok("q\x00"), "control character U+0000 at byte 1"},
		{"tab", ok("a\tb"), "control character U+0009"},
		{"newline", ok("a\n"), "control character U+000A"},
		{"DEL", ok("a\x7f"), "control character U+007F"},
		{"C1 control", ok("a\u0085"), "control character U+0085"},
		{"only a space", ok(" "), "queue is only whitespace"},
		{"only spaces", ok("   "), "queue is only whitespace"},
		{"only no-break and ideographic spaces", ok("\u00a0\u3000\u2003"), "queue is only whitespace"},
		{"LRE", ok("a\u202Ab"), "bidirectional formatting character U+202A"},
		{"RLE", ok("a\u202Bb"), "U+202B"},
		{"PDF", ok("a\u202Cb"), "U+202C"},
		{"LRO", ok("a\u202Db"), "U+202D"},
		{"RLO (trojan source)", ok("admin\u202Enimda"), "bidirectional formatting character U+202E at byte 5"},
		{"LRI", ok("a\u2066b"), "U+2066"},
		{"RLI", ok("a\u2067b"), "U+2067"},
		{"FSI", ok("a\u2068b"), "U+2068"},
		{"PDI", ok("a\u2069b"), "U+2069"},
		{"LRM", ok("a\u200Eb"), "U+200E"},
		{"RLM", ok("a\u200Fb"), "U+200F"},
		{"ALM", ok("a\u061Cb"), "U+061C"},
		{"zero-width space", ok("a\u200Bb"), "zero-width character U+200B"},
		{"zero-width non-joiner", ok("a\u200Cb"), "U+200C"},
		{"zero-width joiner", ok("a\u200Db"), "U+200D"},
		{"word joiner", ok("a\u2060b"), "U+2060"},
		{"byte-order mark", ok("\uFEFFq"), "zero-width character U+FEFF at byte 0"},
		{"only a zero-width space", ok("\u200B"), "zero-width character"},

		{"key", withKey("order-42"), ""},
		{"key at its limit", withKey(strings.Repeat("k", sequencer.MaxIdempotencyKey)), ""},
		{"key over its limit", withKey(strings.Repeat("k", sequencer.MaxIdempotencyKey+1)), "idempotencyKey is 257 bytes"},
		{"key invalid UTF-8", withKey("k\xff"), "idempotencyKey is not valid UTF-8"},
		{"key replacement character", withKey("k\uFFFD"), "idempotencyKey contains U+FFFD"},
		{"key control", withKey("k\x00"), "idempotencyKey contains control character"},
		{"key whitespace only", withKey(" \u00a0"), "idempotencyKey is only whitespace"},
		{"key bidi", withKey("k\u202E"), "idempotencyKey contains bidirectional"},
		{"key zero-width", withKey("k\u200B"), "idempotencyKey contains zero-width"},

		{"no data", withData(""), ""},
		{"object", withData(`{"a":[1,{"b":null}],"c":"d"}`), ""},
		{"scalar", withData(`"s"`), ""},
		{"null", withData(`null`), ""},
		{"escaped pair", withData(`"\ud83d\ude00"`), ""},
		{"escaped pair in upper case", withData(`"\uD83D\uDE00"`), ""},
		{"escaped backslash before u", withData(`"\\ud800"`), ""},
		{"escaped BMP character", withData(`"\u00e9\u0041"`), ""},
		{"same key in two objects", withData(`[{"a":1},{"a":2}]`), ""},
		{"same key at two depths", withData(`{"a":{"a":1}}`), ""},
		{"depth 64 objects", withData(nested(64, `{"a":`, `}`)), ""},
		{"depth 64 arrays", withData(nested(64, `[`, `]`)), ""},
		{"depth 64 with empty innermost", withData(strings.Repeat("[", 64) + strings.Repeat("]", 64)), ""},

		{"depth 65 arrays", withData(nested(65, `[`, `]`)), "data nests arrays and objects deeper than 64 levels (maxDataDepth)"},
		{"depth 65 objects", withData(nested(65, `{"a":`, `}`)), "data nests"},
		{"depth 65 mixed", withData(nested(33, `[{"x":`, `}]`)), "data nests"},
		{"depth 10000", withData(nested(10000, `[`, `]`)), "data nests"},
		{"lone high surrogate", withData(`{"a":"\ud800"}`), `data contains \ud800 at byte 6, a lone UTF-16 surrogate`},
		{"lone low surrogate", withData(`"\udc00"`), `\udc00`},
		{"high surrogate then a non-surrogate", withData(`"\ud800\u0041"`), `\ud800`},
		{"two high surrogates", withData(`"\ud800\ud800"`), `\ud800`},
		{"lone surrogate in a key", withData(`{"\uDBFF":1}`), `\uDBFF`},
		{"lone surrogate at the end", withData(`"ok\ud83d"`), `\ud83d`},
		{"duplicate key", withData(`{"a":1,"a":2}`), `data has the key "a" twice in one object`},
		{"duplicate key nested", withData(`{"x":[{"b":1,"c":2,"b":3}]}`), `key "b" twice`},
		{"duplicate key by escape", withData(`{"a":1,"\u0061":2}`), `key "a" twice`},
		{"invalid JSON", withData(`{`), "data is not valid JSON"},
		{"two values", withData(`1 2`), "data is more than one JSON value"},
		{"invalid UTF-8 in data", withData("\"\xff\""), "data is not valid UTF-8"},
		{"a number past a float64", withData(`{"args":{"x":1e999999}}`), "data holds a number the chain's encoding refuses (number out of the range of a float64: 1e999999"},
		{"a negative one", withData(`[1,-1E400]`), "-1E400"},
		{"a long one, cut", withData(`9` + strings.Repeat("9", 400)), "(401 bytes)"},
		{"a large integer that rounds", withData(`123456789012345678901234567890`), ""},
		{"a number that rounds to zero", withData(`1e-999999`), ""},
		{"the largest float64", withData(`1.7976931348623157e308`), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := sequencer.IntakeRules{}.CheckIntake(tt.it)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted; want %q", tt.want)
			}
			if !errors.Is(err, sequencer.ErrInvalid) {
				t.Errorf("%v does not wrap ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q lacks %q", err, tt.want)
			}
			if len(err.Error()) > 400 {
				t.Errorf("error of %d bytes: %.100q…", len(err.Error()), err)
			}
		})
	}
}

// Two distinct names are never made one by intake: whatever is accepted is
// kept byte for byte, and names that differ only in what a lenient decoder
// would replace are refused rather than folded.
func TestNamesNeverCollide(t *testing.T) {
	for _, q := range []string{"q\xff", "q\xfe", "q\uFFFD", "q\xed\xa0\x80", "q\xed\xa0\x81"} {
		if err := (sequencer.IntakeRules{}).CheckIntake(sequencer.Intake{Queue: q, Type: "T"}); err == nil {
			t.Errorf("queue %q accepted", q)
		}
	}
}

func TestMaxDataDepthRule(t *testing.T) {
	for _, tt := range []struct {
		limit, depth int
		ok           bool
	}{{1, 1, true}, {1, 2, false}, {2, 0, true}, {10, 10, true}, {10, 11, false}, {0, 64, true}, {0, 65, false}, {100, 100, true}, {100, 101, false}} {
		err := sequencer.IntakeRules{MaxDataDepth: tt.limit}.CheckIntake(sequencer.Intake{Queue: "q", Type: "T", Data: []byte(nested(tt.depth, "[", "]"))})
		if (err == nil) != tt.ok {
			t.Errorf("limit %d, depth %d: %v", tt.limit, tt.depth, err)
		}
	}
	for _, n := range []int{-1, sequencer.MaxMaxDataDepth + 1} {
		if err := (sequencer.IntakeRules{MaxDataDepth: n}).Validate(); err == nil || !strings.Contains(err.Error(), "maxDataDepth") {
			t.Errorf("MaxDataDepth %d: %v", n, err)
		}
	}
	for _, n := range []int{0, 1, 64, sequencer.MaxMaxDataDepth} {
		if err := (sequencer.IntakeRules{MaxDataDepth: n}).Validate(); err != nil {
			t.Errorf("MaxDataDepth %d: %v", n, err)
		}
	}
}

func TestLoneSurrogate(t *testing.T) {
	tests := []struct {
		in   string
		at   int
		esc  string
		lone bool
	}{
		{`"plain"`, 0, "", false},
		{`"\ud83d\ude00"`, 0, "", false},
		{`"\\ud800"`, 0, "", false},
		{`"\\\ud800"`, 3, `\ud800`, true},
		{`"\"\ud800"`, 3, `\ud800`, true},
		{`"\ud800"`, 1, `\ud800`, true},
		{`"\uDFFF"`, 1, `\uDFFF`, true},
		{`"\ud800\u0041"`, 1, `\ud800`, true},
		{`"\ud800\ud800\udc00"`, 1, `\ud800`, true},
		{`"\ud83d\ude00\udc00"`, 13, `\udc00`, true},
		{`"\ud800`, 1, `\ud800`, true},
		{`"\u12"`, 0, "", false},
		{`"\`, 0, "", false},
		{`"\u00e9 \ue000 \uffff"`, 0, "", false},
	}
	for _, tt := range tests {
		at, esc, lone := sequencer.LoneSurrogate([]byte(tt.in))
		if at != tt.at || esc != tt.esc || lone != tt.lone {
			t.Errorf("LoneSurrogate(%s) = %d %q %v, want %d %q %v", tt.in, at, esc, lone, tt.at, tt.esc, tt.lone)
		}
	}
}

func TestSameJSON(t *testing.T) {
	tests := []struct {
		a, b string
		same bool
	}{
		{`{"a":1,"b":2}`, `{"b":2,"a":1}`, true},
		{`{"a": [1, 2]}`, "{\n\t\"a\":[1,2]\n}", true},
		{`{"a":{"y":1,"x":2}}`, `{"a":{"x":2,"y":1}}`, true},
		{`"\u0041"`, `"A"`, true},
		{`"<&>"`, `"\u003c\u0026\u003e"`, true},
		{`"é"`, `"\u00e9"`, true},
		{`null`, `null`, true},
		{`{}`, `{ }`, true},
		{`1`, `1.0`, false},
		{`1e2`, `100`, false},
		{`{"a":1}`, `{"a":2}`, false},
		{`{"a":1}`, `{"a":1,"b":null}`, false},
		{`[1,2]`, `[2,1]`, false},
		{`"a"`, `"A"`, false},
		{`{}`, `null`, false},
		{`{}`, `[]`, false},
		{`123456789012345678901234567890`, `123456789012345678901234567891`, false},
	}
	for _, tt := range tests {
		if got := sequencer.SameJSON([]byte(tt.a), []byte(tt.b)); got != tt.same {
			t.Errorf("SameJSON(%s, %s) = %v", tt.a, tt.b, got)
		}
	}
}

func TestExcerpt(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", `""`},
		{"short", `"short"`},
		{strings.Repeat("a", 64), `"` + strings.Repeat("a", 64) + `"`},
		{strings.Repeat("a", 65), `"` + strings.Repeat("a", 64) + `"… (65 bytes)`},
		{strings.Repeat("a", 1<<20), `"` + strings.Repeat("a", 64) + `"… (1048576 bytes)`},
		// 63 ASCII bytes then a 3-byte rune across the cut: the rune goes.
		{strings.Repeat("a", 63) + "€€", `"` + strings.Repeat("a", 63) + `"… (69 bytes)`},
		{strings.Repeat("é", 40), `"` + strings.Repeat("é", 32) + `"… (80 bytes)`},
		{"a\x00b", `"a\x00b"`},
	}
	for _, tt := range tests {
		got := sequencer.Excerpt(tt.in)
		if got != tt.want {
			t.Errorf("Excerpt(%.80q) = %s, want %s", tt.in, got, tt.want)
		}
		if !utf8.ValidString(got) {
			t.Errorf("Excerpt(%.80q) is not valid UTF-8", tt.in)
		}
	}
}
