package dispatch_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
	"github.com/ordolabs/ordo/internal/store"
)

// typeWorkerServer builds MINT transactions (a zkapp deploy of the data's
// zkapp) and fails the first build of each uid whose data says flaky, and
// every build of one whose data says doomed (permanently).
type typeWorkerServer struct {
	builds, hooks atomic.Int64
	flaky         sync.Map
}

func (s *typeWorkerServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body struct {
		TxnData sequencer.RawTxnData `json:"txnData"`
		Sender  sequencer.Sender     `json:"sender"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var data struct {
		ZkApp  string `json:"zkapp"`
		Flaky  bool   `json:"flaky"`
		Doomed bool   `json:"doomed"`
	}
	_ = json.Unmarshal(body.TxnData.Data, &data)
	switch r.URL.Path {
	case "/build":
		s.builds.Add(1)
		if _, seen := s.flaky.LoadOrStore(body.TxnData.UID, true); data.Flaky && !seen {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		if data.Doomed {
			_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"permanent": true, "why": "doomed"}})
			return
		}
		args, _ := json.Marshal(map[string]any{"zkapp": data.ZkApp, "state": map[string]string{"kind": "mint"}})
		// From, nonce and fee are the node's to set: send nonsense.
		_ = json.NewEncoder(w).Encode(map[string]any{"tx": chain.Tx{From: "x", Nonce: 99, Fee: 1, Contract: "zkapp", Method: "deploy", Args: args, Memo: body.TxnData.UID}})
	default:
		s.hooks.Add(1)
		_ = json.NewEncoder(w).Encode(sequencer.TxnResult{})
	}
}

// TestTypeWorker: a type with a remote worker and no built-in dispatcher;
// the worker builds, the node signs with its keystore sender and sends; a
// failed build is retried, a permanent one FAILED without retries.
func TestTypeWorker(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	env := newTestEnv(ctx, t, 50*time.Millisecond, "type-worker-test")
	dc, st, key := env.dc, env.st, env.key
	ws := &typeWorkerServer{}
	srv := httptest.NewServer(ws)
	defer srv.Close()
	n := env.startNode(ctx, t, sequencer.Config{
		Dispatchers: map[string]sequencer.Dispatcher{"MINT": dispatch.NewTypeWorker(srv.URL, time.Second, "MINT", 2)},
		Policies:    map[string]sequencer.Policy{"MINT": {Delay: 50 * time.Millisecond}},
		Senders:     []sequencer.SenderConfig{{ID: chain.KeyAddress(key), Key: key}}})
	res, err := n.Submit(ctx, []sequencer.Intake{
		{Queue: "m1", Type: "MINT", Data: json.RawMessage(`{"zkapp":"m1"}`)},
		{Queue: "m2", Type: "MINT", Data: json.RawMessage(`{"zkapp":"m2","flaky":true}`)},
		{Queue: "m3", Type: "MINT", Data: json.RawMessage(`{"zkapp":"m3","doomed":true}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		state    store.TxState
		attempts int
	}{{store.Done, 1}, {store.Done, 2}, {store.Failed, 1}}
	for i, r := range res {
		var tx store.Transaction
		for {
			if tx, err = st.Get(ctx, r.Transaction.UID); err != nil {
				t.Fatal(err)
			}
			if tx.State == store.Done || tx.State == store.Failed || ctx.Err() != nil {
				break
			}
			select {
			case <-ctx.Done():
			case <-time.After(20 * time.Millisecond):
			}
		}
		if tx.State != want[i].state || len(tx.Attempts) != want[i].attempts {
			t.Fatalf("%s: %s with %d attempts %+v, want %s with %d", tx.Queue, tx.State, len(tx.Attempts), tx.Attempts, want[i].state, want[i].attempts)
		}
		if tx.State == store.Done {
			a := tx.Attempts[len(tx.Attempts)-1]
			s, _ := dc.TxStatus(ctx, chain.Hash(a.Hash))
			bs, _ := dc.Blocks(ctx, s.Height, s.Height)
			if got := bs[0].Txs[s.Index]; got.From != chain.KeyAddress(key) || got.Nonce != a.Nonce || got.Fee != a.Fee || got.Memo != tx.UID {
				t.Fatalf("%s: on chain from %s nonce %d fee %d, want the node's sender, nonce %d, fee %d", tx.Queue, got.From, got.Nonce, got.Fee, a.Nonce, a.Fee)
			}
		}
	}
}
