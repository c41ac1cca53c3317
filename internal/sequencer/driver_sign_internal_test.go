package sequencer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/clock"
)

// builder builds a transaction from its data, and refuses data "bad".
type builder struct{ noDispatch }

func (builder) Build(_ context.Context, t RawTxnData, _ Sender) (chain.Tx, error) {
	if string(t.Data) == `"bad"` {
		return chain.Tx{}, errors.New("bad data")
	}
	return chain.Tx{Contract: "c", Method: "m", Args: t.Data}, nil
}

// noDispatch is the rest of a Dispatcher, never called here.
type noDispatch struct{}

func (noDispatch) Name() string    { return "T" }
func (noDispatch) MaxRetries() int { return 1 }
func (noDispatch) Dispatch(context.Context, RawTxnData, Sender) (TxnResult, error) {
	return TxnResult{}, errors.New("unused")
}
func (noDispatch) OnSuccess(context.Context, RawTxnData, TxnResult, Sender) (TxnResult, error) {
	return TxnResult{}, nil
}
func (noDispatch) OnFailure(context.Context, RawTxnData, TxnResult, Sender) (TxnResult, error) {
	return TxnResult{}, nil
}

// signAll shares the signing between goroutines and returns what
// buildAndSign returns one effect at a time, in the order asked: signed
// reports, build errors, and "not here" for a sender without a key.
func TestSignAllMatchesOneByOne(t *testing.T) {
	for _, n := range []int{0, 1, signChunk, signChunk + 1, 5*signChunk + 3} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			node := &Node{cfg: Config{Clock: clock.Real{}, Logger: slog.New(slog.DiscardHandler),
				Dispatchers: map[string]Dispatcher{"T": builder{}}}, keys: map[string]chain.Key{}, signer: chain.Ed25519}
			var es []Effect
			var idx []int
			for i := range n {
				key := chain.KeyFromSeed(fmt.Sprint("signer-", i%7))
				id := string(chain.KeyAddress(key))
				if i%5 != 4 { // every fifth sender has no key here
					node.keys[id] = key
				}
				data := fmt.Sprintf(`"tx-%d"`, i)
				if i%11 == 3 {
					data = `"bad"`
				}
				es = append(es, Effect{Kind: EffectDispatch, UID: fmt.Sprint("u", i), Queue: fmt.Sprint("q", i), Attempt: 1,
					Txn: RawTxnData{Type: "T", Data: []byte(data)}, Sender: Sender{AccountID: id, Nonce: uint64(i)}})
				if i%3 != 2 { // and the others are not asked for
					idx = append(idx, i)
				}
			}
			reports, oks := node.signAll(t.Context(), es, idx)
			if len(reports) != len(idx) || len(oks) != len(idx) {
				t.Fatalf("%d reports, %d oks for %d effects", len(reports), len(oks), len(idx))
			}
			for j, i := range idx {
				want, wantOK := node.buildAndSign(t.Context(), es[i])
				if oks[j] != wantOK || !reflect.DeepEqual(reports[j], want) {
					t.Fatalf("effect %d: got (%+v, %v), want (%+v, %v)", i, reports[j], oks[j], want, wantOK)
				}
			}
		})
	}
}
