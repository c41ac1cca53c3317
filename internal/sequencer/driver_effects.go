package sequencer

import (
	"context"
	"fmt"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/store"
)

// work performs effects until ctx ends.
func (n *Node) work(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case e := <-n.effects:
			n.perform(ctx, e)
		}
	}
}

func (n *Node) perform(ctx context.Context, e Effect) {
	switch e.Kind {
	case EffectDispatch:
		n.performDispatch(ctx, e)
	case EffectSubmit:
		h, err := n.cfg.Chain.SendTx(ctx, e.Tx)
		if h == "" {
			h = chain.Hash(e.Hash)
		}
		n.inputs.put(func(c *Core) {
			c.Dispatched(e.Queue, DispatchResult{UID: e.UID, Attempt: e.Attempt, Nonce: e.Tx.Nonce, Hash: string(h), Err: err, Code: chain.CodeOf(err)})
		})
	case EffectCheck:
		st, err := n.cfg.Chain.TxStatus(ctx, chain.Hash(e.Hash))
		n.inputs.put(func(c *Core) { c.Checked(e.Queue, e.UID, e.Attempt, st, err) })
	case EffectHook:
		d := n.dispatcherFor(e.Txn.Type, e.Sender.AccountID)
		var r TxnResult
		var err error
		if d == nil {
			err = fmt.Errorf("no dispatcher for %s", e.Txn.Type)
		} else if e.Success {
			r, err = d.OnSuccess(ctx, e.Txn, e.Result, e.Sender)
		} else {
			r, err = d.OnFailure(ctx, e.Txn, e.Result, e.Sender)
		}
		if r.Hash == "" {
			r.Hash = e.Result.Hash
		}
		n.inputs.put(func(c *Core) { c.HookDone(e.UID, r, err) })
	case EffectLoad:
		txs, err := n.cfg.Store.Waiting(ctx, e.Queue, e.After, e.Limit+1)
		if err != nil {
			// Report after a pause: the core asks again at once.
			n.log.Error("load waiting transactions", "queue", e.Queue, "err", err)
			txs = nil
			t := n.cfg.Clock.NewTimer(time.Second)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C():
			}
		}
		more := len(txs) > e.Limit || err != nil
		if len(txs) > e.Limit {
			txs = txs[:e.Limit]
		}
		n.inputs.put(func(c *Core) { c.Loaded(e.Queue, txs, more) })
	}
}

// dispatcherFor returns the dispatcher for a type, or the sender's remote
// worker when the sender has one.
func (n *Node) dispatcherFor(typ, sender string) Dispatcher {
	if w := n.workers[sender]; w != nil {
		return w.For(typ, n.cfg.Dispatchers[typ])
	}
	return n.cfg.Dispatchers[typ]
}

// ready collects the core's output. Dispatches through a Builder with a
// keystore sender are signed here, in the loop, and reported to the core at
// once, so that the planned attempt and its hash go in one commit and the
// send follows it: one commit, not two, between a new head and the next
// dispatch reaching the chain.
func (n *Node) ready(ctx context.Context, c *Core) Ready {
	r := c.Ready()
	kept := r.Effects[:0]
	signed := false
	for _, e := range r.Effects {
		if e.Kind == EffectDispatch && !e.SyncNonce && n.signInline(ctx, c, e) {
			signed = true
			continue
		}
		kept = append(kept, e)
	}
	r.Effects = kept
	if signed {
		more := c.Ready()
		r.Batch.Append(more.Batch)
		r.Effects = append(r.Effects, more.Effects...)
	}
	return r
}

// signInline builds and signs a Builder dispatch and reports it; it returns
// false when the effect must go to a worker instead.
func (n *Node) signInline(ctx context.Context, c *Core, e Effect) bool {
	report, ok := n.buildAndSign(ctx, e)
	if ok {
		report(c)
	}
	return ok
}

// buildAndSign builds e's transaction through a Builder dispatcher and
// signs it with the sender's key from the keystore, returning the input that
// reports the result to the core (Signed, or Dispatched with the error). ok
// is false when e's dispatcher is no Builder or its sender has no key here.
func (n *Node) buildAndSign(ctx context.Context, e Effect) (report func(*Core), ok bool) {
	b, ok := n.dispatcherFor(e.Txn.Type, e.Sender.AccountID).(Builder)
	key := n.keys[e.Sender.AccountID]
	if !ok || key == nil {
		return nil, false
	}
	tx, err := b.Build(ctx, e.Txn, e.Sender)
	if err != nil {
		return func(c *Core) {
			c.Dispatched(e.Queue, DispatchResult{UID: e.UID, Attempt: e.Attempt, Nonce: e.Sender.Nonce, Err: err, Code: chain.CodeOf(err)})
		}, true
	}
	tx.From, tx.Nonce, tx.Fee = chain.Address(e.Sender.AccountID), e.Sender.Nonce, e.Sender.Fee
	h := signTx(&tx, key)
	return func(c *Core) { c.Signed(e.Queue, e.UID, e.Attempt, tx, string(h)) }, true
}

func (n *Node) performDispatch(ctx context.Context, e Effect) {
	if e.SyncNonce {
		if acct, err := n.cfg.Chain.Account(ctx, chain.Address(e.Sender.AccountID)); err == nil && acct.Nonce > e.Sender.Nonce {
			e.Sender.Nonce = acct.Nonce
		}
	}
	if report, ok := n.buildAndSign(ctx, e); ok {
		n.inputs.put(report)
		return
	}
	var r TxnResult
	err := fmt.Errorf("no dispatcher for type %s", e.Txn.Type)
	if d := n.dispatcherFor(e.Txn.Type, e.Sender.AccountID); d != nil {
		r, err = d.Dispatch(ctx, e.Txn, e.Sender)
	}
	n.inputs.put(func(c *Core) {
		c.Dispatched(e.Queue, DispatchResult{UID: e.UID, Attempt: e.Attempt, Nonce: e.Sender.Nonce, Hash: r.Hash, Err: err, Code: chain.CodeOf(err)})
	})
}

// observe updates metrics from a committed batch.
func (n *Node) observe(c *Core, b store.Batch) {
	m := n.cfg.Metrics
	for _, h := range b.History {
		switch h.To {
		case store.Revision:
			if _, ok := n.dispHead[h.UID]; !ok {
				n.dispHead[h.UID] = c.Head()
				n.begun++
			}
			if m != nil {
				m.Dispatches.Inc()
			}
		case store.Retry:
			if m != nil {
				m.Retries.Inc()
			}
		case store.Done, store.Failed:
			start, ok := n.dispHead[h.UID]
			delete(n.dispHead, h.UID)
			if !ok && h.From == store.Waiting {
				n.begun++
			}
			if n.cfg.OnFinish != nil {
				blocks := uint64(0)
				if ok {
					blocks = c.Head() - start
				}
				n.cfg.OnFinish(h.UID, h.To, blocks)
			}
			if m == nil {
				continue
			}
			if h.To == store.Failed {
				m.Failures.Inc()
				continue
			}
			m.Done.Inc()
			if ok {
				m.InclusionBlocks.Observe(float64(c.Head() - start))
			}
		}
	}
	if m != nil {
		m.SendersBusy.Set(float64(c.BusySenders()))
		m.QueueDepth.Set(float64(n.intake.Load() - n.begun))
	}
}
