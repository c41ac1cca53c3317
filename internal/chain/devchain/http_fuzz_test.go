package devchain_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/clock"
)

// fuzzState is what a rejected request must not change.
type fuzzState struct {
	head   chain.BlockHeader
	stats  devchain.Stats
	faults devchain.FaultState
	acct   chain.Account
}

func fuzzSnap(t *testing.T, c *devchain.Chain, a chain.Address) fuzzState {
	ctx := context.Background()
	hd, err := c.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := c.Faults(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ac, err := c.Account(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return fuzzState{head: hd, stats: c.Stats(), faults: fs, acct: ac}
}

// FuzzAPIInput sends arbitrary bytes as the body of each write endpoint: the
// answer is never 5xx, always a JSON document, and a 4xx changes nothing.
func FuzzAPIInput(f *testing.F) {
	dev := chain.KeyAddress(chain.KeyFromSeed("devchain/1/dev/0"))
	key := chain.KeyFromSeed("fuzz")
	signed := chain.Tx{From: chain.KeyAddress(key), Nonce: 0, Fee: 1000, Contract: "zkapp", Method: "deploy", Args: json.RawMessage(`{"zkapp":"s"}`)}
	signed.Sign(key)
	seeds := []string{
		// valid bodies
		`{"from":"` + string(dev) + `","nonce":0,"fee":1000,"contract":"zkapp","method":"deploy","args":{"zkapp":"z"},"memo":"m"}`,
		string(mustMarshal(signed)),
		`{"address":"` + string(dev) + `","amount":5}`,
		`{"contract":"zkapp","method":"get","args":{"zkapp":"z"}}`,
		`{"rejectProb":0.5,"dropProb":0.1,"revertProb":0,"reorgEvery":3,"reorgDepth":2}`,
		`{"feeSpike":{"factor":4,"blocks":2},"stall":"3s"}`,
		`{"reorg":1}`,
		// invalid bodies
		``, `{`, `null`, `[]`, `"x"`, `{}`, `{"a":1}`, `{"from":1}`, `{"nonce":-1}`,
		`{"rejectProb":2}`, `{"stall":"-1s"}`, `{"stall":"forever"}`, `{"reorg":0}`, `{"reorgDepth":65}`,
		`{"feeSpike":{"factor":0}}`, `{"feeSpike":{"factor":1,"x":1}}`, `{"rejectprob":0.5}`,
		`{"address":"` + strings.ToUpper(string(dev)) + `","amount":1}`, `{"address":"` + string(dev) + `","amount":0}`,
		`{"contract":"nope","method":"get"}`, `{"contract":"zkapp","method":"get","args":"not json`,
		`{"contract":"zkapp","method":"get","args":{"zkapp":1}}`, `{"rejectProb":0.1}}`, `{"rejectProb":0.1,"rejectProb":0.2}`,
		"\xff\xfe", `{"memo":"\u0000"}`, `{"args":null}`, `1e400`,
		` null `, `{"memo":"\ud800"}`, `{"memo":"\ud83d\ude00"}`, "{\"memo\":\"\xed\xa0\x80\"}",
		`{"from":"` + string(dev) + `","nonce":0,"fee":1000,"contract":"zkapp","method":"deploy","args":{"zkapp":"z","zkapp":"y"}}`,
		`{"contract":"zkapp","method":"get","args":{"zkapp":"a","x":[{"k":1,"k":2}]}}`,
		`{"address":"` + string(dev) + `","amount":1000000000000000}`,
		// contract reads: not found (404), malformed (422)
		`{"contract":"registry","method":"tool","args":{"tool":"x"}}`, `{"contract":"registry","method":"tools"}`,
		`{"contract":"workflow","method":"walk","args":{"walk":"x"}}`, `{"contract":"workflow","method":"caps","args":{"leader":"x"}}`,
		`{"from":"` + string(dev) + `","nonce":1,"fee":1000,"contract":"workflow","method":"request","args":{"walk":"w","tool":"t","input":1}}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	type endpoint struct{ method, path string }
	endpoints := []endpoint{{"POST", "/v1/tx"}, {"POST", "/v1/faucet"}, {"POST", "/v1/call"}, {"PUT", "/v1/faults"}, {"POST", "/v1/dev/mine"}}
	// The chain is rebuilt only after an answer that may have changed it (a
	// 2xx from a write other than /v1/call): a rejected request is checked to
	// change nothing, so every input meets the same starting state. This
	// keeps executions cheap, which matters when the fuzzer minimizes.
	var (
		c     *devchain.Chain
		h     http.Handler
		dirty = true
	)
	f.Cleanup(func() {
		if c != nil {
			c.Close()
		}
	})
	f.Fuzz(func(t *testing.T, body []byte) {
		if dirty {
			if c != nil {
				c.Close()
			}
			c, h = newFuzzChain(t, dev)
			dirty = false
		}
		for _, ep := range endpoints {
			before := fuzzSnap(t, c, dev)
			req := httptest.NewRequest(ep.method, ep.path, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code >= 500 {
				t.Fatalf("%s %s %q: %d %s", ep.method, ep.path, body, rec.Code, rec.Body)
			}
			if !json.Valid(rec.Body.Bytes()) || rec.Header().Get("Content-Type") != "application/json" {
				t.Fatalf("%s %s %q: answer is not JSON: %q", ep.method, ep.path, body, rec.Body)
			}
			switch {
			case rec.Code >= 400:
				if !bytes.HasPrefix(rec.Body.Bytes(), []byte(`{"error":{"code":"`)) {
					t.Fatalf("%s %s %q: error body %s", ep.method, ep.path, body, rec.Body)
				}
				if after := fuzzSnap(t, c, dev); after != before {
					t.Fatalf("%s %s %q: %d changed state:\nbefore %+v\n after %+v", ep.method, ep.path, body, rec.Code, before, after)
				}
			case rec.Code != http.StatusOK:
				t.Fatalf("%s %s %q: status %d", ep.method, ep.path, body, rec.Code)
			case ep.path != "/v1/call":
				dirty = true
			}
		}
	})
}

// newFuzzChain makes the fuzz target's starting state: one block with a
// transaction from dev, and one pending.
func newFuzzChain(t *testing.T, dev chain.Address) (*devchain.Chain, http.Handler) {
	c, err := devchain.New(devchain.Config{Clock: clock.NewVirtual(clock.Epoch), DevAccounts: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.SendTx(ctx, chain.Tx{From: dev, Nonce: 0, Fee: 1000, Contract: "zkapp", Method: "deploy", Args: json.RawMessage(`{"zkapp":"a"}`)}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Mine(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SendTx(ctx, chain.Tx{From: dev, Nonce: 1, Fee: 1000, Contract: "zkapp", Method: "deploy", Args: json.RawMessage(`{"zkapp":"b"}`)}); err != nil {
		t.Fatal(err)
	}
	return c, devchain.NewHandler(c)
}

func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
