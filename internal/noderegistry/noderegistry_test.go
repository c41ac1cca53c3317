package noderegistry_test

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/noderegistry"
	"github.com/ordolabs/ordo/internal/transport"
	"github.com/ordolabs/ordo/internal/transport/grpcnet"
)

// flaky is a chain whose reads fail while down (unreachable).
type flaky struct {
	chain.Chain
	down bool
}

func (f *flaky) Call(ctx context.Context, contract, method string, args json.RawMessage) (json.RawMessage, error) {
	if f.down {
		return nil, errors.New("connection refused")
	}
	return f.Chain.Call(ctx, contract, method, args)
}

func TestDirectoryFollowsTheRegistry(t *testing.T) {
	ctx := context.Background()
	dc, err := devchain.New(devchain.Config{Clock: clock.NewVirtual(clock.Epoch)})
	if err != nil {
		t.Fatal(err)
	}
	defer dc.Close()
	accts, err := dc.DevAccounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	from := accts[0].Address
	var nonce uint64
	send := func(method string, args any) {
		t.Helper()
		b, _ := json.Marshal(args)
		if _, err := dc.SendTx(ctx, chain.Tx{From: from, Nonce: nonce, Fee: 10000, Contract: devchain.NodesContract, Method: method, Args: b}); err != nil {
			t.Fatal(err)
		}
		nonce++
		if _, _, err := dc.Mine(ctx); err != nil {
			t.Fatal(err)
		}
	}
	keys := []ed25519.PrivateKey{ed25519.NewKeyFromSeed(make([]byte, 32)), ed25519.NewKeyFromSeed(append(make([]byte, 31), 1))}
	var ids []string
	for i, k := range keys {
		id := devchain.NodeIDOf(k.Public().(ed25519.PublicKey))
		ids = append(ids, id)
		send(devchain.NodesRegister, devchain.SignNodeRegistration(k, id, strings.Repeat(string(rune('a'+i)), 64), "127.0.0.1:900"+string(rune('0'+i)), 1))
	}
	d := noderegistry.New(dc)
	if _, ok := d.Lookup(transport.NodeID(ids[0])); ok {
		t.Fatal("a peer before the first refresh")
	}
	if err := d.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	want := grpcnet.Peer{Endpoint: "127.0.0.1:9000", Fingerprint: strings.Repeat("a", 64)}
	if p, ok := d.Lookup(transport.NodeID(ids[0])); !ok || p != want {
		t.Fatalf("lookup %s: %+v, %v; want %+v", ids[0], p, ok, want)
	}
	if d.Len() != 2 {
		t.Fatalf("%d peers, want 2", d.Len())
	}
	// An unreachable chain keeps the last mapping.
	fl := &flaky{Chain: dc}
	kept := noderegistry.New(fl)
	if err := kept.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	fl.down = true
	if err := kept.Refresh(ctx); err == nil {
		t.Fatal("a refresh from an unreachable chain succeeded")
	}
	if p, ok := kept.Lookup(transport.NodeID(ids[0])); !ok || p != want {
		t.Fatalf("after a failed refresh: %+v, %v; want the last mapping", p, ok)
	}
	// A deregistered node stops being a peer at the next refresh; an
	// endpoint change is seen.
	send(devchain.NodesDeregister, devchain.SignNodeDeregistration(keys[0], ids[0], 2))
	send(devchain.NodesRegister, devchain.SignNodeRegistration(keys[1], ids[1], strings.Repeat("b", 64), "127.0.0.1:9100", 2))
	if err := d.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := d.Lookup(transport.NodeID(ids[0])); ok {
		t.Error("a deregistered node is still a peer")
	}
	if p, _ := d.Lookup(transport.NodeID(ids[1])); p.Endpoint != "127.0.0.1:9100" {
		t.Errorf("endpoint after the change: %q", p.Endpoint)
	}
}
