package devchain_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/client"
	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
)

// TestHTTPStrictInputs checks the inputs JSON or a lenient reader would let
// through: each is refused with its status and code, the message says what
// is wrong, and the chain is left as it was.
func TestHTTPStrictInputs(t *testing.T) {
	e := newEnv(t, devchain.Config{})
	ctx := t.Context()
	if _, err := e.chain.SendTx(ctx, deployTx(e.dev, 0, "z1")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.chain.Mine(ctx); err != nil {
		t.Fatal(err)
	}
	// tx is a dev-signed transaction body with the given memo and args,
	// written as raw JSON.
	tx := func(memo, args string) string {
		return fmt.Sprintf(`{"from":%q,"nonce":1,"fee":1000,"contract":"zkapp","method":"deploy","args":%s,"memo":%s}`, e.dev, args, memo)
	}
	zk := `{"zkapp":"z2"}`
	writes := []struct{ method, path string }{
		{"POST", "/v1/tx"}, {"POST", "/v1/call"}, {"POST", "/v1/faucet"}, {"PUT", "/v1/faults"}, {"POST", "/v1/dev/mine"},
	}
	type tc struct {
		name, method, path, body string
		status                   int
		code, says               string
	}
	var cases []tc
	for _, w := range writes {
		for _, body := range []string{`null`, " null\n"} {
			cases = append(cases, tc{fmt.Sprintf("%s %s %q", w.method, w.path, body), w.method, w.path, body, 400, "bad_json", "null"})
		}
		cases = append(cases, tc{fmt.Sprintf("%s %s not UTF-8", w.method, w.path), w.method, w.path, "{\"a\":\"\xff\"}", 400, "bad_json", "UTF-8"})
	}
	cases = append(cases, []tc{
		// POST /v1/dev/mine: no body is one block; any body must parse.
		{"mine garbage", "POST", "/v1/dev/mine", `x`, 400, "bad_json", ""},
		{"mine whitespace", "POST", "/v1/dev/mine", `   `, 400, "bad_json", ""},
		{"mine array", "POST", "/v1/dev/mine", `[]`, 400, "bad_json", ""},
		{"mine number", "POST", "/v1/dev/mine", `1`, 400, "bad_json", ""},
		{"mine unknown field", "POST", "/v1/dev/mine", `{"blocks":2}`, 400, "bad_json", "blocks"},
		{"mine trailing data", "POST", "/v1/dev/mine", `{}{}`, 400, "bad_json", ""},
		{"mine truncated", "POST", "/v1/dev/mine", `{`, 400, "bad_json", ""},
		// Memos: valid UTF-8, no NUL, nothing JSON would replace.
		{"memo invalid UTF-8", "POST", "/v1/tx", tx("\"m\xffm\"", zk), 400, "bad_json", "UTF-8 at byte"},
		{"memo truncated UTF-8", "POST", "/v1/tx", tx("\"\xe2\x82\"", zk), 400, "bad_json", "UTF-8"},
		{"memo lone high surrogate", "POST", "/v1/tx", tx(`"a\ud800b"`, zk), 400, "bad_json", `surrogate \ud800`},
		{"memo lone low surrogate", "POST", "/v1/tx", tx(`"\udc00"`, zk), 400, "bad_json", "surrogate"},
		{"memo high surrogate at the end", "POST", "/v1/tx", tx(`"\uD83D"`, zk), 400, "bad_json", "surrogate"},
		{"memo reversed pair", "POST", "/v1/tx", tx(`"\ude00\ud83d"`, zk), 400, "bad_json", "surrogate"},
		{"memo NUL", "POST", "/v1/tx", tx(`"a\u0000b"`, zk), 422, "invalid_tx", "NUL"},
		{"memo only NUL", "POST", "/v1/tx", tx(`"\u0000"`, zk), 422, "invalid_tx", "NUL"},
		{"memo raw NUL", "POST", "/v1/tx", tx("\"a\x00b\"", zk), 400, "bad_json", ""},
		// Args: no key twice in one object, at any depth.
		{"args duplicate key", "POST", "/v1/tx", tx(`"m"`, `{"zkapp":"a","zkapp":"b"}`), 422, "invalid_tx", `duplicate key "zkapp"`},
		{"args duplicate escaped key", "POST", "/v1/tx", tx(`"m"`, `{"zkapp":"a","\u007a\u006bapp":"b"}`), 422, "invalid_tx", `duplicate key "zkapp"`},
		{"args duplicate nested key", "POST", "/v1/tx", tx(`"m"`, `{"zkapp":"a","v":{"k":1,"j":{},"k":2}}`), 422, "invalid_tx", `duplicate key "v.k"`},
		{"args duplicate key in an array", "POST", "/v1/tx", tx(`"m"`, `{"zkapp":"a","l":[{"x":1},[],{"x":1,"y":[{"z":0,"z":0}]}]}`), 422, "invalid_tx", `duplicate key "l[2].y[0].z"`},
		{"args duplicate key in a nested array", "POST", "/v1/tx", tx(`"m"`, `{"zkapp":"a","l":[[1,{"q":1,"q":1}]]}`), 422, "invalid_tx", `duplicate key "l[0][1].q"`},
		{"call args duplicate key", "POST", "/v1/call", `{"contract":"zkapp","method":"get","args":{"zkapp":"z1","zkapp":"z1"}}`, 422, "call_failed", `duplicate key "zkapp"`},
		// Query parameters: one code, as on the node's API.
		{"blocks from not a number", "GET", "/v1/blocks?from=abc", ``, 400, "bad_query", "from"},
		{"blocks unknown parameter", "GET", "/v1/blocks?frm=1", ``, 400, "bad_query", `unknown query parameter "frm"`},
		{"blocks malformed query", "GET", "/v1/blocks?from=%zz", ``, 400, "bad_query", "query string"},
		{"blocks semicolon", "GET", "/v1/blocks?from=1;to=2", ``, 400, "bad_query", ""},
		{"events limit not a number", "GET", "/v1/events?limit=x", ``, 400, "bad_query", "limit"},
		{"events unknown parameter", "GET", "/v1/events?after=1", ``, 400, "bad_query", "after"},
		{"events repeated cursor", "GET", "/v1/events?cursor=1&cursor=1", ``, 400, "bad_query", "once"},
	}...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := e.snap(t)
			var body []byte
			if c.method != "GET" {
				body = []byte(c.body)
			}
			r := e.raw(t, c.method, c.path, body)
			checkError(t, r, c.status, c.code)
			if !strings.Contains(string(r.body), jsonText(c.says)) {
				t.Fatalf("message %s does not say %q", r.body, c.says)
			}
			if after := e.snap(t); after != before {
				t.Fatalf("state changed:\nbefore %+v\n after %+v", before, after)
			}
		})
	}
}

// jsonText is s as it appears inside a JSON string.
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// TestHTTPStrictInputsAccepted: what the checks must not refuse.
func TestHTTPStrictInputsAccepted(t *testing.T) {
	e := newEnv(t, devchain.Config{})
	tx := func(nonce int, memo, args string) []byte {
		return fmt.Appendf(nil, `{"from":%q,"nonce":%d,"fee":1000,"contract":"zkapp","method":"deploy","args":%s,"memo":%s}`, e.dev, nonce, args, memo)
	}
	cases := []struct {
		name, method, path string
		body               []byte
	}{
		{"mine without a body", "POST", "/v1/dev/mine", nil},
		{"mine with an empty body", "POST", "/v1/dev/mine", []byte{}},
		{"mine with {}", "POST", "/v1/dev/mine", []byte(`{}`)},
		{"mine with {} and whitespace", "POST", "/v1/dev/mine", []byte(" {\n}\n")},
		{"memo with a surrogate pair", "POST", "/v1/tx", tx(0, `"\ud83d\ude00 ok"`, `{"zkapp":"a"}`)},
		{"memo with escapes", "POST", "/v1/tx", tx(1, `"\\u0000 \" \\ \/ \n"`, `{"zkapp":"b"}`)},
		{"memo UTF-8", "POST", "/v1/tx", tx(2, `"héllo 世界"`, `{"zkapp":"c"}`)},
		{"same key in sibling objects", "POST", "/v1/tx", tx(3, `"m"`, `{"zkapp":"d","v":[{"k":1},{"k":2}],"w":{"k":{"k":3}}}`)},
		{"faults with {}", "PUT", "/v1/faults", []byte(`{}`)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if r := e.raw(t, c.method, c.path, c.body); r.status != 200 {
				t.Fatalf("%d %s", r.status, r.body)
			}
		})
	}
}

// TestTxInputChecksInProcess: the in-process chain and the client refuse a
// NUL in a memo and duplicate keys in args with the same error as the
// HTTP API.
func TestTxInputChecksInProcess(t *testing.T) {
	ctx := t.Context()
	e := newEnv(t, devchain.Config{})
	withArgs := func(args string) chain.Tx {
		tx := deployTx(e.dev, 0, "z")
		tx.Args = json.RawMessage(args)
		return tx
	}
	withMemo := func(memo string) chain.Tx {
		tx := deployTx(e.dev, 0, "z")
		tx.Memo = memo
		return tx
	}
	cases := []struct {
		name string
		tx   chain.Tx
		want error
		says string
	}{
		{"memo NUL", withMemo("a\x00"), chain.ErrInvalidTx, "NUL"},
		{"memo invalid UTF-8", withMemo("a\xff"), chain.ErrInvalidTx, "UTF-8"},
		{"args duplicate key", withArgs(`{"zkapp":"a","zkapp":"a"}`), chain.ErrInvalidTx, `duplicate key "zkapp"`},
		{"args duplicate deep key", withArgs(`{"zkapp":"a","a":{"b":[{"c":{"d":1,"d":1}}]}}`), chain.ErrInvalidTx, `duplicate key "a.b[0].c.d"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := e.snap(t)
			_, inErr := e.chain.SendTx(ctx, c.tx)
			_, clErr := e.client.SendTx(ctx, c.tx)
			for _, err := range []error{inErr, clErr} {
				if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) {
					t.Fatalf("in process %v, client %v; want %v saying %q", inErr, clErr, c.want, c.says)
				}
			}
			if after := e.snap(t); after != before {
				t.Fatalf("state changed")
			}
		})
	}
	_, err := e.chain.Call(ctx, "zkapp", "get", json.RawMessage(`{"zkapp":"a","zkapp":"b"}`))
	if !errors.Is(err, chain.ErrCallFailed) || !strings.Contains(err.Error(), `duplicate key "zkapp"`) {
		t.Fatalf("Call with a duplicate key: %v", err)
	}
}

// The node's API and the devchain's answer a malformed query parameter with
// the same code.
func TestBadQueryCodeMatchesNode(t *testing.T) {
	if devchain.CodeBadQuery != client.CodeBadQuery {
		t.Fatalf("devchain answers %q, the node %q", devchain.CodeBadQuery, client.CodeBadQuery)
	}
}
