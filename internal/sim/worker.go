package sim

import (
	"context"
	"crypto/ed25519"
	"errors"
	"math/rand/v2"

	"github.com/ordolabs/ordo/internal/sequencer"
)

// simWorker is a worker sender's remote worker, in process: it holds its
// sender's key, builds the seed's zkapp call as the built-in dispatcher
// does, signs the nonce and fee it is given and sends it to the chain. With
// probability lost (a fault of the run) it answers an error without a hash:
// half the time before sending, half the time after (the answer was lost),
// which is what makes an attempt ambiguous for the node. Its random choices
// come from the world's seeded source, in the order the loop performs
// effects, so a run stays deterministic.
type simWorker struct {
	w    *seqWorld
	key  ed25519.PrivateKey
	rng  *rand.Rand
	lost float64
}

// For implements sequencer.Worker.
func (s *simWorker) For(typ string, local sequencer.Dispatcher) sequencer.Dispatcher {
	return simWorkerType{s: s, typ: typ, local: local}
}

type simWorkerType struct {
	s     *simWorker
	typ   string
	local sequencer.Dispatcher
}

func (t simWorkerType) Name() string    { return t.typ }
func (t simWorkerType) MaxRetries() int { return t.local.MaxRetries() }

// errWorkerLost is the error of a worker whose answer never came.
var errWorkerLost = errors.New("worker dispatch: context deadline exceeded")

func (t simWorkerType) Dispatch(ctx context.Context, txn sequencer.RawTxnData, snd sequencer.Sender) (sequencer.TxnResult, error) {
	b, ok := t.local.(sequencer.Builder)
	if !ok {
		return sequencer.TxnResult{}, errors.New("no builder")
	}
	tx, err := b.Build(ctx, txn, snd)
	if err != nil {
		return sequencer.TxnResult{}, sequencer.Permanent(err)
	}
	lost := t.s.rng.Float64() < t.s.lost
	before := t.s.rng.IntN(2) == 0
	if lost && before {
		return sequencer.TxnResult{}, errWorkerLost
	}
	tx.Sign(t.s.key)
	h, err := t.s.w.dc.SendTx(ctx, tx)
	if lost {
		return sequencer.TxnResult{}, errWorkerLost
	}
	return sequencer.TxnResult{Hash: string(h)}, err
}

func (t simWorkerType) OnSuccess(ctx context.Context, txn sequencer.RawTxnData, r sequencer.TxnResult, s sequencer.Sender) (sequencer.TxnResult, error) {
	return t.local.OnSuccess(ctx, txn, r, s)
}

func (t simWorkerType) OnFailure(ctx context.Context, txn sequencer.RawTxnData, r sequencer.TxnResult, s sequencer.Sender) (sequencer.TxnResult, error) {
	return t.local.OnFailure(ctx, txn, r, s)
}
