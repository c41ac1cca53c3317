package chaintest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
)

// sendMemo sends the caller's next transaction with the given memo.
func (c *caller) sendMemo(memo, contract, method, args string) chain.Hash {
	c.e.t.Helper()
	tx := c.tx(contract, method, args)
	tx.Memo = memo
	h := c.e.send(tx)
	c.nonce++
	return h
}

// intent reads the intents contract's record of uid, which must be there.
func (e *env) intent(uid string) devchain.IntentRecord {
	e.t.Helper()
	var r devchain.IntentRecord
	e.mustRead(devchain.IntentsContract, "get", fmt.Sprintf(`{"uid":%q}`, uid), &r)
	return r
}

// wantIntent checks that uid is recorded as applied by h.
func (e *env) wantIntent(uid string, h chain.Hash) {
	e.t.Helper()
	st := e.wantIncluded(h, true, "")
	if r := e.intent(uid); r != (devchain.IntentRecord{UID: uid, Hash: h, Height: st.Height}) {
		e.t.Fatalf("intent %s = %+v, want applied by %s at %d", uid, r, short(h), st.Height)
	}
}

// intentGone checks that uid is not recorded: its read is not found.
func (e *env) intentGone(uid string) {
	e.t.Helper()
	if raw, err := e.read(devchain.IntentsContract, "get", fmt.Sprintf(`{"uid":%q}`, uid)); !errors.Is(err, chain.ErrNotFound) {
		e.t.Fatalf("intent %s: %s, %v; want not found", uid, raw, err)
	}
}

// testIntents: a successful transaction's memo is an intent nullifier; a
// later transaction with that memo fails chain.ReasonDuplicateIntent
// whatever it calls (multicall included), in the same block or later, with
// its nonce and fee consumed and nothing else changed; failed transactions
// and empty memos record nothing; a reorg removes a record with its block
// and a restart keeps them.
func testIntents(t *testing.T, f Factory) {
	e := newEnv(t, f)
	a, b := e.caller(e.dev[0]), e.caller(e.dev[1])
	dup := chain.ReasonDuplicateIntent

	t.Run("applied once", func(t *testing.T) {
		e.intentGone("i1")
		h1 := a.sendMemo("i1", "zkapp", "deploy", `{"zkapp":"in1"}`)
		e.mine()
		e.wantIntent("i1", h1)

		// Another sender, another contract, a multicall: all fail, changing
		// nothing but nonce and fee.
		evs := e.mustJSON(e.events(0, 0))
		acct := e.account(b.from)
		h2 := b.sendMemo("i1", "zkapp", "deploy", `{"zkapp":"in2"}`)
		h3 := b.sendMemo("i1", devchain.LibraryContract, "ping", "")
		h4 := b.sendMemo("i1", devchain.MulticallContract, devchain.MulticallMethod,
			`{"calls":[`+call("zkapp", "deploy", `{"zkapp":"in3"}`)+`]}`)
		e.mine()
		for _, h := range []chain.Hash{h2, h3, h4} {
			e.wantIncluded(h, false, dup)
		}
		if ac := e.account(b.from); ac.Nonce != acct.Nonce+3 || ac.Balance != acct.Balance-3*baseFee {
			t.Fatalf("sender after three duplicates: %+v, want nonce %d balance %d", ac, acct.Nonce+3, acct.Balance-3*baseFee)
		}
		if got := e.mustJSON(e.events(0, 0)); got != evs {
			t.Fatalf("duplicates emitted events: %s, before %s", got, evs)
		}
		for _, z := range []string{"in2", "in3"} {
			if _, err := e.read("zkapp", "get", fmt.Sprintf(`{"zkapp":%q}`, z)); !errors.Is(err, chain.ErrCallFailed) && !errors.Is(err, chain.ErrNotFound) {
				t.Fatalf("zkapp %s read: %v, want it absent", z, err)
			}
		}
		if n := e.libCount("ping"); n != 0 {
			t.Fatalf("ping count %d after a duplicate ping", n)
		}
		e.wantIntent("i1", h1) // still the first
	})

	t.Run("same block", func(t *testing.T) {
		h1 := a.sendMemo("i2", "zkapp", "deploy", `{"zkapp":"in4"}`)
		h2 := a.sendMemo("i2", "zkapp", "deploy", `{"zkapp":"in5"}`)
		e.mine()
		e.wantIntent("i2", h1)
		e.wantIncluded(h2, false, dup)
	})

	t.Run("a failure records nothing", func(t *testing.T) {
		h1 := a.sendMemo("i3", "zkapp", "set", `{"zkapp":"ghost","key":"k","value":1}`)
		e.mine()
		e.wantIncluded(h1, false, "no such zkapp")
		e.intentGone("i3")
		h2 := a.sendMemo("i3", "zkapp", "deploy", `{"zkapp":"in6"}`)
		e.mine()
		e.wantIntent("i3", h2)
	})

	t.Run("empty memo", func(t *testing.T) {
		h1 := a.sendMemo("", devchain.LibraryContract, "ping", "")
		h2 := a.sendMemo("", devchain.LibraryContract, "ping", "")
		e.mine()
		e.wantIncluded(h1, true, "")
		e.wantIncluded(h2, true, "")
	})

	t.Run("reorg and restart", func(t *testing.T) {
		h1 := a.sendMemo("i4", "zkapp", "deploy", `{"zkapp":"in7"}`)
		e.mine()
		e.wantIntent("i4", h1)
		e.setFaults(devchain.FaultUpdate{Reorg: ptr(uint64(1))})
		e.wantState(h1, chain.TxPending)
		e.intentGone("i4")
		// Back in the mempool, the same transaction applies it again, once.
		h2 := b.sendMemo("i4", devchain.LibraryContract, "ping", "")
		e.mine()
		e.wantIntent("i4", h1)
		e.wantIncluded(h2, false, dup)

		i1 := e.intent("i1")
		e.restart()
		if got := e.intent("i1"); got != i1 {
			t.Fatalf("intent i1 after a restart: %+v, before %+v", got, i1)
		}
		e.wantIntent("i4", h1)
		e.intentGone("i5")
		h3 := b.sendMemo("i4", devchain.LibraryContract, "ping", "")
		e.mine()
		e.wantIncluded(h3, false, dup)
	})

	t.Run("reads and transactions", func(t *testing.T) {
		for _, tc := range []struct {
			name, method, args string
			want               error
		}{
			{"unknown read", "list", `{}`, chain.ErrUnknownMethod},
			{"no uid", "get", `{}`, chain.ErrCallFailed},
			{"empty uid", "get", `{"uid":""}`, chain.ErrCallFailed},
			{"not a string", "get", `{"uid":1}`, chain.ErrCallFailed},
			{"unknown field", "get", `{"uid":"i1","x":1}`, chain.ErrCallFailed},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if raw, err := e.read(devchain.IntentsContract, tc.method, tc.args); !errors.Is(err, tc.want) {
					t.Fatalf("Call intents.%s %s = %s, %v; want %v", tc.method, tc.args, raw, err, tc.want)
				}
			})
		}
		h := a.sendMemo("i5", devchain.IntentsContract, "get", `{"uid":"i1"}`)
		e.mine()
		st := e.wantState(h, chain.TxIncluded)
		if st.Success {
			t.Fatalf("a transaction to the intents contract succeeded: %+v", st)
		}
		e.intentGone("i5")
	})
}
