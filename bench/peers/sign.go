package main

import (
	"context"
	"crypto/ed25519"
	"fmt"

	"github.com/riverqueue/river"

	"github.com/ordolabs/ordo/internal/chain"
)

// signArgs is the same-work job: what ordo's burndown takes per intent (a
// queue, the intent's data; ordo's idempotency key has no River
// counterpart here: River's unique jobs would cost it more).
type signArgs struct {
	Queue string `json:"queue"`
	I     int    `json:"i"`
}

// Kind names the job kind.
func (signArgs) Kind() string { return "sign" }

// signOutput is what a same-work job keeps, as a River user would: the
// signed transaction's hash and signature in the job's recorded output.
type signOutput struct {
	Hash      string `json:"hash"`
	Signature string `json:"signature"`
}

// senderKey is one signing key of the pool and its next nonce.
type senderKey struct {
	key   ed25519.PrivateKey
	addr  chain.Address
	nonce uint64
}

// signWorker does per job what ordo's burndown does per intent outside its
// store: build the burndown's transaction (chain.Tx: the no-op call with
// the job's id as its memo), complete it as an attempt (sender, nonce,
// fee) and sign it with ed25519 in ordo's own scheme (chain.Ed25519, the
// canonical hash), on a key taken from a pool so that no two jobs use one
// key's nonce at once. The output is recorded with the job.
type signWorker struct {
	river.WorkerDefaults[signArgs]
	keys chan *senderKey
}

// newSignWorker makes a pool of n keys (n: one per River worker, as a
// River user with a key per worker goroutine would).
func newSignWorker(n int) *signWorker {
	w := &signWorker{keys: make(chan *senderKey, n)}
	for i := range n {
		k := chain.KeyFromSeed(fmt.Sprintf("peers-river-sender-%d", i))
		w.keys <- &senderKey{key: k, addr: chain.KeyAddress(k)}
	}
	return w
}

// Work builds, signs and records one job's transaction.
func (w *signWorker) Work(ctx context.Context, job *river.Job[signArgs]) error {
	out, err := w.sign(fmt.Sprintf("river-%d", job.ID))
	if err != nil {
		return err
	}
	return river.RecordOutput(ctx, out)
}

// sign builds and signs the transaction whose memo is uid.
func (w *signWorker) sign(uid string) (signOutput, error) {
	k := <-w.keys
	defer func() { w.keys <- k }()
	tx := chain.Tx{Contract: "noop", Method: "run", Memo: uid, From: k.addr, Nonce: k.nonce, Fee: 1}
	h, err := chain.Ed25519.Sign(&tx, k.key)
	if err != nil {
		return signOutput{}, fmt.Errorf("sign: %w", err)
	}
	k.nonce++
	return signOutput{Hash: string(h), Signature: tx.Signature}, nil
}
