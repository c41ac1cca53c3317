package chaintest

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
)

// testZkApp: the zkapp contract's methods, its one-change-per-block
// precondition, version pins, and its read call.
func testZkApp(t *testing.T, f Factory) {
	e := newEnv(t, f)
	a, b := e.dev[0], e.dev[1]
	nonceA, nonceB := uint64(0), uint64(0)
	sendA := func(method, args string, fee uint64) chain.Hash {
		h := e.send(zkTx(a, nonceA, fee, method, args))
		nonceA++
		return h
	}
	sendB := func(method, args string, fee uint64) chain.Hash {
		h := e.send(zkTx(b, nonceB, fee, method, args))
		nonceB++
		return h
	}

	t.Run("methods", func(t *testing.T) {
		steps := []struct{ method, args string }{
			{"deploy", `{"zkapp":"m","state":{"a":1}}`},
			{"set", `{"zkapp":"m","key":"k","value":"v"}`},
			{"merge", `{"zkapp":"m","state":{"a":2,"flag":true}}`},
			{"append", `{"zkapp":"m","key":"l","value":1}`},
			{"append", `{"zkapp":"m","key":"l","value":{"x":2}}`},
			{"inc", `{"zkapp":"m","key":"n","by":5}`},
			{"inc", `{"zkapp":"m","key":"n","by":-2}`},
		}
		for i, s := range steps {
			h := sendA(s.method, s.args, baseFee)
			blk := e.mine()
			e.wantIncluded(h, true, "")
			_, v := e.get("m")
			if v.Version != uint64(i+1) || v.Changed != blk.Height {
				t.Fatalf("after %s: version %d changed %d, want %d and %d", s.method, v.Version, v.Changed, i+1, blk.Height)
			}
		}
		_, v := e.get("m")
		got, _ := json.Marshal(v.State)
		if want := `{"a":2,"flag":true,"k":"v","l":[1,{"x":2}],"n":3}`; string(got) != want {
			t.Fatalf("state %s, want %s", got, want)
		}
		if v.ZkApp != "m" || v.Owner != string(a) {
			t.Fatalf("zkapp %q owner %q, want m owned by the deployer", v.ZkApp, v.Owner)
		}
	})

	t.Run("failures", func(t *testing.T) {
		cases := []struct {
			name, method, args, reason string
		}{
			{"deploy twice", "deploy", `{"zkapp":"m"}`, "exists"},
			{"no such zkapp", "set", `{"zkapp":"ghost","key":"k","value":1}`, "no such zkapp"},
			{"stale version", "set", `{"zkapp":"m","key":"k","value":"w","version":1}`, devchain.ReasonPrecondition},
			{"inc a string", "inc", `{"zkapp":"m","key":"k","by":1}`, "state[k] is not an integer"},
		}
		for _, c := range cases {
			before, _ := e.get("m")
			h := sendA(c.method, c.args, baseFee)
			e.mine()
			e.wantIncluded(h, false, c.reason)
			if after, _ := e.get("m"); string(after) != string(before) {
				t.Fatalf("%s: failed tx changed state: %s -> %s", c.name, before, after)
			}
		}
		unknown := sendA("frobnicate", `{"zkapp":"m"}`, baseFee)
		e.mine()
		if st := e.wantState(unknown, chain.TxIncluded); st.Success || st.Reason == "" {
			t.Fatalf("unknown method: %+v, want a failure with a reason", st)
		}
	})

	t.Run("version pin", func(t *testing.T) {
		_, v := e.get("m")
		h := sendA("set", fmt.Sprintf(`{"zkapp":"m","key":"pinned","value":1,"version":%d}`, v.Version), baseFee)
		e.mine()
		e.wantIncluded(h, true, "")
		if _, w := e.get("m"); w.Version != v.Version+1 || string(w.State["pinned"]) != "1" {
			t.Fatalf("pinned set: %+v", w)
		}
	})

	t.Run("one change per block", func(t *testing.T) {
		first := sendB("set", `{"zkapp":"m","key":"who","value":"b"}`, 3*baseFee)
		second := sendA("set", `{"zkapp":"m","key":"who","value":"a"}`, 2*baseFee)
		third := sendA("inc", `{"zkapp":"m","key":"n","by":1}`, 2*baseFee) // same sender, next nonce
		blk := e.mine()
		if got := txHashes(blk); !sameHashes(got, []chain.Hash{first, second, third}) {
			t.Fatalf("block order %v", got)
		}
		e.wantIncluded(first, true, "")
		e.wantIncluded(second, false, devchain.ReasonPrecondition)
		e.wantIncluded(third, false, devchain.ReasonPrecondition)
		_, v := e.get("m")
		if string(v.State["who"]) != `"b"` || string(v.State["n"]) != "3" || v.Changed != blk.Height {
			t.Fatalf("state after the contested block: %+v", v)
		}
		// Deploy then change in one block: the change fails too.
		d := sendA("deploy", `{"zkapp":"fresh"}`, 2*baseFee)
		s := sendA("set", `{"zkapp":"fresh","key":"k","value":1}`, 2*baseFee)
		e.mine()
		e.wantIncluded(d, true, "")
		e.wantIncluded(s, false, devchain.ReasonPrecondition)
	})

	t.Run("different zkapps in one block", func(t *testing.T) {
		d1 := sendA("deploy", `{"zkapp":"p"}`, baseFee)
		d2 := sendB("deploy", `{"zkapp":"q"}`, baseFee)
		e.mine()
		s1 := sendA("set", `{"zkapp":"p","key":"k","value":1}`, baseFee)
		s2 := sendB("set", `{"zkapp":"q","key":"k","value":2}`, baseFee)
		s3 := sendB("inc", `{"zkapp":"m","key":"n","by":10}`, baseFee)
		blk := e.mine()
		for _, h := range []chain.Hash{d1, d2, s1, s2, s3} {
			e.wantIncluded(h, true, "")
		}
		if len(blk.Txs) != 3 {
			t.Fatalf("block has %d txs, want 3", len(blk.Txs))
		}
		_, p := e.get("p")
		_, q := e.get("q")
		_, m := e.get("m")
		if string(p.State["k"]) != "1" || string(q.State["k"]) != "2" || string(m.State["n"]) != "13" {
			t.Fatalf("states p=%v q=%v m.n=%s", p.State, q.State, m.State["n"])
		}
	})

	t.Run("calls", func(t *testing.T) {
		for _, c := range []struct {
			name, contract, method, args string
			want                         error
		}{
			{"missing zkapp", "zkapp", "get", `{"zkapp":"ghost"}`, chain.ErrCallFailed},
			{"no zkapp named", "zkapp", "get", `{}`, chain.ErrCallFailed},
			{"unknown method", "zkapp", "list", `{"zkapp":"m"}`, chain.ErrUnknownMethod},
			{"unknown contract", "nosuch", "get", `{"zkapp":"m"}`, chain.ErrUnknownContract},
		} {
			if _, err := e.c().Call(e.ctx, c.contract, c.method, json.RawMessage(c.args)); !errors.Is(err, c.want) {
				t.Fatalf("Call %s = %v, want %v", c.name, err, c.want)
			}
		}
		tx := deploy(a, nonceA, baseFee, "x")
		tx.Contract = "nosuch"
		e.sendErr(tx, chain.ErrUnknownContract)
	})
}

// testEvents: successful contract calls emit events in cursor order; failed
// ones emit none; Events pages after a cursor with a limit.
func testEvents(t *testing.T, f Factory) {
	e := newEnv(t, f)
	a, b, c := e.dev[0], e.dev[1], e.dev[2]
	d1 := e.send(deploy(a, 0, 3000, "ev1"))
	d2 := e.send(deploy(b, 0, 2000, "ev2"))
	e.send(set(c, 0, 1000, "ghost", "k", 1)) // fails: no event
	e.mine()
	s1 := e.send(set(a, 1, 3000, "ev1", "k", 1))
	e.send(set(b, 1, 2000, "ev1", "k", 2)) // precondition: no event
	e.mine()

	type evData struct {
		ZkApp   string `json:"zkapp"`
		Version uint64 `json:"version"`
	}
	want := []struct {
		tx     chain.Hash
		height uint64
		index  int
		name   string
		data   evData
	}{
		{d1, 1, 0, "deploy", evData{"ev1", 1}},
		{d2, 1, 1, "deploy", evData{"ev2", 1}},
		{s1, 2, 0, "set", evData{"ev1", 2}},
	}
	all := e.events(0, 100)
	if len(all) != len(want) {
		t.Fatalf("Events(0) = %d events, want %d: %+v", len(all), len(want), all)
	}
	var last uint64
	for i, ev := range all {
		w := want[i]
		var d evData
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			t.Fatalf("event %d data %s: %v", i, ev.Data, err)
		}
		if ev.Cursor <= last || ev.TxHash != w.tx || ev.Height != w.height || ev.TxIndex != w.index ||
			ev.Contract != "zkapp" || ev.Name != w.name || d != w.data {
			t.Fatalf("event %d = %+v (data %s), want %+v", i, ev, ev.Data, w)
		}
		last = ev.Cursor
	}
	if got := e.events(0, 0); len(got) != len(all) {
		t.Fatalf("Events with limit 0 = %d events, want all %d", len(got), len(all))
	}
	// Paging one at a time visits the same events.
	var paged []chain.Event
	for cur := uint64(0); ; {
		page := e.events(cur, 1)
		if len(page) == 0 {
			break
		}
		if len(page) != 1 {
			t.Fatalf("Events(%d, 1) = %d events", cur, len(page))
		}
		paged = append(paged, page[0])
		cur = page[0].Cursor
	}
	if e.mustJSON(paged) != e.mustJSON(all) {
		t.Fatalf("paged events %s, want %s", e.mustJSON(paged), e.mustJSON(all))
	}
	if two := e.events(all[0].Cursor, 2); len(two) != 2 || two[0].Cursor != all[1].Cursor {
		t.Fatalf("Events(first, 2) = %+v", two)
	}
	if rest := e.events(last, 10); len(rest) != 0 {
		t.Fatalf("Events after the last cursor = %d events", len(rest))
	}
}
