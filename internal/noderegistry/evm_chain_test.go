package noderegistry_test

import (
	"context"
	"crypto/ed25519"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/chain/evm"
	"github.com/ordolabs/ordo/internal/chain/evm/evmdev"
	"github.com/ordolabs/ordo/internal/noderegistry"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
	"github.com/ordolabs/ordo/internal/transport"
)

// TestEVMDirectoryOnChain: on an EVM chain (evmdev over loopback
// JSON-RPC), a node's own registration is served by the Directory; a
// registration another account front-runs with the node's signed args
// binds the id on chain, but its signature names another account, so no
// Directory serves it; a registration with a garbage signature neither.
func TestEVMDirectoryOnChain(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	dev, err := evmdev.Start(ctx, evmdev.Config{HTTPAddr: "127.0.0.1:0", WSAddr: "127.0.0.1:0", BlockTime: 50 * time.Millisecond, Accounts: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	abi, err := evm.BuiltinABI("NodeRegistry")
	if err != nil {
		t.Fatal(err)
	}
	b, err := evm.New(ctx, evm.Config{URLs: []string{dev.HTTPURL}, ChainID: dev.ChainID, Router: dev.Router,
		Contracts: map[string]evm.Contract{"nodes": {Address: dev.Nodes, ABI: abi}}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	acct := func(i int) string { return evmdev.AddressString(dev.Accounts[i]) }
	binding := func(i int) noderegistry.EVM {
		return noderegistry.EVM{Contract: "nodes", ChainID: dev.ChainID, Registry: evmdev.AddressString(dev.Nodes), Account: acct(i)}
	}
	// send sends c directly from dev account i (its own msg.sender) and
	// waits for it to be included.
	send := func(i int, c dispatch.Call) {
		t.Helper()
		a, err := b.Account(ctx, chain.Address(acct(i)))
		if err != nil {
			t.Fatal(err)
		}
		fee, err := b.MinFee(ctx)
		if err != nil {
			t.Fatal(err)
		}
		tx := chain.Tx{From: chain.Address(acct(i)), Nonce: a.PendingNonce, Fee: fee, Contract: c.Contract, Method: c.Method, Args: c.Args}
		if err := chain.FillGas(ctx, b, &tx); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Signer().Sign(&tx, dev.Keys[i]); err != nil {
			t.Fatal(err)
		}
		h, err := b.SendTx(ctx, tx)
		if err != nil {
			t.Fatal(err)
		}
		for {
			st, err := b.TxStatus(ctx, h)
			if err == nil && st.State == chain.TxIncluded {
				if !st.Success {
					t.Fatalf("%s.%s: %s", c.Contract, c.Method, st.Reason)
				}
				return
			}
			select {
			case <-ctx.Done():
				t.Fatalf("%s.%s not included: %v", c.Contract, c.Method, err)
			case <-time.After(20 * time.Millisecond): // polling the receipt
			}
		}
	}
	fp := strings.Repeat("ab", 32)
	good, victim, forger := testKey("good"), testKey("victim"), testKey("forger")
	idOf := func(k ed25519.PrivateKey) transport.NodeID {
		return transport.NodeID(devchain.NodeIDOf(k.Public().(ed25519.PublicKey)))
	}

	c, err := binding(1).Register(good, fp, "good.test:7001", 1)
	if err != nil {
		t.Fatal(err)
	}
	send(1, c)
	// The victim signs its registration for account 2; account 1 sends it
	// first and so binds the victim's id to itself.
	c, err = binding(2).Register(victim, fp, "victim.test:7002", 1)
	if err != nil {
		t.Fatal(err)
	}
	send(1, c)
	// The forger registers its own key with a signature over another
	// endpoint than the one it stores.
	c, err = binding(2).Register(forger, fp, "forger.test:7003", 1)
	if err != nil {
		t.Fatal(err)
	}
	c.Args = []byte(strings.Replace(string(c.Args), "forger.test:7003", "forger.test:9999", 1))
	send(2, c)

	d := noderegistry.NewWith(b, binding(0))
	if err := d.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := d.IDs(), []transport.NodeID{idOf(good)}; !slices.Equal(got, want) {
		t.Errorf("the directory serves %v, want only %v (not the front-run %s nor the forged %s)", got, want, idOf(victim), idOf(forger))
	}
	if p, ok := d.Lookup(idOf(good)); !ok || p.Endpoint != "good.test:7001" || p.Fingerprint != fp {
		t.Errorf("the good node: %+v, %t", p, ok)
	}
	if seq, err := binding(0).Seq(ctx, b, string(idOf(victim))); err != nil || seq != 1 {
		t.Errorf("the front-run id's seq on chain: %d, %v (it is bound there, only not trusted)", seq, err)
	}
}
