package devchain_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
)

// TestSendTxNumberRange: args holding a number the encoding cannot carry
// (chain.CheckNumber) are an invalid transaction in process and through
// the HTTP client alike, as the HTTP API's strict decoding refuses them;
// a large number that fits a float64 is sent.
func TestSendTxNumberRange(t *testing.T) {
	e := newEnv(t, devchain.Config{})
	ctx := t.Context()
	nonce := uint64(0)
	for _, c := range []struct {
		name string
		ch   chain.Chain
	}{{"in process", e.chain}, {"client", e.client}} {
		for i, tc := range []struct {
			args string
			ok   bool
		}{
			{`{"zkapp":"a","x":1e999999}`, false},
			{`{"zkapp":"a","x":[-1E400]}`, false},
			{`{"zkapp":"` + c.name + `","x":123456789012345678901234567890}`, true},
		} {
			tx := deployTx(e.dev, nonce, "z")
			tx.Args = json.RawMessage(tc.args)
			tx.Memo = c.name + string(rune('a'+i))
			_, err := c.ch.SendTx(ctx, tx)
			if tc.ok != (err == nil) || (!tc.ok && !errors.Is(err, chain.ErrInvalidTx)) {
				t.Errorf("%s, args %s: %v; want ok %v or ErrInvalidTx", c.name, tc.args, err, tc.ok)
			}
			if err == nil {
				if _, _, err := e.chain.Mine(ctx); err != nil {
					t.Fatal(err)
				}
				nonce++
			}
		}
	}
}

// TestKnowsContract: chain.KnowsContract tells a registered contract from
// an unknown one, in process and through the HTTP client.
func TestKnowsContract(t *testing.T) {
	e := newEnv(t, devchain.Config{})
	for _, c := range []chain.Chain{e.chain, e.client} {
		for name, want := range map[string]bool{"zkapp": true, "library": true, "multicall": true, "nosuchcontract": false} {
			if got, err := chain.KnowsContract(t.Context(), c, name); got != want || err != nil {
				t.Errorf("%T: KnowsContract(%s) = %v, %v; want %v", c, name, got, err, want)
			}
		}
	}
}
