package dispatch_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
	"github.com/ordolabs/ordo/internal/store"
)

// TestCallDispatcherOnDevchain: a call, a multi-call and a failing
// multi-call, dispatched and mined on an in-process devchain; the hooks
// record where each landed, and the failure names the call that failed.
func TestCallDispatcherOnDevchain(t *testing.T) {
	ctx := context.Background()
	dc, err := devchain.New(devchain.Config{Clock: clock.NewVirtual(clock.Epoch)})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = dc.Close() }()
	devs, err := dc.DevAccounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	from := string(devs[0].Address)
	d := dispatch.NewCallDispatcher(2, dc, func(id string) chain.Key { k, _ := dc.DevKey(chain.Address(id)); return chain.Ed25519Key(k) })
	nonce := uint64(0)
	send := func(uid string, data json.RawMessage) (sequencer.TxnResult, chain.TxStatus) {
		t.Helper()
		s := sequencer.Sender{AccountID: from, Queue: "q", Nonce: nonce, Fee: 2000}
		nonce++
		r, err := d.Dispatch(ctx, sequencer.RawTxnData{UID: uid, Type: dispatch.CallType, Data: data}, s)
		if err != nil {
			t.Fatalf("%s: %v", uid, err)
		}
		if _, ok, err := dc.Mine(ctx); !ok || err != nil {
			t.Fatalf("mine: %v %v", ok, err)
		}
		st, err := dc.TxStatus(ctx, chain.Hash(r.Hash))
		if err != nil || st.State != chain.TxIncluded {
			t.Fatalf("%s: %+v %v", uid, st, err)
		}
		return r, st
	}

	r, st := send("tx_1", dispatch.CallData("zkapp", "deploy", json.RawMessage(`{"zkapp":"a"}`)))
	if !st.Success {
		t.Fatalf("call failed: %s", st.Reason)
	}
	done, err := d.OnSuccess(ctx, sequencer.RawTxnData{UID: "tx_1"}, r, sequencer.Sender{})
	var out dispatch.CallOutcome
	if err != nil || json.Unmarshal(done.Done, &out) != nil || out != (dispatch.CallOutcome{UID: "tx_1", Hash: r.Hash, Status: chain.OutcomeSucceeded, Height: st.Height, Index: st.Index}) {
		t.Fatalf("OnSuccess: %s %v", done.Done, err)
	}

	// The same uid again (a new primary dispatching it a second time): the
	// chain fails it as a duplicate intent, the sequencer ends it DONE, and
	// the outcome says an earlier transaction applied it.
	dup, dst := send("tx_1", dispatch.CallData("zkapp", "deploy", json.RawMessage(`{"zkapp":"a2"}`)))
	if dst.Success || dst.Reason != chain.ReasonDuplicateIntent {
		t.Fatalf("the same uid again: success %v, reason %q", dst.Success, dst.Reason)
	}
	done, err = d.OnSuccess(ctx, sequencer.RawTxnData{UID: "tx_1"}, dup, sequencer.Sender{})
	out = dispatch.CallOutcome{}
	if err != nil || json.Unmarshal(done.Done, &out) != nil || out != (dispatch.CallOutcome{UID: "tx_1", Hash: dup.Hash, Status: chain.OutcomeSucceeded,
		Height: dst.Height, Index: dst.Index, Reason: sequencer.NoteAppliedEarlier}) {
		t.Fatalf("OnSuccess of a duplicate: %s %v", done.Done, err)
	}

	r, st = send("tx_2", dispatch.MultiCallData([]dispatch.Call{
		{Contract: "zkapp", Method: "deploy", Args: json.RawMessage(`{"zkapp":"b"}`)},
		{Contract: "zkapp", Method: "deploy", Args: json.RawMessage(`{"zkapp":"c"}`)},
	}))
	if !st.Success {
		t.Fatalf("multi-call failed: %s", st.Reason)
	}
	evs, _ := dc.Events(ctx, 0, 100)
	var names []string
	for _, e := range evs {
		if chain.Hash(r.Hash) == e.TxHash {
			names = append(names, e.Contract+"."+e.Name)
		}
	}
	if strings.Join(names, " ") != "zkapp.deploy zkapp.deploy" {
		t.Fatalf("multi-call events %v", names)
	}

	r, st = send("tx_3", dispatch.MultiCallData([]dispatch.Call{
		{Contract: "zkapp", Method: "deploy", Args: json.RawMessage(`{"zkapp":"d"}`)},
		{Contract: "zkapp", Method: "deploy", Args: json.RawMessage(`{"zkapp":"a"}`)},
	}))
	if st.Success || st.Reason != "call 1 (zkapp.deploy): exists" {
		t.Fatalf("failing multi-call: success %v, reason %q", st.Success, st.Reason)
	}
	if _, err := dc.Call(ctx, "zkapp", "get", json.RawMessage(`{"zkapp":"d"}`)); err == nil {
		t.Fatal("a failed multi-call's first call took effect")
	}
	r.Error, _ = json.Marshal(map[string]string{"reason": st.Reason})
	failed, err := d.OnFailure(ctx, sequencer.RawTxnData{UID: "tx_3"}, r, sequencer.Sender{Retries: 2})
	out = dispatch.CallOutcome{}
	if err != nil || json.Unmarshal(failed.Error, &out) != nil ||
		out != (dispatch.CallOutcome{UID: "tx_3", Hash: r.Hash, Status: chain.OutcomeFailed, Height: st.Height, Index: st.Index, Retries: 2, Reason: st.Reason}) {
		t.Fatalf("OnFailure: %s %v", failed.Error, err)
	}

	if _, err := d.Dispatch(ctx, sequencer.RawTxnData{UID: "tx_4", Data: json.RawMessage(`{"contract":"zkapp"}`)}, sequencer.Sender{AccountID: from}); !errors.Is(err, sequencer.ErrPermanent) {
		t.Fatalf("bad data dispatched: %v", err)
	}
}

// TestCallThroughSequencer: the call type through a running sequencer node:
// intake refuses data the schema refuses; a call and a multi-call end DONE
// with the outcome in their result, a failing multi-call FAILED after its
// retries with the call named.
func TestCallThroughSequencer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	env := newTestEnv(ctx, t, 50*time.Millisecond, "call-sequencer-test")
	n := env.startNode(ctx, t, sequencer.Config{
		Dispatchers:  map[string]sequencer.Dispatcher{dispatch.CallType: dispatch.NewCallDispatcher(1, env.dc, nil)},
		AllowedTypes: []string{dispatch.CallType},
		Policies:     map[string]sequencer.Policy{dispatch.CallType: {Delay: 50 * time.Millisecond}},
		Senders:      []sequencer.SenderConfig{{ID: chain.KeyAddress(env.key), Key: env.key}}})
	_, err := n.Submit(ctx, []sequencer.Intake{{Queue: "c", Type: dispatch.CallType, Data: json.RawMessage(`{"contract":"multicall","method":"all"}`)}})
	if !errors.Is(err, sequencer.ErrInvalid) {
		t.Fatalf("intake took a nested multi-call: %v", err)
	}
	res, err := n.Submit(ctx, []sequencer.Intake{
		{Queue: "c1", Type: dispatch.CallType, Data: dispatch.CallData("zkapp", "deploy", json.RawMessage(`{"zkapp":"s1"}`))},
		{Queue: "c2", Type: dispatch.CallType, Data: dispatch.MultiCallData([]dispatch.Call{
			{Contract: "zkapp", Method: "deploy", Args: json.RawMessage(`{"zkapp":"s2"}`)},
			{Contract: "zkapp", Method: "deploy", Args: json.RawMessage(`{"zkapp":"s2b","state":{"k":1}}`)},
		})},
		{Queue: "c3", Type: dispatch.CallType, Data: dispatch.MultiCallData([]dispatch.Call{
			{Contract: "zkapp", Method: "deploy", Args: json.RawMessage(`{"zkapp":"s3"}`)},
			{Contract: "zkapp", Method: "set", Args: json.RawMessage(`{"zkapp":"nope","key":"k","value":1}`)},
		})},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []store.TxState{store.Done, store.Done, store.Failed}
	for i, r := range res {
		var tx store.Transaction
		for {
			if tx, err = env.st.Get(ctx, r.Transaction.UID); err != nil {
				t.Fatal(err)
			}
			if (tx.State == store.Done || tx.State == store.Failed) && len(tx.Result) > 0 || ctx.Err() != nil {
				break
			}
			select {
			case <-ctx.Done():
			case <-time.After(20 * time.Millisecond):
			}
		}
		if tx.State != want[i] {
			t.Fatalf("%s: %s (%s), want %s", tx.Queue, tx.State, tx.Error, want[i])
		}
		var result struct {
			Done, Error dispatch.CallOutcome
		}
		if err := json.Unmarshal(tx.Result, &result); err != nil {
			t.Fatalf("%s: result %s: %v", tx.Queue, tx.Result, err)
		}
		switch tx.State {
		case store.Done:
			if result.Done.UID != tx.UID || result.Done.Height == 0 || result.Done.Status != chain.OutcomeSucceeded {
				t.Fatalf("%s: result %s", tx.Queue, tx.Result)
			}
		default:
			if result.Error.UID != tx.UID || !strings.Contains(result.Error.Reason, "call 1 (zkapp.set): no such zkapp") {
				t.Fatalf("%s: result %s", tx.Queue, tx.Result)
			}
		}
	}
}
