package crash_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/client"
	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
)

// TestAuditCatchesViolations checks the crash test's auditor against a chain
// written by hand with every violation it looks for, so that a crash run
// that passes means the chain is clean, not that the audit is blind.
func TestAuditCatchesViolations(t *testing.T) {
	ctx := context.Background()
	c, err := devchain.New(devchain.Config{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	srv := httptest.NewServer(devchain.NewHandler(c))
	defer srv.Close()
	dc := devchain.NewClient(srv.URL, nil)
	devs, err := dc.DevAccounts(ctx)
	if err != nil || len(devs) == 0 {
		t.Fatalf("dev accounts: %v %v", devs, err)
	}
	from := devs[0].Address
	nonce := devs[0].Nonce

	hashes := map[string][]string{} // memo as the audit sees it → hashes of its chain txs
	send := func(method, zkapp, value, memo string) {
		t.Helper()
		args := map[string]any{"zkapp": zkapp}
		switch {
		case method == "deploy":
			args["state"] = map[string]string{"kind": "claim"}
		case value == "":
			args["key"] = "votes" // no value: fails "key and value are required"
		default:
			args["key"], args["value"] = "votes", json.RawMessage(value)
		}
		b, _ := json.Marshal(args)
		h, err := dc.SendTx(ctx, chain.Tx{From: from, Nonce: nonce, Fee: 1000, Contract: "zkapp", Method: method, Args: b, Memo: memo})
		if err != nil {
			t.Fatalf("send %s %s %s: %v", method, zkapp, memo, err)
		}
		nonce++
		seen, _ := strings.CutSuffix(memo, aliasMemo)
		hashes[seen] = append(hashes[seen], string(h))
	}
	mine := func() {
		t.Helper()
		if _, ok, err := dc.Mine(ctx); err != nil || !ok {
			t.Fatalf("mine: %v %v", ok, err)
		}
	}
	vote := func(v string) string { return fmt.Sprintf(`{"voter":%q}`, v) }

	send("deploy", "qa", "", "u-c0")
	send("deploy", "qb", "", "u-c1")
	send("deploy", "qd", "", "u-c3")
	mine()
	send("append", "qa", vote("v2"), "u-v2") // before u-v1: FIFO
	mine()
	send("append", "qa", vote("v1"), "u-v1")
	send("append", "qb", vote("v3"), "u-v3") // u-v3 is FAILED at the node
	mine()
	// Twice: a double apply. devchain fails a second success with one memo
	// (duplicate_intent), so the copy carries another memo that the audit's
	// view of the chain (aliasChain) shows as u-v1.
	send("append", "qa", vote("v1"), "u-v1"+aliasMemo)
	send("deploy", "qa", "", "u-c0") // fails on chain (duplicate_intent): no double apply
	mine()
	send("append", "qb", vote("x"), "u-stranger") // never acknowledged
	send("append", "qb", vote("y"), "u-v5")       // fails on chain (second change of qb in the block)
	mine()
	send("append", "qb", vote("wrong"), "u-v5") // the wrong payload
	mine()
	// A failed attempt and its retry in one block (as when a reverted
	// attempt is reorged back into the mempool beside its retry): nothing
	// else is wrong with them, only the count per queue per block.
	send("append", "qd", "", "u-v6") // fails "key and value are required"
	send("append", "qd", vote("v6"), "u-v6")
	mine()
	// Two records of one queue in one block: the second fails
	// "precondition" (and its record ends FAILED, which is otherwise fine).
	send("append", "qd", vote("v7"), "u-v7")
	send("append", "qd", vote("v8"), "u-v8")
	mine()

	mk := func(uid, queue, typ, voter string, seq int64, state string) (*intent, record) {
		in := &intent{uid: uid, queue: queue, typ: typ, voter: voter, seq: seq, key: "k-" + uid, created: true}
		r := record{tx: client.Transaction{UID: uid, Queue: queue, Type: typ, State: client.TxState(state), Seq: seq}}
		for i, h := range hashes[uid] {
			r.tx.Attempts = append(r.tx.Attempts, client.Attempt{N: i + 1, Hash: h})
		}
		return in, r
	}
	var all []*intent
	records := map[string]record{}
	for _, x := range []struct {
		uid, queue, typ, voter string
		seq                    int64
		state                  string
	}{
		{"u-c0", "qa", createType, "", 1, client.StateDone},
		{"u-v1", "qa", voteType, "v1", 2, client.StateDone},
		{"u-v2", "qa", voteType, "v2", 3, client.StateDone},
		{"u-c1", "qb", createType, "", 4, client.StateDone},
		{"u-v3", "qb", voteType, "v3", 5, client.StateFailed},
		{"u-v4", "qb", voteType, "v4", 6, client.StateDone}, // never on chain
		{"u-c2", "qc", createType, "", 7, client.StateFailed},
		{"u-v5", "qb", voteType, "v5", 8, client.StateDone},
		{"u-c3", "qd", createType, "", 9, client.StateDone},
		{"u-v6", "qd", voteType, "v6", 10, client.StateDone},
		{"u-v7", "qd", voteType, "v7", 11, client.StateDone},
		{"u-v8", "qd", voteType, "v8", 12, client.StateFailed},
	} {
		in, r := mk(x.uid, x.queue, x.typ, x.voter, x.seq, x.state)
		all = append(all, in)
		records[x.uid] = r
	}

	a, problems, err := audit(ctx, aliasChain{dc}, nil, all, records)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"LOST: u-v4 ",
		"DOUBLE APPLY: u-v1 ",
		"FAILED BUT APPLIED: u-v3 ",
		`UNACKNOWLEDGED UID APPLIED: memo "u-stranger"`,
		"FIFO VIOLATION on queue qa: u-v1 (seq 2, k-u-v1) landed at 3/0 after u-v2 (seq 3)",
		"FIFO VIOLATION on queue qa: u-v1 (seq 2, k-u-v1) landed at 4/0 after u-v1 (seq 2)",
		"u-v5: chain tx ",
		"ZKAPP STATE: zkapp qa votes on chain:\n  [v2 v1 v1]",
		"ZKAPP STATE: zkapp qb votes on chain:\n  [v3 x wrong]",
		// Every included transaction counts, succeeded or failed.
		"TWO TXS OF ONE QUEUE IN ONE BLOCK: queue qa has 2 transactions in block 4 (u-v1, u-c0)",
		"PRECONDITION FAILURE: u-v5 at 5/1 on zkapp qb",
		"TWO TXS OF ONE QUEUE IN ONE BLOCK: queue qd has 2 transactions in block 7 (u-v6, u-v6)",
		"TWO TXS OF ONE QUEUE IN ONE BLOCK: queue qd has 2 transactions in block 8 (u-v7, u-v8)",
		"PRECONDITION FAILURE: u-v8 at 8/1 on zkapp qd",
	}
	used := make([]bool, len(problems))
	for _, w := range want {
		found := false
		for i, p := range problems {
			if !used[i] && strings.HasPrefix(p, w) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			t.Errorf("the audit missed %q", w)
		}
	}
	for i, p := range problems {
		if !used[i] {
			t.Errorf("the audit reported an unexpected violation:\n%s", p)
		}
	}
	if a.done != 9 || a.failed != 3 || a.succeeded != 11 || a.chainFailed != 4 || a.blocks != 9 ||
		a.queueSlotViolations != 3 || a.preconditions != 2 || a.sharedSlots != 4 || a.maxPerSlot != 2 {
		t.Errorf("figures: %+v, want done=9 failed=3 succeeded=11 chainFailed=4 blocks=9 queueSlotViolations=3 preconditions=2 sharedSlots=4 maxPerSlot=2", a)
	}
	if r := a.reasons(); r != "{precondition=2 duplicate_intent=1 key and value are required=1}" {
		t.Errorf("failed chain transactions by reason: %s", r)
	}
	if t.Failed() {
		t.Logf("the audit reported:\n%s", strings.Join(problems, "\n---\n"))
	}
}

// aliasMemo marks a memo that aliasChain shows without it.
const aliasMemo = "#alias"

// aliasChain is a devchain as a chain without an intent nullifier would
// show it: memos ending in aliasMemo lose the suffix, so two successful
// transactions can carry one uid.
type aliasChain struct{ *devchain.Client }

// Blocks returns the blocks with aliased memos.
func (c aliasChain) Blocks(ctx context.Context, from, to uint64) ([]chain.Block, error) {
	bs, err := c.Client.Blocks(ctx, from, to)
	for i := range bs {
		for j := range bs[i].Txs {
			bs[i].Txs[j].Memo, _ = strings.CutSuffix(bs[i].Txs[j].Memo, aliasMemo)
		}
	}
	return bs, err
}
