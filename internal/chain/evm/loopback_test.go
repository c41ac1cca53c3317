package evm_test

import (
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/node"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/evm"
)

// freePort is a loopback port free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestOverJSONRPC runs the backend over real JSON-RPC (New, a WebSocket
// and an HTTP URL on loopback) rather than the in-process client: an
// intent lands and reads back, a refusal keeps its type over HTTP, heads
// come by subscription, blocks read their receipts.
func TestOverJSONRPC(t *testing.T) {
	t.Parallel()
	port := freePort(t)
	h := newHarness(t, func(nc *node.Config, _ *ethconfig.Config) {
		nc.HTTPHost, nc.HTTPPort, nc.HTTPModules = "127.0.0.1", port, []string{"eth", "net", "web3"}
		nc.WSHost, nc.WSPort, nc.WSModules = "127.0.0.1", port, []string{"eth", "net", "web3"}
	})
	votingABI, err := evm.BuiltinABI("Voting")
	if err != nil {
		t.Fatal(err)
	}
	b, err := evm.New(h.ctx, evm.Config{
		URLs:      []string{fmt.Sprintf("ws://127.0.0.1:%d", port), fmt.Sprintf("http://127.0.0.1:%d", port)},
		ChainID:   1337,
		Router:    h.router,
		Contracts: map[string]evm.Contract{"voting": {Address: h.voting, ABI: votingABI}},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	h.b = b
	heads, err := b.SubscribeHeads(h.ctx)
	if err != nil {
		t.Fatalf("SubscribeHeads over ws: %v", err)
	}
	tx := h.tx(h.node1, "tx_a", "voting", "create_claim_voting_account", createC1)
	st := h.mined(tx, h.node1)
	if st.State != chain.TxIncluded || !st.Success {
		t.Fatalf("over JSON-RPC: %+v", st)
	}
	select {
	case hd := <-heads:
		if hd.Height != st.Height {
			t.Errorf("head %d, want %d", hd.Height, st.Height)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no head within 10s")
	}
	bs, err := b.Blocks(h.ctx, st.Height, st.Height)
	if err != nil || len(bs) != 1 || len(bs[0].Txs) != 1 || bs[0].Txs[0].Memo != "tx_a" || bs[0].Txs[0].Status != chain.OutcomeSucceeded {
		t.Fatalf("Blocks over JSON-RPC: %+v, %v", bs, err)
	}
	tx.Fee *= 2
	h.sign(&tx, h.node1)
	if _, err := b.SendTx(h.ctx, tx); !errors.Is(err, chain.ErrNonceTooLow) {
		t.Errorf("a used nonce over JSON-RPC: %v, want ErrNonceTooLow", err)
	}
}
