package chaintest

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
)

// caller sends transactions from one account at consecutive nonces.
type caller struct {
	e     *env
	from  chain.Address
	nonce uint64
}

func (e *env) caller(from chain.Address) *caller {
	return &caller{e: e, from: from, nonce: e.account(from).PendingNonce}
}

// tx builds the caller's next transaction without sending it.
func (c *caller) tx(contract, method, args string) chain.Tx {
	return chain.Tx{From: c.from, Nonce: c.nonce, Fee: baseFee, Contract: contract, Method: method, Args: json.RawMessage(args), Memo: suiteMemo(c.from, c.nonce)}
}

// send sends the caller's next transaction.
func (c *caller) send(contract, method, args string) chain.Hash {
	c.e.t.Helper()
	h := c.e.send(c.tx(contract, method, args))
	c.nonce++
	return h
}

func (c *caller) lib(method, args string) chain.Hash {
	c.e.t.Helper()
	return c.send(devchain.LibraryContract, method, args)
}

// configure sends library configure with the given args object.
func (c *caller) configure(args string) chain.Hash {
	c.e.t.Helper()
	return c.lib("configure", args)
}

// libConfig reads the library's config of method m.
func (e *env) libConfig(m string) devchain.LibraryConfig {
	e.t.Helper()
	raw, err := e.c().Call(e.ctx, devchain.LibraryContract, "config", json.RawMessage(fmt.Sprintf(`{"method":%q}`, m)))
	if err != nil {
		e.t.Fatalf("Call library config %s: %v", m, err)
	}
	var c devchain.LibraryConfig
	if err := json.Unmarshal(raw, &c); err != nil {
		e.t.Fatalf("library config %s answered %s: %v", m, raw, err)
	}
	return c
}

// libCount reads the library's count of method m.
func (e *env) libCount(m string) uint64 {
	e.t.Helper()
	raw, err := e.c().Call(e.ctx, devchain.LibraryContract, "count", json.RawMessage(fmt.Sprintf(`{"method":%q}`, m)))
	if err != nil {
		e.t.Fatalf("Call library count %s: %v", m, err)
	}
	var v struct {
		Count *uint64 `json:"count"`
	}
	if err := json.Unmarshal(raw, &v); err != nil || v.Count == nil {
		e.t.Fatalf("library count %s answered %s: %v", m, raw, err)
	}
	return *v.Count
}

// libCalled is the data of the library's Called event.
type libCalled struct {
	Method string          `json:"method"`
	Args   json.RawMessage `json:"args"`
	Count  uint64          `json:"count"`
	From   chain.Address   `json:"from"`
}

// txEvents returns the events of transaction h.
func (e *env) txEvents(h chain.Hash) []chain.Event {
	e.t.Helper()
	var out []chain.Event
	for _, ev := range e.events(0, 0) {
		if ev.TxHash == h {
			out = append(out, ev)
		}
	}
	return out
}

// testLibrary: the library contract's configured failures (n times, by a
// draw from the transaction's hash, until a delay in blocks), its counts,
// config reads and confirm events, and that its countdown survives a restart
// and is undone by a reorg.
func testLibrary(t *testing.T, f Factory) {
	e := newEnv(t, f)
	a := e.caller(e.dev[0])
	fail := func(reason string) string { return "library: " + reason }

	t.Run("fail n times then succeed", func(t *testing.T) {
		cfg := a.configure(`{"method":"flaky","failTimes":2,"failReason":"boom"}`)
		blk := e.mine()
		e.wantIncluded(cfg, true, "")
		if c := e.libConfig("flaky"); c.FailTimes != 2 || c.FailTimesLeft != 2 || c.FailReason != "boom" || c.ConfiguredAt != blk.Height || c.ReadyAt != blk.Height {
			t.Fatalf("config after configure: %+v", c)
		}
		// Three calls in one block: each sees the countdown the one before left.
		h1, h2, h3 := a.lib("flaky", `{"n":1}`), a.lib("flaky", `{"n":2}`), a.lib("flaky", `{"n":3}`)
		e.mine()
		e.wantIncluded(h1, false, fail("boom"))
		e.wantIncluded(h2, false, fail("boom"))
		e.wantIncluded(h3, true, "")
		if c := e.libConfig("flaky"); c.FailTimesLeft != 0 || c.FailTimes != 2 {
			t.Fatalf("config after the failures: %+v", c)
		}
		if n := e.libCount("flaky"); n != 1 {
			t.Fatalf("count %d after one success, want 1", n)
		}
		for _, h := range []chain.Hash{h1, h2} {
			if evs := e.txEvents(h); len(evs) != 0 {
				t.Fatalf("a failed call emitted %+v", evs)
			}
		}
		evs := e.txEvents(h3)
		if len(evs) != 1 || evs[0].Contract != devchain.LibraryContract || evs[0].Name != "Called" {
			t.Fatalf("events of the successful call: %+v", evs)
		}
		var d libCalled
		if err := json.Unmarshal(evs[0].Data, &d); err != nil || d.Method != "flaky" || string(d.Args) != `{"n":3}` || d.Count != 1 || d.From != a.from {
			t.Fatalf("Called data %s (%v)", evs[0].Data, err)
		}

		// Configuring again restarts the countdown; the default reason.
		a.configure(`{"method":"flaky","failTimes":1}`)
		e.mine()
		again, ok := a.lib("flaky", ""), a.lib("flaky", "")
		e.mine()
		e.wantIncluded(again, false, fail(devchain.DefaultLibraryFailReason))
		e.wantIncluded(ok, true, "")
		// {method} alone: always succeeds, the count goes on.
		a.configure(`{"method":"flaky"}`)
		e.mine()
		plain := a.lib("flaky", "")
		e.mine()
		e.wantIncluded(plain, true, "")
		if n := e.libCount("flaky"); n != 3 {
			t.Fatalf("count %d, want 3", n)
		}
		// A method never configured succeeds.
		fresh := a.lib("fresh", "")
		e.mine()
		e.wantIncluded(fresh, true, "")
		if c := e.libConfig("never"); c.ConfiguredAt != 0 || c.FailTimes != 0 || c.FailProbability != 0 {
			t.Fatalf("config of a method never configured: %+v", c)
		}
	})

	t.Run("probability is drawn from the tx hash", func(t *testing.T) {
		a.configure(`{"method":"dice","failProbability":0.5,"failReason":"snake eyes"}`)
		e.mine()
		var hs []chain.Hash
		for i := range 24 {
			hs = append(hs, a.lib("dice", fmt.Sprintf(`{"i":%d}`, i)))
		}
		e.mine()
		outcome := map[chain.Hash]bool{}
		fails := 0
		for _, h := range hs {
			drawn := devchain.LibraryDraw(h, "dice") < 0.5
			reason := ""
			if drawn {
				reason, fails = fail("snake eyes"), fails+1
			}
			outcome[h] = e.wantIncluded(h, !drawn, reason).Success
		}
		if fails == 0 || fails == len(hs) {
			t.Fatalf("%d of %d calls failed at probability 0.5: want some of each", fails, len(hs))
		}
		// The same transactions included again (a reorg puts them back in the
		// mempool) draw the same.
		e.setFaults(devchain.FaultUpdate{Reorg: ptr(uint64(1))})
		e.mine()
		for _, h := range hs {
			if st := e.wantState(h, chain.TxIncluded); st.Success != outcome[h] {
				t.Fatalf("%s after a reorg: success %v, before %v", short(h), st.Success, outcome[h])
			}
		}
		a.configure(`{"method":"dice","failProbability":1}`)
		e.mine()
		always := a.lib("dice", "")
		e.mine()
		e.wantIncluded(always, false, fail(devchain.DefaultLibraryFailReason))
	})

	t.Run("delay in blocks", func(t *testing.T) {
		a.configure(`{"method":"slow","delayBlocks":3}`)
		blk := e.mine()
		if c := e.libConfig("slow"); c.ReadyAt != blk.Height+3 || c.DelayBlocks != 3 {
			t.Fatalf("config: %+v, want readyAt %d", c, blk.Height+3)
		}
		for range 2 {
			h := a.lib("slow", "")
			e.mine()
			e.wantIncluded(h, false, devchain.ReasonNotReady)
		}
		h := a.lib("slow", "")
		if b := e.mine(); b.Height != blk.Height+3 {
			t.Fatalf("mined %d, want %d", b.Height, blk.Height+3)
		}
		e.wantIncluded(h, true, "")
		// Not ready comes first and consumes none of failTimes; a call in
		// the configure's own block already sees its setting.
		b2 := a.configure(`{"method":"both","delayBlocks":2,"failTimes":1}`)
		c1 := a.lib("both", "") // same block as the configure: height c < c+2
		e.mine()
		e.wantIncluded(b2, true, "")
		c2 := a.lib("both", "") // c+1: not ready
		e.mine()
		c3 := a.lib("both", "") // c+2: ready, the configured failure
		e.mine()
		c4 := a.lib("both", "") // succeeds
		e.mine()
		e.wantIncluded(c1, false, devchain.ReasonNotReady)
		e.wantIncluded(c2, false, devchain.ReasonNotReady)
		e.wantIncluded(c3, false, fail(devchain.DefaultLibraryFailReason))
		e.wantIncluded(c4, true, "")
	})

	t.Run("confirm", func(t *testing.T) {
		ok := a.lib("confirm", `{"executionId":"proc/7/1","success":true}`)
		no := a.lib("confirm", `{"executionId":"proc/7/2","success":false}`)
		e.mine()
		for _, c := range []struct {
			h       chain.Hash
			id      string
			success bool
		}{{ok, "proc/7/1", true}, {no, "proc/7/2", false}} {
			e.wantIncluded(c.h, true, "")
			evs := e.txEvents(c.h)
			if len(evs) != 1 || evs[0].Name != "CallbackConfirmation" || evs[0].Contract != devchain.LibraryContract {
				t.Fatalf("confirm events %+v", evs)
			}
			if want := fmt.Sprintf(`{"executionId":%q,"success":%v}`, c.id, c.success); string(evs[0].Data) != want {
				t.Fatalf("CallbackConfirmation data %s, want %s", evs[0].Data, want)
			}
		}
	})

	t.Run("malformed", func(t *testing.T) {
		const conf = "library: confirm needs {executionId: a string of 1-256 bytes, success: true or false}"
		const name = "library: method must be 1-64 characters of [a-z0-9_-], other than configure and confirm"
		cases := []struct{ method, args, reason string }{
			{"configure", ``, "library: configure args must be a JSON object"},
			{"configure", `[1]`, "library: configure args must be a JSON object"},
			{"configure", `{"failTimes":1}`, "library: method is required: a string"},
			{"configure", `{"method":"Bad"}`, name},
			{"configure", `{"method":"confirm"}`, name},
			{"configure", `{"method":"m","failTimes":-1}`, "library: failTimes must be an integer from 0 to 2^64-1"},
			{"configure", `{"method":"m","failTimes":1.5}`, "library: failTimes must be an integer from 0 to 2^64-1"},
			{"configure", `{"method":"m","failProbability":1.5}`, "library: failProbability must be a number from 0 to 1"},
			{"configure", `{"method":"m","failProbability":"half"}`, "library: failProbability must be a number from 0 to 1"},
			{"configure", `{"method":"m","delayBlocks":"3"}`, "library: delayBlocks must be an integer from 0 to 2^64-1"},
			{"configure", `{"method":"m","failReason":7}`, "library: failReason must be a string of at most 256 bytes"},
			{"configure", `{"method":"m","FailTimes":1,"zz":2}`, `library: configure args has an unknown field "FailTimes"`},
			{"confirm", `{"executionId":"x"}`, conf},
			{"confirm", `{"executionId":"","success":true}`, conf},
			{"confirm", `{"executionId":7,"success":true}`, conf},
			{"confirm", `{"executionId":"x","success":"yes"}`, conf},
			{"confirm", `{"executionId":"x","success":true,"extra":1}`, `library: confirm args has an unknown field "extra"`},
		}
		var hs []chain.Hash
		for _, c := range cases {
			hs = append(hs, a.lib(c.method, c.args))
		}
		e.mine()
		for i, c := range cases {
			e.wantIncluded(hs[i], false, c.reason)
		}
		if cfg := e.libConfig("m"); cfg.ConfiguredAt != 0 {
			t.Fatalf("a failed configure took effect: %+v", cfg)
		}
	})

	t.Run("reads", func(t *testing.T) {
		for _, c := range []struct {
			name, method, args string
			want               error
		}{
			{"unknown read", "list", `{"method":"m"}`, chain.ErrUnknownMethod},
			{"no method", "count", `{}`, chain.ErrCallFailed},
			{"bad method", "config", `{"method":"configure"}`, chain.ErrCallFailed},
			{"not an object", "count", `"m"`, chain.ErrCallFailed},
			{"unknown field", "config", `{"method":"m","x":1}`, chain.ErrCallFailed},
		} {
			if _, err := e.c().Call(e.ctx, devchain.LibraryContract, c.method, json.RawMessage(c.args)); !errors.Is(err, c.want) {
				t.Fatalf("Call %s = %v, want %v", c.name, err, c.want)
			}
		}
	})

	t.Run("a reorg undoes the countdown", func(t *testing.T) {
		a.configure(`{"method":"undo","failTimes":1}`)
		e.mine()
		h := a.lib("undo", "")
		e.mine()
		e.wantIncluded(h, false, fail(devchain.DefaultLibraryFailReason))
		if c := e.libConfig("undo"); c.FailTimesLeft != 0 {
			t.Fatalf("left %d after the failure", c.FailTimesLeft)
		}
		e.setFaults(devchain.FaultUpdate{Reorg: ptr(uint64(1))})
		if c := e.libConfig("undo"); c.FailTimesLeft != 1 {
			t.Fatalf("left %d after the reorg, want 1 again", c.FailTimesLeft)
		}
		e.mine() // includes it again: it fails again and counts down again
		e.wantIncluded(h, false, fail(devchain.DefaultLibraryFailReason))
		if c := e.libConfig("undo"); c.FailTimesLeft != 0 {
			t.Fatalf("left %d after the failure included again", c.FailTimesLeft)
		}
	})

	t.Run("restart replays the failures", func(t *testing.T) {
		methods := []string{"flaky", "dice", "slow", "both", "undo", "fresh"}
		read := func() string {
			var s []any
			for _, m := range methods {
				s = append(s, e.libConfig(m), e.libCount(m))
			}
			return e.mustJSON(s)
		}
		a.configure(`{"method":"flaky","failTimes":3}`)
		e.mine()
		a.lib("flaky", "")
		e.mine()
		before, blocks, evs := read(), e.mustJSON(e.blocks()), e.mustJSON(e.events(0, 0))
		e.restart()
		if got := read(); got != before {
			t.Fatalf("library after restart %s, want %s", got, before)
		}
		if got := e.mustJSON(e.blocks()); got != blocks {
			t.Fatal("blocks changed across the restart")
		}
		if got := e.mustJSON(e.events(0, 0)); got != evs {
			t.Fatal("events changed across the restart")
		}
		// The countdown goes on from where it was.
		a.nonce = e.account(a.from).Nonce
		h := a.lib("flaky", "")
		e.mine()
		e.wantIncluded(h, false, fail(devchain.DefaultLibraryFailReason))
		if c := e.libConfig("flaky"); c.FailTimesLeft != 1 {
			t.Fatalf("left %d, want 1", c.FailTimesLeft)
		}
	})
}
