package chaintest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/chaintest"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/clock"
)

// devchainConformer is an in-process devchain under the conformance
// suite: two fresh keys funded by its faucet, zkapp deploy as the call
// that creates, zkapp set on a missing zkapp as the one that fails, a
// reorg by its fault knob.
func devchainConformer(t *testing.T) *chaintest.Conformer {
	t.Helper()
	c, err := devchain.New(devchain.Config{
		Seed: 7, MinFee: 1000, MaxBlockTxs: 100, DevAccounts: 1, DevBalance: 1 << 40, FaucetMax: 1 << 40,
		DataDir: t.TempDir(), Clock: clock.NewVirtual(clock.Epoch),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	keys := [2]chain.Key{chain.KeyFromSeed("conform/0"), chain.KeyFromSeed("conform/1")}
	for _, k := range keys {
		a, _ := chain.Ed25519.Address(k)
		if _, err := c.Faucet(t.Context(), a, 1<<30); err != nil {
			t.Fatal(err)
		}
	}
	mine := func(t chaintest.TB) {
		t.Helper()
		if _, ok, err := c.Mine(t.Context()); err != nil || !ok {
			t.Fatalf("mine: %v (ok %v)", err, ok)
		}
	}
	one := uint64(1)
	return &chaintest.Conformer{
		Chain:   c,
		Senders: keys,
		Mine:    mine,
		Reorg: func(t chaintest.TB) {
			t.Helper()
			if _, err := c.SetFaults(t.Context(), devchain.FaultUpdate{Reorg: &one}); err != nil {
				t.Fatal(err)
			}
			mine(t)
		},
		Create: func(name string) chaintest.ConformCall {
			return chaintest.ConformCall{Contract: "zkapp", Method: "deploy", Args: json.RawMessage(fmt.Sprintf(`{"zkapp":%q}`, name))}
		},
		CreatedEvent: "deploy",
		Fail: func() chaintest.ConformCall {
			return chaintest.ConformCall{Contract: "zkapp", Method: "set", Args: json.RawMessage(`{"zkapp":"ghost","key":"k","value":1}`)}
		},
		Exists: func(ctx context.Context, name string) (bool, error) {
			_, err := c.Call(ctx, "zkapp", "get", json.RawMessage(fmt.Sprintf(`{"zkapp":%q}`, name)))
			if errors.Is(err, chain.ErrCallFailed) || errors.Is(err, chain.ErrNotFound) {
				return false, nil
			}
			return err == nil, err
		},
	}
}

// TestConformanceDevchain runs the shared behaviours on devchain (the EVM
// backend runs them in package evm).
func TestConformanceDevchain(t *testing.T) { chaintest.RunConformance(t, devchainConformer) }
