package node

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/ptx"
)

// TestDistseqNetPrepare: external submission over the real transport, as
// a client that is not ordo drives it. ptx_prepareTransaction at one
// member answers an id; ptx_getPreparedTransaction answers null, then the
// call, endorsed by the committee; nothing reaches the chain until the
// client sends that call from an account of its own; then the receipt is
// a success, ptx_getTransactionFull names the states it spent and
// created, every member holds them, and ptx_call's balanceOf counts the
// new coin at another member.
func TestDistseqNetPrepare(t *testing.T) {
	h := newCommittee(t, committeeConfig{Nodes: 4, Coins: netCoins()})
	out := h.rpc(1, `{"jsonrpc":"2.0","id":1,"method":"ptx_prepareTransaction","params":[{"type":"private","domain":"token","function":"transfer","from":"dev","to":"g","data":{"to":"dora","amount":1500},"idempotencyKey":"prep-1"}]}`)
	var id string
	if err := json.Unmarshal(out["result"], &id); err != nil || id == "" {
		t.Fatalf("ptx_prepareTransaction: %s", out["error"])
	}
	var prep ptx.PreparedTransaction
	waitUntil(t, 20*time.Second, "the prepared transaction", func() bool {
		r := h.rpc(1, `{"jsonrpc":"2.0","id":2,"method":"ptx_getPreparedTransaction","params":["`+id+`"]}`)
		return string(r["result"]) != "null" && json.Unmarshal(r["result"], &prep) == nil
	})
	if prep.ID != id || prep.Transaction.Contract != devchain.PrivacyGroupContract || prep.Transaction.Method != devchain.PrivacyConfirm {
		t.Fatalf("prepared: %+v", prep)
	}
	h.untilNextBlock()
	h.untilNextBlock()
	if _, on := h.intent(id); on {
		t.Fatalf("%s reached the chain before its caller sent it", id)
	}
	// The client sends it itself, from a dev account no node uses.
	accts, err := h.dc.DevAccounts(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	from := accts[len(accts)-1].Address
	acct, err := h.dc.Account(h.ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.dc.SendTx(h.ctx, chain.Tx{From: from, Nonce: acct.PendingNonce, Fee: 10000, Contract: prep.Transaction.Contract,
		Method: prep.Transaction.Method, Args: prep.Transaction.Args}); err != nil {
		t.Fatal(err)
	}
	h.audit(map[string]int{id: 1})
	full := h.rpc(1, `{"jsonrpc":"2.0","id":3,"method":"ptx_getTransactionFull","params":["`+id+`"]}`)
	var f ptx.TransactionFull
	if err := json.Unmarshal(full["result"], &f); err != nil || f.Receipt == nil || !f.Receipt.Success || len(f.States.Created) == 0 {
		t.Fatalf("ptx_getTransactionFull: %s (%s)", full["result"], full["error"])
	}
	bal := h.rpc(3, `{"jsonrpc":"2.0","id":4,"method":"ptx_call","params":[{"to":"g","domain":"token","function":"balanceOf","data":{"owner":"dora@`+string(h.ms[1].key.ID())+`"}}]}`)
	if !strings.Contains(string(bal["result"]), `"balance":1500`) {
		t.Fatalf("ptx_call balanceOf at another member: %s %s", bal["result"], bal["error"])
	}
}
