package chaintest

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
)

// read runs a contract read and returns its answer and error.
func (e *env) read(contract, method, args string) (json.RawMessage, error) {
	return e.c().Call(e.ctx, contract, method, json.RawMessage(args))
}

// mustRead runs a contract read that must succeed and decodes its answer.
func (e *env) mustRead(contract, method, args string, out any) {
	e.t.Helper()
	raw, err := e.read(contract, method, args)
	if err != nil {
		e.t.Fatalf("Call %s.%s %s: %v", contract, method, args, err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		e.t.Fatalf("Call %s.%s %s answered %s: %v", contract, method, args, raw, err)
	}
}

// wantEvent checks that transaction h emitted exactly one event, of contract
// and name, whose data is want (compact JSON), and returns it.
func (e *env) wantEvent(h chain.Hash, contract, name, want string) chain.Event {
	e.t.Helper()
	evs := e.txEvents(h)
	if len(evs) != 1 || evs[0].Contract != contract || evs[0].Name != name || string(evs[0].Data) != want {
		e.t.Fatalf("events of %s: %+v, want one %s.%s %s", short(h), evs, contract, name, want)
	}
	return evs[0]
}

// wantNoEvents checks that transaction h emitted nothing.
func (e *env) wantNoEvents(h chain.Hash) {
	e.t.Helper()
	if evs := e.txEvents(h); len(evs) != 0 {
		e.t.Fatalf("transaction %s emitted %+v, want nothing", short(h), evs)
	}
}

func (c *caller) reg(method, args string) chain.Hash {
	c.e.t.Helper()
	return c.send(devchain.RegistryContract, method, args)
}

// tool reads the registry's definition of t.
func (e *env) tool(t string) devchain.ToolDefinition {
	e.t.Helper()
	var d devchain.ToolDefinition
	e.mustRead(devchain.RegistryContract, "tool", fmt.Sprintf(`{"tool":%q}`, t), &d)
	return d
}

// tools reads the registry's list.
func (e *env) tools() []devchain.ToolSummary {
	e.t.Helper()
	var v struct {
		Tools []devchain.ToolSummary `json:"tools"`
	}
	e.mustRead(devchain.RegistryContract, "tools", `{}`, &v)
	return v.Tools
}

// toolGone checks that t is not registered: its read is not found.
func (e *env) toolGone(t string) {
	e.t.Helper()
	if raw, err := e.read(devchain.RegistryContract, "tool", fmt.Sprintf(`{"tool":%q}`, t)); !errors.Is(err, chain.ErrNotFound) {
		e.t.Fatalf("tool %s: %s, %v; want not found", t, raw, err)
	}
}

func registerArgs(tool, url string) string {
	return fmt.Sprintf(`{"tool":%q,"url":%q,"inputSchema":{"type":"object"},"outputSchema":{"type":"number"}}`, tool, url)
}

// testRegistry: the registry contract's register, re-register, deregister,
// ownership, versions, events, reads and malformed args; a reorg undoes a
// registration and a restart keeps the registry.
func testRegistry(t *testing.T, f Factory) {
	e := newEnv(t, f)
	a, b := e.caller(e.dev[0]), e.caller(e.dev[1])
	reg := devchain.RegistryContract

	t.Run("register, replace, deregister", func(t *testing.T) {
		h1 := a.reg("register", registerArgs("math.add", "http://tools.test/add"))
		blk := e.mine()
		e.wantIncluded(h1, true, "")
		e.wantEvent(h1, reg, "ToolRegistered", `{"tool":"math.add","url":"http://tools.test/add","version":1}`)
		d := e.tool("math.add")
		if d.Tool != "math.add" || d.URL != "http://tools.test/add" || d.Owner != a.from || d.Version != 1 ||
			string(d.InputSchema) != `{"type":"object"}` || string(d.OutputSchema) != `{"type":"number"}` {
			t.Fatalf("definition %+v (block %d)", d, blk.Height)
		}

		// The registrant replaces it; another account cannot, in the same
		// block or later.
		h2 := a.reg("register", `{"tool":"math.add","url":"https://tools.test/v2/add","inputSchema":{"type":"array"},"outputSchema":{}}`)
		h3 := b.reg("register", registerArgs("math.add", "http://evil.test/"))
		e.mine()
		e.wantIncluded(h2, true, "")
		e.wantIncluded(h3, false, devchain.ReasonNotOwner)
		e.wantNoEvents(h3)
		e.wantEvent(h2, reg, "ToolRegistered", `{"tool":"math.add","url":"https://tools.test/v2/add","version":2}`)
		if d := e.tool("math.add"); d.URL != "https://tools.test/v2/add" || d.Owner != a.from || d.Version != 2 || string(d.InputSchema) != `{"type":"array"}` || string(d.OutputSchema) != `{}` {
			t.Fatalf("replaced definition %+v", d)
		}

		h4 := b.reg("register", registerArgs("text-stats", "http://tools.test/stats"))
		e.mine()
		e.wantIncluded(h4, true, "")
		if got := e.tools(); len(got) != 2 || got[0] != (devchain.ToolSummary{Tool: "math.add", URL: "https://tools.test/v2/add", Owner: a.from, Version: 2}) ||
			got[1] != (devchain.ToolSummary{Tool: "text-stats", URL: "http://tools.test/stats", Owner: b.from, Version: 1}) {
			t.Fatalf("tools %+v", got)
		}

		// Only the registrant deregisters; then the name is free and its
		// versions go on.
		h5 := b.reg("deregister", `{"tool":"math.add"}`)
		h6 := a.reg("deregister", `{"tool":"math.add"}`)
		h7 := a.reg("deregister", `{"tool":"never"}`)
		e.mine()
		e.wantIncluded(h5, false, devchain.ReasonNotOwner)
		e.wantIncluded(h6, true, "")
		e.wantIncluded(h7, false, devchain.ReasonNoSuchTool)
		e.wantEvent(h6, reg, "ToolDeregistered", `{"tool":"math.add","version":3}`)
		e.toolGone("math.add")
		if got := e.tools(); len(got) != 1 || got[0].Tool != "text-stats" {
			t.Fatalf("tools after the deregister %+v", got)
		}
		again := a.reg("deregister", `{"tool":"math.add"}`)
		h8 := b.reg("register", registerArgs("math.add", "http://b.test/add"))
		e.mine()
		e.wantIncluded(again, false, devchain.ReasonNoSuchTool)
		e.wantIncluded(h8, true, "")
		e.wantEvent(h8, reg, "ToolRegistered", `{"tool":"math.add","url":"http://b.test/add","version":4}`)
		if d := e.tool("math.add"); d.Owner != b.from || d.Version != 4 {
			t.Fatalf("registered again by another account: %+v", d)
		}
	})

	t.Run("malformed", func(t *testing.T) {
		const (
			name = "registry: tool must be 1-64 characters of [a-z0-9_.-]"
			url  = "registry: url must be an http or https URL with a host, at most 2048 bytes"
			in   = "registry: inputSchema must be a JSON object of at most 16384 bytes"
			out  = "registry: outputSchema must be a JSON object of at most 16384 bytes"
		)
		big := fmt.Sprintf(`{"d":%q}`, strings.Repeat("x", devchain.MaxToolSchema))
		cases := []struct{ method, args, reason string }{
			{"register", ``, "registry: register args must be a JSON object"},
			{"register", `[]`, "registry: register args must be a JSON object"},
			{"register", `{"url":"http://x.test","inputSchema":{},"outputSchema":{}}`, name},
			{"register", registerArgs("Bad", "http://x.test"), name},
			{"register", registerArgs("a/b", "http://x.test"), name},
			{"register", registerArgs(strings.Repeat("t", 65), "http://x.test"), name},
			{"register", registerArgs("t", "ftp://x.test/"), url},
			{"register", registerArgs("t", "http:///path"), url},
			{"register", registerArgs("t", "tools.test/add"), url},
			{"register", registerArgs("t", "http://x.test/"+strings.Repeat("p", devchain.MaxToolURL)), url},
			{"register", `{"tool":"t","url":7,"inputSchema":{},"outputSchema":{}}`, url},
			{"register", `{"tool":"t","url":"http://x.test","outputSchema":{}}`, in},
			{"register", `{"tool":"t","url":"http://x.test","inputSchema":[],"outputSchema":{}}`, in},
			{"register", `{"tool":"t","url":"http://x.test","inputSchema":"{}","outputSchema":{}}`, in},
			{"register", `{"tool":"t","url":"http://x.test","inputSchema":{},"outputSchema":null}`, out},
			{"register", `{"tool":"t","url":"http://x.test","inputSchema":{},"outputSchema":` + big + `}`, out},
			{"register", `{"tool":"t","url":"http://x.test","inputSchema":{},"outputSchema":{},"owner":"me"}`, `registry: register args has an unknown field "owner"`},
			{"deregister", `{}`, name},
			{"deregister", `{"tool":"t","x":1}`, `registry: deregister args has an unknown field "x"`},
			{"update", `{}`, `registry: unknown method "update"`},
		}
		var hs []chain.Hash
		for _, c := range cases {
			hs = append(hs, a.reg(c.method, c.args))
		}
		e.mine()
		for i, c := range cases {
			e.wantIncluded(hs[i], false, c.reason)
			e.wantNoEvents(hs[i])
		}
		e.toolGone("t")
	})

	t.Run("reads", func(t *testing.T) {
		for _, c := range []struct {
			name, method, args string
			want               error
		}{
			{"unknown read", "list", `{}`, chain.ErrUnknownMethod},
			{"not registered", "tool", `{"tool":"nope"}`, chain.ErrNotFound},
			{"no tool", "tool", `{}`, chain.ErrCallFailed},
			{"bad tool", "tool", `{"tool":"A"}`, chain.ErrCallFailed},
			{"unknown field", "tool", `{"tool":"t","x":1}`, chain.ErrCallFailed},
			{"tools with args", "tools", `{"x":1}`, chain.ErrCallFailed},
			{"tools not an object", "tools", `[]`, chain.ErrCallFailed},
		} {
			if _, err := e.read(reg, c.method, c.args); !errors.Is(err, c.want) {
				t.Fatalf("Call %s = %v, want %v", c.name, err, c.want)
			}
		}
		// tools takes no args at all, or an empty object.
		for _, args := range []string{``, `null`, `{}`} {
			if _, err := e.read(reg, "tools", args); err != nil {
				t.Fatalf("tools %q: %v", args, err)
			}
		}
	})

	t.Run("a reorg undoes a registration", func(t *testing.T) {
		h := a.reg("register", registerArgs("reorged", "http://r.test"))
		e.mine()
		ev := e.wantEvent(h, reg, "ToolRegistered", `{"tool":"reorged","url":"http://r.test","version":1}`)
		e.setFaults(devchain.FaultUpdate{Reorg: ptr(uint64(1))})
		e.toolGone("reorged")
		for _, x := range e.events(0, 0) {
			if x.TxHash == h {
				t.Fatalf("the reorged registration's event is still listed: %+v", x)
			}
		}
		e.mine() // included again: the same version, a new cursor
		e.wantIncluded(h, true, "")
		if again := e.wantEvent(h, reg, "ToolRegistered", `{"tool":"reorged","url":"http://r.test","version":1}`); again.Cursor <= ev.Cursor {
			t.Fatalf("event after the reorg at cursor %d, before %d", again.Cursor, ev.Cursor)
		}
	})

	t.Run("restart keeps the registry", func(t *testing.T) {
		before := e.mustJSON([]any{e.tools(), e.tool("math.add"), e.tool("text-stats")})
		e.restart()
		if got := e.mustJSON([]any{e.tools(), e.tool("math.add"), e.tool("text-stats")}); got != before {
			t.Fatalf("registry after restart %s, want %s", got, before)
		}
		a.nonce = e.account(a.from).Nonce
		h := a.reg("register", registerArgs("math.add", "http://a.test/"))
		e.mine()
		e.wantIncluded(h, false, devchain.ReasonNotOwner)
	})
}
