package node

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
)

// answers is a chain whose Call answers from a table (the EVM backend's
// JSON forms of Workflow.sol's and ToolRegistry.sol's reads).
type answers struct {
	chain.Chain
	by map[string]string
}

func (a answers) Call(_ context.Context, contract, method string, _ json.RawMessage) (json.RawMessage, error) {
	if s, ok := a.by[contract+"."+method]; ok {
		return json.RawMessage(s), nil
	}
	return nil, chain.ErrUnknownMethod
}

// TestEVMLeaderChain: the leader's three reads come back in devchain's
// shapes; JSON text that is not JSON is an error; other reads pass.
func TestEVMLeaderChain(t *testing.T) {
	t.Parallel()
	const (
		lead = `"leader":"0x5611192159ee3caa05ceafa204209a18953700ab"`
		req  = `"requester":"0xf8b40e9a4ff0e35af391d45b527e5a6627f5ea51"`
	)
	for _, c := range []struct {
		name, contract, method, answer, want string
		err                                  error
	}{
		{"a walk without result", "wf", "walk",
			`{"walk":"w1","tool":"t","input":"{\"a\": 1}",` + req + `,"height":"7","reported":false,"ok":false,"output":"","reason":"",` +
				`"leader":"0x0000000000000000000000000000000000000000","resultHeight":"0"}`,
			`{"walk":"w1","tool":"t","input":{"a":1},` + req + `,"height":7}`, nil},
		{"a success", "wf", "walk",
			`{"walk":"w1","tool":"t","input":"[]",` + req + `,"height":"7","reported":true,"ok":true,"output":"{\"sum\":3}","reason":"",` + lead + `,"resultHeight":"9"}`,
			`{"walk":"w1","tool":"t","input":[],` + req + `,"height":7,"result":{"ok":true,"output":{"sum":3},` + lead + `,"height":9}}`, nil},
		{"a failure", "wf", "walk",
			`{"walk":"w2","tool":"t","input":"1",` + req + `,"height":"7","reported":true,"ok":false,"output":"","reason":"bad",` + lead + `,"resultHeight":"8"}`,
			`{"walk":"w2","tool":"t","input":1,` + req + `,"height":7,"result":{"ok":false,"error":"bad",` + lead + `,"height":8}}`, nil},
		{"an input that is not JSON", "wf", "walk",
			`{"walk":"w3","tool":"t","input":"{oops",` + req + `,"height":"7","reported":false}`, "", chain.ErrCallFailed},
		{"caps", "wf", "caps", `"2"`, `{"caps":2}`, nil},
		{"a tool", "reg", "tool",
			`{"tool":"t","url":"http://h/","inputSchema":"{\"type\": \"object\"}","outputSchema":"{}","owner":"0x5611192159ee3caa05ceafa204209a18953700ab","version":"3"}`,
			`{"tool":"t","url":"http://h/","inputSchema":{"type":"object"},"outputSchema":{},"owner":"0x5611192159ee3caa05ceafa204209a18953700ab","version":3}`, nil},
		{"a schema that is not JSON", "reg", "tool",
			`{"tool":"t","url":"http://h/","inputSchema":"{","outputSchema":"{}","owner":"0x5611192159ee3caa05ceafa204209a18953700ab","version":"3"}`, "", chain.ErrCallFailed},
		{"another read passes", "wf", "admin", `"0x5611192159ee3caa05ceafa204209a18953700ab"`, `"0x5611192159ee3caa05ceafa204209a18953700ab"`, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ch := evmLeaderChain{Chain: answers{by: map[string]string{c.contract + "." + c.method: c.answer}}, workflow: "wf", registry: "reg"}
			got, err := ch.Call(t.Context(), c.contract, c.method, nil)
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("Call = %s, %v; want %v", got, err, c.err)
				}
				return
			}
			if err != nil || string(got) != c.want {
				t.Fatalf("Call = %s, %v\nwant %s", got, err, c.want)
			}
		})
	}
}

// TestEVMResultArgs: Workflow.sol's submitResult takes all four args.
func TestEVMResultArgs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		ok          bool
		output, msg string
		want        string
	}{
		{true, `{"sum":3}`, "", `{"error":"","ok":true,"output":"{\"sum\":3}","walk":"w"}`},
		{false, ``, "tool: fatal", `{"error":"tool: fatal","ok":false,"output":"","walk":"w"}`},
	} {
		if got := string(evmResultArgs("w", c.ok, json.RawMessage(c.output), c.msg)); got != c.want {
			t.Errorf("evmResultArgs(ok %v) = %s, want %s", c.ok, got, c.want)
		}
	}
}
