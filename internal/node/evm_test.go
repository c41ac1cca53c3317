package node_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/ordolabs/ordo/internal/chain/evm/evmdev"
	"github.com/ordolabs/ordo/internal/node"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/store"
)

// TestNodeOnEVM: a node pointed at an EVM chain (evmdev over loopback
// JSON-RPC) takes contract calls through its intake, applies each through
// the router exactly once and in its queue's order, and reads DONE from
// the receipts; a call the contract reverts ends FAILED, named, and
// applied nothing.
func TestNodeOnEVM(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	dev, err := evmdev.Start(ctx, evmdev.Config{HTTPAddr: "127.0.0.1:0", WSAddr: "127.0.0.1:0", BlockTime: 100 * time.Millisecond, Accounts: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	cfg := node.Config{Data: t.TempDir(), DevMode: true, RetryDelay: node.Duration(200 * time.Millisecond),
		Senders: []node.SenderFile{{KeyFile: dev.KeyFiles[1]}, {KeyFile: dev.KeyFiles[2]}},
		EVM: node.EVMConfig{URLs: []string{dev.WSURL, dev.HTTPURL}, ChainID: dev.ChainID, Router: strings.ToLower(dev.Router.Hex()), ReorgDepth: 1,
			Contracts: map[string]node.EVMContract{"voting": {Address: strings.ToLower(dev.Voting.Hex()), ABI: "Voting"}}}}
	n, wait := evmNode(ctx, t, cfg)

	call := func(method string, args map[string]any) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"contract": "voting", "method": method, "args": args})
		return b
	}
	var intents []sequencer.Intake
	for q := range 3 {
		account := fmt.Sprintf("claim-%d", q)
		intents = append(intents, sequencer.Intake{Queue: fmt.Sprintf("q%d", q), Type: "call", Data: call("create_claim_voting_account", map[string]any{"account": account, "title": "t"})})
		for v := range 4 {
			intents = append(intents, sequencer.Intake{Queue: fmt.Sprintf("q%d", q), Type: "call",
				Data: call("send_claim_vote", map[string]any{"account": account, "voter": fmt.Sprint("v", v), "vote": v%2 == 0})})
		}
	}
	// A vote on a claim nobody opened: the contract reverts NotFound.
	intents = append(intents, sequencer.Intake{Queue: "bad", Type: "call", Data: call("send_claim_vote", map[string]any{"account": "nope", "voter": "v", "vote": true})})
	txs, err := n.Sequencer.Submit(ctx, intents)
	if err != nil {
		t.Fatal(err)
	}
	wait(len(txs))
	ec, err := ethclient.DialContext(ctx, dev.HTTPURL)
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	applied := topic("IntentApplied(bytes32,address,bytes32)")
	logs, err := ec.FilterLogs(ctx, ethereum.FilterQuery{Addresses: []common.Address{dev.Router}, Topics: [][]common.Hash{{applied}}})
	if err != nil {
		t.Fatal(err)
	}
	at := map[common.Hash][]types.Log{}
	for _, l := range logs {
		at[l.Topics[1]] = append(at[l.Topics[1]], l)
	}
	last := map[string]types.Log{}
	for _, r := range txs {
		tx := r.Transaction
		rec, err := n.Sequencer.Store().Get(ctx, tx.UID)
		if err != nil {
			t.Fatal(err)
		}
		ls := at[crypto.Keccak256Hash([]byte(tx.UID))]
		want, times := store.Done, 1
		if tx.Queue == "bad" {
			want, times = store.Failed, 0
		}
		if rec.State != want || len(ls) != times {
			t.Errorf("%s (%s): %s %q, applied %d times; want %s, applied %d times", tx.UID, tx.Queue, rec.State, rec.Error, len(ls), want, times)
			continue
		}
		if tx.Queue == "bad" {
			t.Logf("the vote on no claim: %s %q", rec.State, rec.Error)
			if !strings.Contains(rec.Error, "NotFound") {
				t.Errorf("the failed call's error does not name the revert: %q", rec.Error)
			}
			continue
		}
		if p, ok := last[tx.Queue]; ok && (ls[0].BlockNumber < p.BlockNumber || (ls[0].BlockNumber == p.BlockNumber && ls[0].Index < p.Index)) {
			t.Errorf("queue %s: %s applied before the intent acknowledged ahead of it", tx.Queue, tx.UID)
		}
		last[tx.Queue] = ls[0]
	}
	t.Logf("%d intents: %d IntentApplied events on the router", len(txs), len(logs))
}

// evmNode starts a node from cfg and returns it with a wait that blocks
// until n intents finished (DONE or FAILED), failing t at ctx's end.
func evmNode(ctx context.Context, t *testing.T, cfg node.Config) (*node.Local, func(n int) map[string]store.TxState) {
	t.Helper()
	var mu sync.Mutex
	finished := map[string]store.TxState{}
	n, err := node.StartLocal(ctx, cfg, node.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		OnFinish: func(uid string, state store.TxState, _ uint64) {
			mu.Lock()
			finished[uid] = state
			mu.Unlock()
		}}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Stop() })
	return n, func(want int) map[string]store.TxState {
		for {
			mu.Lock()
			done := maps.Clone(finished)
			mu.Unlock()
			if len(done) >= want {
				return done
			}
			select {
			case <-ctx.Done():
				t.Fatalf("%d of %d intents finished", len(done), want)
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
}

func topic(sig string) common.Hash { return crypto.Keccak256Hash([]byte(sig)) }

// TestNodeOnEVMDevSenders: on a development EVM chain, the node's own dev
// senders are funded from evm.faucetKeyFile and authorized on the router
// by it (it owns the router: evmdev's dev account 0), and their intents
// land.
func TestNodeOnEVMDevSenders(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	dev, err := evmdev.Start(ctx, evmdev.Config{HTTPAddr: "127.0.0.1:0", WSAddr: "127.0.0.1:0", BlockTime: 100 * time.Millisecond, Accounts: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	cfg := node.Config{Data: t.TempDir(), DevMode: true, RetryDelay: node.Duration(200 * time.Millisecond)}
	cfg.UseEVMDev(dev, 0)
	cfg.DevSenders, cfg.EVM.FaucetKeyFile, cfg.EVM.ReorgDepth = 2, dev.KeyFiles[0], 1
	n, wait := evmNode(ctx, t, cfg)
	var in []sequencer.Intake
	for q := range 2 {
		b, _ := json.Marshal(map[string]any{"contract": "voting", "method": "create_claim_voting_account", "args": map[string]any{"account": fmt.Sprint("dev-", q), "title": "t"}})
		in = append(in, sequencer.Intake{Queue: fmt.Sprint("dev-", q), Type: "call", Data: b})
	}
	txs, err := n.Sequencer.Submit(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	finished := wait(len(txs))
	for _, r := range txs {
		if st := finished[r.Transaction.UID]; st != store.Done {
			rec, _ := n.Sequencer.Store().Get(ctx, r.Transaction.UID)
			t.Errorf("%s: %s %q", r.Transaction.UID, st, rec.Error)
		}
	}
}
