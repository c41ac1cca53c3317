package sequencer

import (
	"context"
	"fmt"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/store"
)

// Loop is the driver's body around the Core: it steps the inputs that
// arrived, takes the Ready (signing Builder dispatches inline), commits its
// batch, advances the core and hands over the effects. Run turns it from one
// goroutine with a pool of effect workers; a simulation turns it by hand with
// Inline set, so that the driver's own code is what the simulation runs.
//
// A Loop is owned by one goroutine; Put may be called from any.
type Loop struct {
	n        *Node
	core     *Core
	lastHead uint64 // the last head whose blocks were read (HeadSeen)
	reorgs   reorgWatch
	// pending are the batches being committed while the loop steps on
	// (not with Config.Inline), oldest first: the effects of each, and
	// those of the Readys taken after it, go out once it and every batch
	// before it are committed. At most maxInFlight when the store starts
	// commits in order (store.Pipeliner), else one.
	pending []*commit
	// ended are the records whose pure hooks ran for the Ready being taken
	// (the core forgot them at HookDone): its commit keeps them until it is
	// observed, so that the logs and metrics read them there, not from the
	// store.
	ended map[string]store.Transaction
}

// maxInFlight is how many batches the loop may have committing at once on
// a store.Pipeliner: while one commits, the next is queued behind it, so
// the store's writer never waits for the loop.
const maxInFlight = 2

// commit is a batch on its way to the store.
type commit struct {
	batch   store.Batch
	started store.Started // on a store.Pipeliner
	effects []Effect
	ended   map[string]store.Transaction // the records its pure hooks ended (Loop.ended)
	t0      time.Time
	done    chan struct{}
	err     error
}

// Open loads the store, syncs the senders with the chain and builds the core;
// the first Turn commits what recovery wrote and hands over what it asks.
func (n *Node) Open(ctx context.Context) (*Loop, error) {
	core, err := n.load(ctx)
	if err != nil {
		return nil, err
	}
	return &Loop{n: n, core: core}, nil
}

// Core returns the loop's core, for read-only queries (CheckInvariants,
// NextDeadline) from the loop's goroutine.
func (l *Loop) Core() *Core { return l.core }

// Put queues an input for the next Turn; its time is stamped when the Turn
// steps it.
func (l *Loop) Put(in Input) { l.n.inputs.Put(in) }

// Waiting reports whether inputs are queued for the next Turn.
func (l *Loop) Waiting() bool { return l.n.inputs.Len() > 0 }

// Deadline returns the earliest DELAY end the core waits for, or zero.
func (l *Loop) Deadline() time.Time { return l.core.NextDeadline() }

// Turn steps every queued input, takes the Ready, starts its batch's commit
// and returns the effects that may be performed now: those of the commits
// that have finished (this Ready's once its commit is done, at a later
// Turn: Committed signals it). One batch is committed at a time, in order,
// so the loop steps and signs while the store commits the previous turn,
// and no effect goes out before its batch and every batch before it are
// committed. With Config.Inline the loop commits, then performs the effects
// itself, in order, and queues their results for the next Turn (it then
// returns none). An error is a failed commit: the loop must not be turned
// again (the core is ahead of the store).
func (l *Loop) Turn(ctx context.Context) ([]Effect, error) {
	n := l.n
	now := n.cfg.Clock.Now().UTC()
	for _, in := range n.inputs.Take() {
		if in.Kind == InputEnqueued {
			// Put under an earlier core's leases (a reload in between):
			// only this core's queues are stepped (owner.go).
			if in.Txs = n.ownedTxs(in.Txs); len(in.Txs) == 0 {
				continue
			}
		}
		in.At = now
		if in.Kind == InputHead {
			in.Receipts = l.watched(in.Receipts)
		}
		l.step(in)
	}
	r := l.ready(ctx, now)
	var out []Effect
	var err error
	if n.cfg.Inline {
		out, err = l.commitNow(ctx, r)
	} else {
		out, err = l.commitAsync(ctx, r)
	}
	if err != nil {
		return nil, err
	}
	l.ended = nil // a Ready without a batch: nothing to observe
	n.observeGauges(l.core)
	l.core.Advance()
	n.trace.Advance()
	if err := n.trace.Flush(); err != nil {
		return nil, err
	}
	if !n.cfg.Inline {
		return out, nil
	}
	for _, e := range out {
		l.Put(n.perform(ctx, e))
	}
	return nil, nil
}

// commitNow commits r's batch and returns its effects (Config.Inline: a
// simulation's loop, one thing at a time).
func (l *Loop) commitNow(ctx context.Context, r Ready) ([]Effect, error) {
	if r.Batch.Empty() {
		return r.Effects, nil
	}
	p := l.newCommit(r)
	p.err = l.n.cfg.Store.Apply(ctx, p.batch)
	close(p.done)
	l.pending = append(l.pending, p)
	return l.finish(ctx)
}

// newCommit makes r's commit: its batch fenced, and the records of the
// pure hooks run for r (Loop.ended), kept until the commit is observed.
func (l *Loop) newCommit(r Ready) *commit {
	l.n.fence(&r.Batch)
	p := &commit{batch: r.Batch, effects: r.Effects, ended: l.ended, t0: l.n.cfg.Clock.Now(), done: make(chan struct{})}
	l.ended = nil
	return p
}

// commitAsync starts r's commit and returns the effects that may go out
// now: those of the commits that have finished, in order. On a store that
// starts commits in order (store.Pipeliner) up to maxInFlight batches
// commit at once, each queued behind the one before; on another, one at a
// time (a Ready with a batch waits for the commit before it). Either way
// the loop's stepping and signing overlap the store's commits, and effects
// never go out before the commits of their Ready and of every Ready
// before it.
func (l *Loop) commitAsync(ctx context.Context, r Ready) ([]Effect, error) {
	out, err := l.finished(ctx)
	if err != nil {
		return nil, err
	}
	pl, ordered := l.n.cfg.Store.(store.Pipeliner)
	limit := 1
	if ordered {
		limit = maxInFlight
	}
	for !r.Batch.Empty() && len(l.pending) >= limit {
		eff, err := l.finish(ctx)
		if err != nil {
			return nil, err
		}
		out = append(out, eff...)
	}
	switch {
	case !r.Batch.Empty():
		n := l.n
		p := l.newCommit(r)
		if ordered {
			var after store.Started // the last batch still committing: p is not applied without it
			if k := len(l.pending); k > 0 {
				after = l.pending[k-1].started
			}
			p.started = pl.StartApply(ctx, p.batch, after)
			go func() {
				defer close(p.done)
				p.err = p.started.Wait(ctx)
			}()
		} else {
			go func() {
				defer close(p.done)
				p.err = n.cfg.Store.Apply(ctx, p.batch)
			}()
		}
		l.pending = append(l.pending, p)
	case len(l.pending) > 0:
		last := l.pending[len(l.pending)-1]
		last.effects = append(last.effects, r.Effects...)
	default:
		out = append(out, r.Effects...)
	}
	return out, nil
}

// finished returns the effects of the commits at the head of pending that
// are done, in order.
func (l *Loop) finished(ctx context.Context) ([]Effect, error) {
	var out []Effect
	for len(l.pending) > 0 && l.pending[0].finished() {
		eff, err := l.finish(ctx)
		if err != nil {
			return nil, err
		}
		out = append(out, eff...)
	}
	return out, nil
}

// finished reports whether the commit is done.
func (c *commit) finished() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// finish waits for the oldest pending commit and returns its effects; an
// error is a failed commit (the loop must not be turned again).
func (l *Loop) finish(ctx context.Context) ([]Effect, error) {
	p := l.pending[0]
	<-p.done
	l.pending[0] = nil
	l.pending = l.pending[1:]
	if p.err != nil {
		return nil, fmt.Errorf("sequencer: commit: %w", p.err)
	}
	n := l.n
	n.wrote(nil)
	n.fullWait = 0 // the loop's only: a commit went through
	n.observeCommit(p.batch, n.since(p.t0))
	if len(p.batch.History) > 0 {
		n.commits.fire()
	}
	n.observe(ctx, l.core, p.ended, p.batch)
	return p.effects, nil
}

// Committed is closed when the oldest pending commit is done (nil: none),
// so that the driver turns the loop to hand out its effects.
func (l *Loop) Committed() <-chan struct{} {
	if len(l.pending) == 0 {
		return nil
	}
	return l.pending[0].done
}

// wait waits for the pending commits to end, whatever their outcome (the
// loop stops: nothing may still write for its core when the next one
// loads).
func (l *Loop) wait() {
	for _, p := range l.pending {
		<-p.done
	}
	l.pending = nil
}

func (l *Loop) step(in Input) {
	l.n.trace.Input(in)
	l.core.Step(in)
}

func (l *Loop) takeReady() Ready {
	r := l.core.Ready()
	l.n.trace.Ready(r)
	return r
}

// ready takes the core's Ready and does the Ready contract's step 3 on it
// (signLocal, then runPureHooks).
func (l *Loop) ready(ctx context.Context, now time.Time) Ready {
	r := l.signLocal(ctx, now, l.takeReady())
	return l.runPureHooks(ctx, now, r)
}

// signLocal builds and signs r's dispatches through a Builder with a
// keystore sender here, in the loop, and steps them at once, so that the
// planned attempt and its hash go in one commit and the send follows it:
// one commit, not two, between a new head and the next dispatch reaching the
// chain.
func (l *Loop) signLocal(ctx context.Context, now time.Time, r Ready) Ready {
	var local []int // the dispatches this node may build and sign itself
	for i, e := range r.Effects {
		if e.Kind == EffectDispatch && !e.SyncNonce && !isRemote(l.n.dispatcherFor(e.Txn.Type, e.Sender.AccountID)) {
			local = append(local, i)
		}
	}
	if len(local) == 0 {
		return r
	}
	reports, ok := l.n.signAll(ctx, r.Effects, local)
	j := 0
	return l.stepInline(now, r, func(i int, _ Effect) (Input, bool) {
		if j < len(local) && local[j] == i {
			j++
			return reports[j-1], ok[j-1]
		}
		return Input{}, false
	})
}

// runPureHooks runs r's hooks whose dispatcher declares them pure
// (PureHooks) here, in the loop, and steps their results at once, so that
// a finished transaction's result is committed with its end: one write of
// the record instead of two, and no hook effect.
func (l *Loop) runPureHooks(ctx context.Context, now time.Time, r Ready) Ready {
	return l.stepInline(now, r, func(_ int, e Effect) (Input, bool) {
		if e.Kind != EffectHook || !l.n.pureHook(e) {
			return Input{}, false
		}
		if t, ok := l.core.Lookup(e.UID); ok {
			if l.ended == nil {
				l.ended = map[string]store.Transaction{}
			}
			l.ended[e.UID] = t
		}
		return l.n.perform(ctx, e), true
	})
}

// stepInline steps, in the order of r's effects, the input that report
// gives for an effect (ok), drops those effects, and appends the Ready the
// core made of them: the Ready contract's step 3.
func (l *Loop) stepInline(now time.Time, r Ready, report func(i int, e Effect) (Input, bool)) Ready {
	kept := r.Effects[:0]
	stepped := false
	for i, e := range r.Effects {
		if in, ok := report(i, e); ok {
			in.At = now
			l.step(in)
			stepped = true
			continue
		}
		kept = append(kept, e)
	}
	r.Effects = kept
	if stepped {
		r.Append(l.takeReady())
	}
	return r
}

// watched keeps the receipts of transactions the core waits on.
func (l *Loop) watched(rs []Receipt) []Receipt {
	var mine []Receipt
	for _, r := range rs {
		if l.core.Watching(r.Hash) {
			mine = append(mine, r)
		}
	}
	return mine
}

// HeadSeen queues a new head with the receipts of the blocks since the last
// head seen (read from the chain when it can list blocks). Only one goroutine
// may call it.
func (l *Loop) HeadSeen(ctx context.Context, h chain.BlockHeader) {
	var receipts []Receipt
	var blocks []chain.BlockHeader
	if br, ok := l.n.cfg.Chain.(chain.BlockReader); ok {
		from := l.lastHead + 1
		if l.lastHead == 0 || h.Height-l.lastHead > 1000 {
			from = h.Height
		}
		// A read error leaves receipts out: the inclusion deadline's
		// status check finds those transactions.
		_ = chain.EachBlock(ctx, br, from, h.Height, func(b chain.Block) error {
			blocks = append(blocks, b.BlockHeader)
			for _, t := range b.Txs {
				receipts = append(receipts, Receipt{Hash: string(t.Hash), Height: b.Height, Success: t.Status == chain.OutcomeSucceeded, Reason: t.Reason,
					Nonce: t.Nonce, Fee: t.Fee})
			}
			return nil
		})
	}
	if in, ok := l.reorgs.seen(ctx, l.n.cfg.Chain, h, blocks); ok {
		l.n.log.Error("a reorg deeper than the chain declares: DONE transactions it touched are flagged in their history",
			"depth", in.Depth, "declared", in.ReorgDepth, "forkHeight", in.Height, "head", h.Height)
		l.n.observeDeepReorg()
		l.Put(in)
	}
	l.lastHead = h.Height
	l.n.observeHead(h.Height)
	l.Put(Input{Kind: InputHead, Height: h.Height, MinFee: h.MinFee, ReorgDepth: h.ReorgDepth, Receipts: receipts})
}
