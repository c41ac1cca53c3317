package chaintest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
)

// call is one call of a multicall, as JSON.
func call(contract, method, args string) string {
	if args == "" {
		return fmt.Sprintf(`{"contract":%q,"method":%q}`, contract, method)
	}
	return fmt.Sprintf(`{"contract":%q,"method":%q,"args":%s}`, contract, method, args)
}

// multi sends a multicall of the given calls.
func (c *caller) multi(calls ...string) chain.Hash {
	c.e.t.Helper()
	return c.send(devchain.MulticallContract, devchain.MulticallMethod, `{"calls":[`+strings.Join(calls, ",")+`]}`)
}

// testMulticall: a multicall applies all its calls in order, or none of them
// with the failing call named in its reason; its events carry each call's
// contract; its limits fail with stable reasons.
func testMulticall(t *testing.T, f Factory) {
	e := newEnv(t, f)
	a := e.caller(e.dev[0])

	t.Run("all applied", func(t *testing.T) {
		h := a.multi(
			call("zkapp", "deploy", `{"zkapp":"mc1"}`),
			call("library", "ping", `{"x":1}`),
			call("library", "ping", ""),
			call("zkapp", "deploy", `{"zkapp":"mc2","state":{"k":1}}`),
			call("library", "confirm", `{"executionId":"e1","success":true}`),
		)
		blk := e.mine()
		e.wantIncluded(h, true, "")
		for _, z := range []string{"mc1", "mc2"} {
			if _, v := e.get(z); v.Owner != string(a.from) || v.Changed != blk.Height {
				t.Fatalf("zkapp %s after the multicall: %+v", z, v)
			}
		}
		if n := e.libCount("ping"); n != 2 {
			t.Fatalf("ping count %d, want 2: the second call sees the first's write", n)
		}
		evs := e.txEvents(h)
		want := []struct{ contract, name string }{
			{"zkapp", "deploy"}, {"library", "Called"}, {"library", "Called"}, {"zkapp", "deploy"}, {"library", "CallbackConfirmation"},
		}
		if len(evs) != len(want) {
			t.Fatalf("multicall events %+v, want %d", evs, len(want))
		}
		for i, w := range want {
			if evs[i].Contract != w.contract || evs[i].Name != w.name || evs[i].TxIndex != 0 || evs[i].Height != blk.Height {
				t.Fatalf("event %d = %+v, want %s %s", i, evs[i], w.contract, w.name)
			}
		}
		var d libCalled
		if err := json.Unmarshal(evs[2].Data, &d); err != nil || d.Count != 2 || string(d.Args) != "null" || d.From != a.from {
			t.Fatalf("second Called %s (%v)", evs[2].Data, err)
		}
	})

	t.Run("one failing applies none", func(t *testing.T) {
		before := e.mustJSON(e.events(0, 0))
		h := a.multi(
			call("zkapp", "deploy", `{"zkapp":"mc3"}`),
			call("library", "ping", ""),
			call("zkapp", "set", `{"zkapp":"ghost","key":"k","value":1}`),
			call("library", "ping", ""),
		)
		e.mine()
		e.wantIncluded(h, false, "call 2 (zkapp.set): no such zkapp")
		if _, err := e.c().Call(e.ctx, "zkapp", "get", json.RawMessage(`{"zkapp":"mc3"}`)); err == nil {
			t.Fatal("the failed multicall's deploy took effect")
		}
		if n := e.libCount("ping"); n != 2 {
			t.Fatalf("ping count %d, want 2 still", n)
		}
		if got := e.mustJSON(e.events(0, 0)); got != before {
			t.Fatalf("the failed multicall emitted events: %s", got)
		}
		// Two changes of one zkApp in one multicall: one block, so the
		// second fails its precondition.
		twice := a.multi(call("zkapp", "set", `{"zkapp":"mc1","key":"a","value":1}`), call("zkapp", "set", `{"zkapp":"mc1","key":"b","value":2}`))
		e.mine()
		e.wantIncluded(twice, false, "call 1 (zkapp.set): "+devchain.ReasonPrecondition)
	})

	t.Run("atomic retries against a failing library method", func(t *testing.T) {
		a.configure(`{"method":"flaky","failTimes":2}`)
		e.mine()
		reason := "call 1 (library.flaky): library: " + devchain.DefaultLibraryFailReason
		for attempt := range 3 {
			h := a.multi(call("library", "step", ""), call("library", "flaky", `{"attempt":1}`))
			e.mine()
			if attempt < 2 {
				e.wantIncluded(h, false, reason)
			} else {
				e.wantIncluded(h, true, "")
			}
			if left := e.libConfig("flaky").FailTimesLeft; left != uint64(max(0, 1-attempt)) {
				t.Fatalf("attempt %d: %d failures left, want %d: the failing call's countdown persists", attempt, left, max(0, 1-attempt))
			}
		}
		if n, m := e.libCount("step"), e.libCount("flaky"); n != 1 || m != 1 {
			t.Fatalf("counts step %d flaky %d, want 1 and 1", n, m)
		}
		// A configure in a multicall that fails never takes effect, nor do
		// its failures count against the setting in force.
		a.configure(`{"method":"held","failTimes":3}`)
		e.mine()
		first := a.lib("held", "")
		e.mine()
		e.wantIncluded(first, false, "library: "+devchain.DefaultLibraryFailReason)
		h := a.multi(call("library", "configure", `{"method":"held","failTimes":1}`), call("library", "held", ""))
		e.mine()
		e.wantIncluded(h, false, "call 1 (library.held): library: "+devchain.DefaultLibraryFailReason)
		if c := e.libConfig("held"); c.FailTimes != 3 || c.FailTimesLeft != 2 {
			t.Fatalf("held after a failed multicall that configured it: %+v, want 3 with 2 left", c)
		}
	})

	t.Run("limits", func(t *testing.T) {
		ping := call("library", "ping", "")
		many := func(n int) string {
			return `{"calls":[` + strings.TrimSuffix(strings.Repeat(ping+",", n), ",") + `]}`
		}
		const shape = `multicall: args must be {"calls": [{"contract", "method", "args"?}, ...]}`
		cases := []struct{ name, method, args, reason string }{
			{"no args", "all", ``, "multicall args must be a JSON object"},
			{"not an object", "all", `[1]`, "multicall args must be a JSON object"},
			{"no calls", "all", `{}`, shape},
			{"calls null", "all", `{"calls":null}`, shape},
			{"calls not a list", "all", `{"calls":{"a":1}}`, shape},
			{"unknown field", "all", `{"calls":[],"more":1}`, `multicall args has an unknown field "more"`},
			{"zero calls", "all", `{"calls":[]}`, "multicall: 1-64 calls, got 0"},
			{"65 calls", "all", many(65), "multicall: 1-64 calls, got 65"},
			{"call not an object", "all", `{"calls":[` + ping + `,"x"]}`, "call 1 must be a JSON object"},
			{"call unknown field", "all", `{"calls":[{"contract":"library","method":"ping","gas":1}]}`, `call 0 has an unknown field "gas"`},
			{"no contract", "all", `{"calls":[{"method":"ping"}]}`, "call 0: contract must be 1-64 characters of [a-z0-9_-]"},
			{"bad contract", "all", `{"calls":[{"contract":"Lib","method":"ping"}]}`, "call 0: contract must be 1-64 characters of [a-z0-9_-]"},
			{"bad method", "all", `{"calls":[` + ping + `,{"contract":"library","method":"p.q"}]}`, "call 1: method must be 1-64 characters of [a-z0-9_-]"},
			{"nested", "all", `{"calls":[` + call("multicall", "all", many(1)) + `]}`, "call 0: a multicall cannot hold a multicall"},
			{"unknown contract", "all", `{"calls":[` + ping + `,` + call("nosuch", "go", "") + `]}`, "call 1 (nosuch.go): unknown contract"},
			{"unknown method", "any", many(1), `unknown method "any"`},
			{"a later malformed call runs none", "all", `{"calls":[` + ping + `,{"contract":"library"}]}`, "call 1: method must be 1-64 characters of [a-z0-9_-]"},
		}
		var hs []chain.Hash
		for _, c := range cases {
			hs = append(hs, a.send(devchain.MulticallContract, c.method, c.args))
		}
		e.mine()
		for i, c := range cases {
			if st := e.status(hs[i]); st.State != chain.TxIncluded || st.Success || st.Reason != c.reason {
				t.Fatalf("%s: %+v, want a failure with reason %q", c.name, st, c.reason)
			}
		}
		if n := e.libCount("ping"); n != 2 {
			t.Fatalf("ping count %d after malformed multicalls, want 2 still", n)
		}
		full := a.send(devchain.MulticallContract, "all", many(devchain.MaxMulticallCalls))
		e.mine()
		e.wantIncluded(full, true, "")
		if n := e.libCount("ping"); n != 2+devchain.MaxMulticallCalls {
			t.Fatalf("ping count %d after a full multicall, want %d", n, 2+devchain.MaxMulticallCalls)
		}
		if _, err := e.c().Call(e.ctx, devchain.MulticallContract, "all", json.RawMessage(many(1))); err == nil {
			t.Fatal("multicall answered a read")
		}
	})
}
