package sequencer

import (
	"context"
	"fmt"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/ordolabs/ordo/internal/store"
)

// load reads the store, syncs sender nonces with the chain and builds the
// core. The store's reads that do not depend on the senders run at once,
// beside the senders' sync: a start over many queues waits on the slowest
// read (on PostgreSQL, each on a connection of its own), not on their sum.
func (n *Node) load(ctx context.Context) (*Core, error) {
	st := n.cfg.Store
	known, err := st.Senders(ctx)
	if err != nil {
		return nil, fmt.Errorf("sequencer: load senders: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var snap Snapshot
	var sent [][]store.Transaction
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return loadQueues(gctx, st, &snap) })
	g.Go(func() (err error) {
		if snap.Active, err = st.Active(gctx); err != nil {
			return fmt.Errorf("sequencer: load active: %w", err)
		}
		return nil
	})
	g.Go(func() (err error) {
		snap.Hooks, err = loadHooks(gctx, st)
		return err
	})
	g.Go(func() error {
		counts, err := st.CountByState(gctx)
		if err != nil {
			return fmt.Errorf("sequencer: count transactions: %w", err)
		}
		n.intake.Store(int64(counts[store.Waiting])) // the queue-depth gauge starts from the store
		return nil
	})
	g.Go(func() (err error) {
		snap.WaitingQueues, sent, err = n.loadWaitingQueues(gctx, st)
		return err
	})
	senders, err := n.syncSenders(ctx, known)
	if err != nil {
		cancel()
		_ = g.Wait()
		return nil, err
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	snap.Senders, snap.Foreign = senders, known // NewCore skips its own
	bound := map[string]bool{}
	for _, t := range snap.Bound {
		bound[t.UID] = true
	}
	for _, page := range sent {
		for _, t := range page {
			if len(t.Attempts) > 0 && !bound[t.UID] {
				snap.Sent = append(snap.Sent, t)
			}
		}
	}
	n.ownedSnapshot(&snap)
	hd, err := n.cfg.Chain.Head(ctx)
	if err != nil {
		return nil, fmt.Errorf("sequencer: chain head: %w", chainDown(err))
	}
	policies := map[string]Policy{}
	for _, t := range n.cfg.AllowedTypes {
		p := n.cfg.Policies[t]
		if d := n.cfg.Dispatchers[t]; p.MaxRetries == 0 && d != nil {
			p.MaxRetries = d.MaxRetries()
		} else if p.MaxRetries == 0 {
			p.MaxRetries = DefaultRemoteRetries
		}
		policies[t] = p
	}
	snap.Head, snap.MinFee, snap.ReorgDepth = hd.Height, hd.MinFee, hd.ReorgDepth
	if c := n.cfg.Confirmations; c > 0 && c <= hd.ReorgDepth {
		n.log.Warn("confirmations do not cover the chain's declared reorg depth: a reorg the chain may make can undo DONE",
			"confirmations", c, "reorgDepth", hd.ReorgDepth)
	}
	return n.newCore(CoreConfig{Policies: policies, Fees: n.cfg.Fees, InclusionTimeout: n.cfg.InclusionTimeout, Confirmations: n.cfg.Confirmations,
		PollStatus: !canReadBlocks(n.cfg.Chain), Pins: *n.pins.Load(), Pipelines: n.cfg.Pipelines, Gated: n.cfg.Gated,
		Shared: n.cfg.Owner != nil, WaitingWindow: n.waitingWindow(len(snap.WaitingQueues))}, n.cfg.Clock.Now(), snap)
}

// startReads is how many reads of one kind a start makes at once (its
// senders' accounts, its bound queues' transactions): 1,000 senders read
// one after the other on an endpoint 1 ms away would hold the first
// dispatch a second, or three on the EVM backend (three calls an account).
const startReads = 16

// readAll calls read on each item, startReads at a time, and returns the
// results in the items' order, or the first error.
func readAll[T, R any](ctx context.Context, items []T, read func(ctx context.Context, item T) (R, error)) ([]R, error) {
	out := make([]R, len(items))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(startReads)
	for i, item := range items {
		g.Go(func() (err error) {
			out[i], err = read(gctx, item)
			return err
		})
	}
	return out, g.Wait()
}

// chainNonces reads the chain's nonce of each sender, in the senders'
// order.
func (n *Node) chainNonces(ctx context.Context, senders []SenderConfig) ([]uint64, error) {
	return readAll(ctx, senders, func(ctx context.Context, sc SenderConfig) (uint64, error) {
		acct, err := n.cfg.Chain.Account(ctx, sc.ID)
		if err != nil {
			return 0, fmt.Errorf("sequencer: sender %s: %w", sc.ID, chainDown(err))
		}
		return acct.Nonce, nil
	})
}

// syncSenders saves the node's own senders with their next nonce at least
// the chain's, and returns them.
func (n *Node) syncSenders(ctx context.Context, known []store.Sender) ([]store.Sender, error) {
	byID := map[string]store.Sender{}
	for _, s := range known {
		byID[s.ID] = s
	}
	n.takeHeld()
	owned := n.ownedSenders()
	nonces, err := n.chainNonces(ctx, owned)
	if err != nil {
		return nil, err
	}
	var b store.Batch
	senders := make([]store.Sender, 0, len(owned))
	now := n.cfg.Clock.Now().UTC()
	for i, sc := range owned {
		s := byID[string(sc.ID)]
		s.ID, s.Worker, s.UpdatedAt = string(sc.ID), sc.Worker, now
		s.NextNonce = max(s.NextNonce, nonces[i])
		senders = append(senders, s)
	}
	b.Senders = slices.Clone(senders)
	n.fence(&b)
	if err := n.cfg.Store.Apply(ctx, b); err != nil {
		return nil, fmt.Errorf("sequencer: save senders: %w", err)
	}
	return senders, nil
}

// loadQueues reads the queues' bindings, and the WAITING transactions
// they are bound to. (A queue never bound has nothing to restore: the
// core meets it with its WAITING transactions or its intake.)
func loadQueues(ctx context.Context, st store.Store, snap *Snapshot) (err error) {
	if snap.Queues, err = st.Bindings(ctx); err != nil {
		return fmt.Errorf("sequencer: load queues: %w", err)
	}
	var uids []string
	for _, q := range snap.Queues {
		if q.TxUID != "" {
			uids = append(uids, q.TxUID)
		}
	}
	bound, err := readAll(ctx, uids, func(ctx context.Context, uid string) (store.Transaction, error) {
		t, err := st.Get(ctx, uid)
		if err != nil {
			return t, fmt.Errorf("sequencer: load bound %s: %w", uid, err)
		}
		return t, nil
	})
	if err != nil {
		return err
	}
	for _, t := range bound {
		if t.State == store.Waiting {
			snap.Bound = append(snap.Bound, t)
		}
	}
	return nil
}

// loadHooks reads every pending hook, a page at a time.
func loadHooks(ctx context.Context, st store.Store) ([]store.Transaction, error) {
	var hooks []store.Transaction
	for after := int64(0); ; {
		page, err := st.PendingHooks(ctx, after, 1000)
		if err != nil {
			return nil, fmt.Errorf("sequencer: load pending hooks: %w", err)
		}
		hooks = append(hooks, page...)
		if len(page) < 1000 {
			return hooks, nil
		}
		after = page[len(page)-1].Seq
	}
}

// loadWaitingQueues reads the queues with WAITING transactions and, of
// each pipelined one, its first WAITING transactions: they may have been
// sent (their dispatch under way at the stop), and the core takes those
// back in Seq order with those REVISION (restoreFollowers).
func (n *Node) loadWaitingQueues(ctx context.Context, st store.Store) ([]string, [][]store.Transaction, error) {
	names, err := st.WaitingQueues(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("sequencer: load waiting queues: %w", err)
	}
	var sent [][]store.Transaction
	for _, q := range names {
		if InFlightFor(n.cfg.Pipelines, q) < 2 {
			continue
		}
		page, err := st.Waiting(ctx, q, 0, MaxInFlight)
		if err != nil {
			return nil, nil, fmt.Errorf("sequencer: load sent of %s: %w", q, err)
		}
		sent = append(sent, page)
	}
	return names, sent, nil
}
