package evm_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/chain/evm"
)

// TestIntentsRecord: intents.get reads the router's record of an applied
// intent as devchain's IntentRecord (the block that applied it and the
// transaction that did); a duplicate leaves the first record, and an
// intent that failed or never came is not found.
func TestIntentsRecord(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	get := func(uid string) (devchain.IntentRecord, error) {
		raw, err := h.b.Call(h.ctx, evm.IntentsContract, "get", json.RawMessage(`{"uid":"`+uid+`"}`))
		if err != nil {
			return devchain.IntentRecord{}, err
		}
		var r devchain.IntentRecord
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatalf("intents.get %s = %s: %v", uid, raw, err)
		}
		return r, nil
	}
	if _, err := get("tx_a"); !errors.Is(err, chain.ErrNotFound) {
		t.Errorf("a uid never sent: %v, want ErrNotFound", err)
	}
	st := h.mined(h.tx(h.node1, "tx_a", "voting", "create_claim_voting_account", createC1), h.node1)
	if !st.Success {
		t.Fatalf("tx_a: %+v", st)
	}
	h.sim.Commit()
	dup := h.mined(h.tx(h.node2, "tx_a", "voting", "create_claim_voting_account", createC1), h.node2)
	if dup.Reason != chain.ReasonDuplicateIntent {
		t.Fatalf("the resend of tx_a: %+v, want a duplicate", dup)
	}
	fail := h.mined(h.tx(h.node1, "tx_b", "voting", "send_claim_vote", `{"account":"missing","voter":"v","vote":true}`), h.node1)
	if fail.Success {
		t.Fatalf("tx_b: %+v, want failed", fail)
	}
	want := devchain.IntentRecord{UID: "tx_a", Hash: st.Hash, Height: st.Height}
	if r, err := get("tx_a"); err != nil || r != want {
		t.Errorf("intents.get tx_a = %+v, %v; want %+v (the first application, not the duplicate)", r, err, want)
	}
	if _, err := get("tx_b"); !errors.Is(err, chain.ErrNotFound) {
		t.Errorf("a failed intent: %v, want ErrNotFound", err)
	}
	if known, err := chain.KnowsContract(h.ctx, h.b, evm.IntentsContract); !known || err != nil {
		t.Errorf("KnowsContract(intents) = %t, %v", known, err)
	}
	if _, err := h.b.Call(h.ctx, evm.IntentsContract, "put", json.RawMessage(`{}`)); !errors.Is(err, chain.ErrUnknownMethod) {
		t.Errorf("intents.put: %v, want ErrUnknownMethod", err)
	}
	if _, err := h.b.Call(h.ctx, evm.IntentsContract, "get", json.RawMessage(`{}`)); !errors.Is(err, chain.ErrInvalidTx) {
		t.Errorf("intents.get without a uid: %v, want ErrInvalidTx", err)
	}
}
