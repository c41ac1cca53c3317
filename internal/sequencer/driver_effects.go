package sequencer

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
)

// work performs effects until ctx ends, queueing their results on l.
func (n *Node) work(ctx context.Context, l *Loop) {
	for {
		select {
		case <-ctx.Done():
			return
		case e := <-n.effects:
			in := n.perform(ctx, e)
			if ctx.Err() != nil {
				return
			}
			l.Put(in)
		}
	}
}

// perform performs one effect and returns the input that reports it.
func (n *Node) perform(ctx context.Context, e Effect) Input {
	t0 := n.cfg.Clock.Now()
	defer func() { n.observeEffect(e.Kind, n.since(t0)) }()
	switch e.Kind {
	case EffectDispatch:
		return n.performDispatch(ctx, e)
	case EffectSubmit:
		if n.lapsed() {
			return Dispatched(time.Time{}, e.Queue, DispatchResult{UID: e.UID, Attempt: e.Attempt, Nonce: e.Tx.Nonce, Hash: e.Hash, Err: ErrLeaseLapsed})
		}
		h, err := n.cfg.Chain.SendTx(ctx, e.Tx)
		if h == "" {
			h = chain.Hash(e.Hash)
		}
		return Dispatched(time.Time{}, e.Queue, DispatchResult{UID: e.UID, Attempt: e.Attempt, Nonce: e.Tx.Nonce, Hash: string(h), Err: err, Code: chain.CodeOf(err)})
	case EffectCheck:
		return n.performCheck(ctx, e)
	case EffectHook:
		return n.performHook(ctx, e)
	case EffectLoad:
		return n.performLoad(ctx, e)
	}
	panic(fmt.Sprintf("sequencer: unknown effect kind %d", e.Kind))
}

// performCheck asks the chain for an attempt's status. An inclusion is
// reported with the nonce and fee of the transaction its block holds (read
// when the chain lists blocks), as a block's receipt is: the attempt then
// records what landed whichever way the core learnt it.
func (n *Node) performCheck(ctx context.Context, e Effect) Input {
	if e.Hash == "" {
		return n.performLookup(ctx, e)
	}
	st, err := n.cfg.Chain.TxStatus(ctx, chain.Hash(e.Hash))
	if err != nil || st.State != chain.TxIncluded {
		return Checked(time.Time{}, e.Queue, e.UID, e.Attempt, st, err)
	}
	nonce, fee := includedTx(ctx, n.cfg.Chain, chain.Hash(e.Hash), st)
	return CheckedIncluded(time.Time{}, e.Queue, e.UID, e.Attempt, st, nonce, fee)
}

// lookupLimit bounds the blocks a lookup reads back from the head.
const lookupLimit = 10_000

// performLookup finds which transaction took the nonce of an attempt a
// remote worker may have sent unreported (EffectCheck without a hash): the
// intent's own (its memo is the uid) is reported included with its hash,
// another one dropped at its height, none unknown. A chain whose blocks
// cannot be listed answers unknown.
func (n *Node) performLookup(ctx context.Context, e Effect) Input {
	nr, ok := n.cfg.Chain.(chain.NonceReader)
	if !ok {
		return Checked(time.Time{}, e.Queue, e.UID, e.Attempt, chain.TxStatus{State: chain.TxUnknown}, nil)
	}
	tx, height, found, err := chain.FindNonce(ctx, nr, chain.Address(e.Sender.AccountID), e.Sender.Nonce, e.Since, lookupLimit)
	switch {
	case err != nil:
		return Checked(time.Time{}, e.Queue, e.UID, e.Attempt, chain.TxStatus{}, err)
	case !found:
		return Checked(time.Time{}, e.Queue, e.UID, e.Attempt, chain.TxStatus{State: chain.TxUnknown}, nil)
	case tx.Memo != e.UID:
		n.log.Info("unreported attempt settled: its nonce went to another transaction", "uid", e.UID, "queue", e.Queue, "attempt", e.Attempt, "nonce", tx.Nonce, "hash", tx.Hash, "height", height)
		return Checked(time.Time{}, e.Queue, e.UID, e.Attempt, chain.TxStatus{State: chain.TxDropped, Height: height,
			Reason: fmt.Sprintf("nonce %d went to transaction %s at height %d", tx.Nonce, tx.Hash, height)}, nil)
	}
	n.log.Info("unreported attempt found on chain", "uid", e.UID, "queue", e.Queue, "attempt", e.Attempt, "nonce", tx.Nonce, "hash", tx.Hash, "height", height, "status", tx.Status)
	st := chain.TxStatus{Hash: tx.Hash, State: chain.TxIncluded, Height: height, Index: tx.Index, Success: tx.Status == chain.OutcomeSucceeded, Reason: tx.Reason}
	return CheckedIncluded(time.Time{}, e.Queue, e.UID, e.Attempt, st, tx.Nonce, tx.Fee)
}

// includedTx reads the nonce and fee of the transaction hash, included as st says,
// from its block; 0, 0 when the chain lists no blocks or the block does not
// hold it at st.Index (a reorg since the status was read): the attempt then
// keeps what it recorded.
func includedTx(ctx context.Context, c chain.Chain, hash chain.Hash, st chain.TxStatus) (nonce, fee uint64) {
	br, ok := c.(chain.BlockReader)
	if !ok {
		return 0, 0
	}
	bs, err := br.Blocks(ctx, st.Height, st.Height)
	if err != nil || len(bs) == 0 || bs[0].Height != st.Height || st.Index < 0 || st.Index >= len(bs[0].Txs) {
		return 0, 0
	}
	if t := bs[0].Txs[st.Index]; t.Hash == hash {
		return t.Nonce, t.Fee
	}
	return 0, 0
}

func (n *Node) performHook(ctx context.Context, e Effect) Input {
	d := n.dispatcherFor(e.Txn.Type, e.Sender.AccountID)
	var r TxnResult
	var err error
	if d == nil {
		err = fmt.Errorf("no dispatcher for %s", e.Txn.Type)
	} else {
		call, t0 := "onFailure", n.cfg.Clock.Now()
		if e.Success {
			call = "onSuccess"
			r, err = d.OnSuccess(ctx, e.Txn, e.Result, e.Sender)
		} else {
			r, err = d.OnFailure(ctx, e.Txn, e.Result, e.Sender)
		}
		n.logWorkerTimeout(ctx, e, d, call, n.since(t0), err)
	}
	if err != nil && ctx.Err() == nil {
		n.log.Warn("hook error", "uid", e.UID, "queue", e.Queue, "sender", e.Sender.AccountID, "type", e.Txn.Type, "success", e.Success, "err", err)
	}
	if r.Hash == "" {
		r.Hash = e.Result.Hash
	}
	return HookDone(time.Time{}, e.UID, r, err)
}

func (n *Node) performLoad(ctx context.Context, e Effect) Input {
	txs, err := n.cfg.Store.Waiting(ctx, e.Queue, e.After, e.Limit+1)
	if err != nil {
		// Report after a pause (the core asks again at once); inline, the
		// next turn is the pause. A load cut short by the loop's own stop
		// (a lease change, a shutdown) is no error: the next core loads
		// again.
		if ctx.Err() == nil {
			n.log.Error("load waiting transactions", "queue", e.Queue, "err", err)
		}
		txs = nil
		if !n.cfg.Inline {
			t := n.cfg.Clock.NewTimer(time.Second)
			select {
			case <-ctx.Done():
				t.Stop()
			case <-t.C():
			}
		}
	}
	more := len(txs) > e.Limit || err != nil
	if len(txs) > e.Limit {
		txs = txs[:e.Limit]
	}
	return Loaded(time.Time{}, e.Queue, txs, more)
}

// dispatcherFor returns the dispatcher for a type, or the sender's remote
// worker when the sender has one.
func (n *Node) dispatcherFor(typ, sender string) Dispatcher {
	if w := n.workers[sender]; w != nil {
		return w.For(typ, n.cfg.Dispatchers[typ])
	}
	return n.cfg.Dispatchers[typ]
}

// buildAndSign builds e's transaction through a Builder dispatcher and
// signs it with the sender's key from the keystore, returning the input that
// reports the result to the core (Signed, or Dispatched with the error). ok
// is false when e's dispatcher is no Builder or its sender has no key here.
func (n *Node) buildAndSign(ctx context.Context, e Effect) (report Input, ok bool) {
	key := n.keys[e.Sender.AccountID]
	if e.Cancel != "" {
		// an operator's no-op at the attempt's nonce (core_cancel.go); a
		// sender without a key here cannot send one (the API refuses that
		// cancel): the error is not permanent, the transaction's own
		// attempt may still land
		if key == nil {
			return Dispatched(time.Time{}, e.Queue, DispatchResult{UID: e.UID, Attempt: e.Attempt, Nonce: e.Sender.Nonce, Err: errNoKeyToCancel}), true
		}
		return n.sign(ctx, e, chain.NoopTx(chain.Address(e.Sender.AccountID), e.Sender.Nonce, e.Sender.Fee), key), true
	}
	d := n.dispatcherFor(e.Txn.Type, e.Sender.AccountID)
	b, ok := d.(Builder)
	if !ok || key == nil {
		return Input{}, false
	}
	t0 := n.cfg.Clock.Now()
	tx, err := b.Build(ctx, e.Txn, e.Sender)
	if err != nil {
		n.logWorkerTimeout(ctx, e, d, "build", n.since(t0), err)
		permanent := !isRemote(d) || errors.Is(err, ErrPermanent)
		return Dispatched(time.Time{}, e.Queue, DispatchResult{UID: e.UID, Attempt: e.Attempt, Nonce: e.Sender.Nonce, Err: err, Code: chain.CodeOf(err), Permanent: permanent}), true
	}
	return n.sign(ctx, e, tx, key), true
}

// errNoKeyToCancel is the dispatch error of a no-op for a sender whose key
// the node does not hold (a remote worker's).
var errNoKeyToCancel = errors.New("a no-op that cancels a nonce needs the sender's key in the node's keystore")

// sign completes tx as e's attempt (sender, nonce, fee; the gas limit of
// the attempt it replaces, or an estimate) and signs it: the Signed input,
// or the Dispatched one of what failed.
func (n *Node) sign(ctx context.Context, e Effect, tx chain.Tx, key chain.Key) Input {
	tx.From, tx.Nonce, tx.Fee, tx.Gas = chain.Address(e.Sender.AccountID), e.Sender.Nonce, e.Sender.Fee, e.Sender.Gas
	if err := chain.FillGas(ctx, n.cfg.Chain, &tx); err != nil {
		// the chain could not say (or the strict path reverts): a
		// transient error, as a send that failed
		return Dispatched(time.Time{}, e.Queue, DispatchResult{UID: e.UID, Attempt: e.Attempt, Nonce: e.Sender.Nonce, Err: err, Code: chain.CodeOf(err)})
	}
	h, err := n.signer.Sign(&tx, key)
	if err != nil {
		// permanent for the transaction's own form; a no-op's failure is
		// not (its transaction's attempt may still land)
		return Dispatched(time.Time{}, e.Queue, DispatchResult{UID: e.UID, Attempt: e.Attempt, Nonce: e.Sender.Nonce, Err: err, Code: chain.CodeOf(err), Permanent: e.Cancel == ""})
	}
	return Signed(time.Time{}, e.Queue, e.UID, e.Attempt, tx, string(h))
}

// signAll runs buildAndSign over the effects es[i] for i in idx, on up to
// GOMAXPROCS goroutines at once (signing is most of a dispatch's CPU, and
// the loop waits for it: an attempt's hash is committed with the attempt),
// and returns their reports and oks in idx's order. The results do not
// depend on how the work was shared: the loop steps them in that order.
func (n *Node) signAll(ctx context.Context, es []Effect, idx []int) ([]Input, []bool) {
	reports, oks := make([]Input, len(idx)), make([]bool, len(idx))
	one := func(j int) { reports[j], oks[j] = n.buildAndSign(ctx, es[idx[j]]) }
	workers := min(runtime.GOMAXPROCS(0), (len(idx)+signChunk-1)/signChunk)
	if n.cfg.Inline || workers < 2 {
		for j := range idx {
			one(j)
		}
		return reports, oks
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				lo := int(next.Add(signChunk)) - signChunk
				if lo >= len(idx) {
					return
				}
				for j := lo; j < min(lo+signChunk, len(idx)); j++ {
					one(j)
				}
			}
		})
	}
	wg.Wait()
	return reports, oks
}

// signChunk is how many dispatches a signing goroutine takes at a time:
// fewer than two chunks are signed on the loop's goroutine alone.
const signChunk = 16

func (n *Node) performDispatch(ctx context.Context, e Effect) Input {
	if e.SyncNonce {
		if acct, err := n.cfg.Chain.Account(ctx, chain.Address(e.Sender.AccountID)); err == nil && acct.Nonce > e.Sender.Nonce {
			e.Sender.Nonce = acct.Nonce
		}
	}
	if report, ok := n.buildAndSign(ctx, e); ok {
		return report
	}
	if n.lapsed() {
		return Dispatched(time.Time{}, e.Queue, DispatchResult{UID: e.UID, Attempt: e.Attempt, Nonce: e.Sender.Nonce, Err: ErrLeaseLapsed})
	}
	var r TxnResult
	err := fmt.Errorf("no dispatcher for type %s", e.Txn.Type)
	if d := n.dispatcherFor(e.Txn.Type, e.Sender.AccountID); d != nil {
		t0 := n.cfg.Clock.Now()
		r, err = d.Dispatch(ctx, e.Txn, e.Sender)
		n.logWorkerTimeout(ctx, e, d, "dispatch", n.since(t0), err)
	}
	return Dispatched(time.Time{}, e.Queue, DispatchResult{UID: e.UID, Attempt: e.Attempt, Nonce: e.Sender.Nonce, Hash: r.Hash, Err: err, Code: chain.CodeOf(err),
		Permanent: errors.Is(err, ErrPermanent)})
}
