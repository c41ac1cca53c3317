package evm_test

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/node"

	"github.com/ordolabs/ordo/internal/chain/evm"
)

// withAmsterdam turns go-ethereum's Amsterdam rules back on (after
// throughOsaka), as geth --dev v1.17.10 runs them: state gas makes a new
// storage slot cost several times what it costs through Osaka.
func withAmsterdam(_ *node.Config, e *ethconfig.Config) {
	cfg := *e.Genesis.Config
	at := uint64(0)
	cfg.AmsterdamTime = &at
	e.Genesis.Config = &cfg
}

// TestAuthorizeSubmitterGas: the faucet key (the router's owner) lets a
// new account submit, and funds it, on the forks through Osaka and under
// the Amsterdam rules, where a fixed gas limit of 100,000 ran out.
func TestAuthorizeSubmitterGas(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		forks []func(*node.Config, *ethconfig.Config)
	}{{"through Osaka", nil}, {"Amsterdam", []func(*node.Config, *ethconfig.Config){withAmsterdam}}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, tc.forks...)
			b, err := evm.NewWithClients(h.ctx, evm.Config{ChainID: 1337, Router: h.router, FaucetKey: h.owner}, h.sim.Client())
			if err != nil {
				t.Fatal(err)
			}
			fresh := addr(testKey(t, "fresh"))
			done := make(chan error, 1)
			go func() {
				if err := b.AuthorizeSubmitter(h.ctx, fresh); err != nil {
					done <- err
					return
				}
				_, err := b.Faucet(h.ctx, fresh, 5*gwei)
				done <- err
			}()
			for n := uint64(1); n <= 2; n++ { // setSubmitter, then the transfer
				h.waitPending(addr(h.owner), 2+n) // the owner deployed the router and Voting
				h.mine()
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			out, err := b.Call(h.ctx, "router", "is_submitter", []byte(`{"submitter":"`+string(fresh)+`"}`))
			if err != nil || string(out) != "true" {
				t.Errorf("isSubmitter(%s) = %s, %v; want true", fresh, out, err)
			}
			// The gas setSubmitter used (docs/evm.md gives both figures).
			blk, err := h.sim.Client().BlockByNumber(h.ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			prev, err := h.sim.Client().BlockByNumber(h.ctx, new(big.Int).Sub(blk.Number(), big.NewInt(1)))
			if err != nil || len(prev.Transactions()) != 1 {
				t.Fatalf("the setSubmitter block: %v", err)
			}
			r, err := h.sim.Client().TransactionReceipt(h.ctx, prev.Transactions()[0].Hash())
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("setSubmitter: %d gas used, limit %d", r.GasUsed, prev.Transactions()[0].Gas())
		})
	}
}
