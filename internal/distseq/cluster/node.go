package cluster

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/distseq/token"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/memstore"
	"github.com/ordolabs/ordo/internal/transport"
	"github.com/ordolabs/ordo/internal/transport/simnet"
	"google.golang.org/protobuf/proto"
)

// Node is one member: a core, its store (which survives a crash), its
// network endpoint, its indexer and its submitter.
type Node struct {
	c    *Cluster
	ID   distseq.NodeID
	key  ed25519.PrivateKey
	acct chain.Address
	// Store is the node's durable state.
	Store *memstore.Distseq

	core     *distseq.Core
	tracer   *distseq.Tracer
	ep       *simnet.Endpoint
	err      error
	restarts int

	// Lag is how many blocks this node's indexer stays behind the final
	// head.
	Lag uint64
	// Hold, when set, stops this node's indexer where it is.
	Hold bool

	cursor uint64
	viewed uint64

	seq *seqSubmitter // the node's sequencer (nil while down)
	// Transitions is every state change this node's core reported.
	Transitions []distseq.Transition
	// Sent counts the messages this node sent, by kind.
	Sent map[string]int
}

// Core returns the node's core (nil while it is down).
func (n *Node) Core() *distseq.Core { return n.core }

// Up reports whether the node runs.
func (n *Node) Up() bool { return n.core != nil }

// Height is the height this node's indexer reached.
func (n *Node) Height() uint64 { return n.viewed }

func (n *Node) start(ctx context.Context) error {
	cc := n.c.cfg.Core
	cc.Self, cc.Key, cc.Domain = n.ID, n.key, token.Domain{}
	core, err := distseq.New(cc)
	if err != nil {
		return err
	}
	groups, err := n.Store.DistseqGroups(ctx)
	if err != nil {
		return err
	}
	intents, err := n.Store.DistseqIntents(ctx, store.DistseqIntentFilter{Status: store.DistseqPending, Limit: 1000})
	if err != nil {
		return err
	}
	disp, err := n.Store.DistseqOpenDispatches(ctx)
	if err != nil {
		return err
	}
	out, err := n.Store.DistseqPendingOutbox(ctx)
	if err != nil {
		return err
	}
	cur, _, err := n.Store.DistseqCursor(ctx)
	if err != nil {
		return err
	}
	n.cursor, n.viewed, n.Sent = cur, 0, map[string]int{}
	if n.ep == nil && n.restarts == 0 {
		n.ep = n.c.Net.Attach(transport.NodeID(n.ID), n.handle)
	} else {
		n.ep = n.c.Net.Restart(transport.NodeID(n.ID), n.handle)
	}
	n.core = core
	if err := n.openSequencer(ctx); err != nil {
		return err
	}
	if n.tracer == nil && n.c.cfg.Trace != nil {
		n.tracer = distseq.NewTracer(n.c.cfg.Trace(n.ID), "token")
	}
	if err := n.step(ctx, distseq.InputStart{Now: n.c.Now(), Incarnation: fmt.Sprintf("i%d", n.restarts),
		Groups: groups, Intents: intents, Dispatches: disp, Outbox: out}); err != nil {
		return err
	}
	if err := n.seq.settle(ctx); err != nil {
		return err
	}
	return n.index(ctx)
}

// handle is the network's delivery: the message goes straight into the
// core (the cluster runs in one goroutine).
func (n *Node) handle(m transport.Message) {
	if n.core == nil || n.err != nil {
		return
	}
	n.err = n.step(context.Background(), distseq.InputMessage{From: distseq.NodeID(m.From), Body: m.Body})
}

// step is the driver: Step, commit the batch, then send, perform and
// reply.
func (n *Node) step(ctx context.Context, in distseq.Input) error {
	if n.core == nil {
		return nil // crashed in this turn
	}
	r, err := n.tracer.Step(n.core, in)
	if err != nil {
		return fmt.Errorf("node %s: %w", n.ID, err)
	}
	if n.c.cfg.Check {
		if err := n.core.CheckInvariants(); err != nil {
			return fmt.Errorf("node %s: invariant after %T: %w", n.ID, in, err)
		}
	}
	crash := NoCrash
	if n.c.cfg.OnStep != nil {
		crash = n.c.cfg.OnStep(n, in, &r)
	}
	if crash == CrashBeforeCommit {
		n.c.Crash(n.ID)
		return nil
	}
	if err := n.Store.ApplyDistseq(ctx, r.Batch); err != nil {
		return fmt.Errorf("node %s: commit: %w", n.ID, err)
	}
	if crash == CrashAfterCommit {
		n.c.Crash(n.ID)
		return nil
	}
	n.Transitions = append(n.Transitions, r.Transitions...)
	for _, s := range r.Sends {
		if n.core == nil {
			return nil
		}
		body, err := proto.Marshal(s.Env)
		if err != nil {
			return err
		}
		n.Sent[s.Kind]++
		if err := n.ep.Send(ctx, transport.NodeID(s.To), transport.Message{Kind: s.Kind, Assured: s.Assured, Body: body}); err != nil &&
			!errors.Is(err, transport.ErrQueueFull) && !errors.Is(err, transport.ErrUnknownPeer) {
			return fmt.Errorf("node %s: send: %w", n.ID, err)
		}
	}
	for _, e := range r.Effects {
		if n.core == nil {
			return nil
		}
		if err := n.perform(ctx, e); err != nil {
			return err
		}
	}
	for _, rp := range r.Replies {
		n.c.replies[rp.Ref] = rp
	}
	return nil
}

func (n *Node) perform(ctx context.Context, e distseq.Effect) error {
	switch e.Kind {
	case distseq.EffectLoad:
		states, err := n.Store.DistseqStates(ctx, e.Contract, true)
		if err != nil {
			return err
		}
		return n.step(ctx, distseq.InputLoaded{Contract: e.Contract, States: states})
	case distseq.EffectReadSpends:
		in, err := distseq.ReadSpends(ctx, n.Store, e)
		if err != nil {
			return err
		}
		return n.step(ctx, in)
	case distseq.EffectDispatch:
		return n.seq.submit(ctx, e)
	}
	return nil
}

// pollSubmissions: the node's sequencer learns the new head and hands its
// outcomes to the core.
func (n *Node) pollSubmissions(ctx context.Context) error { return n.seq.settle(ctx) }

// index feeds the core the final events up to the node's view height.
func (n *Node) index(ctx context.Context) error {
	if n.Hold {
		return nil
	}
	head := n.c.Head()
	if head < n.c.cfg.FinalityDepth+n.Lag {
		return nil
	}
	target := head - n.c.cfg.FinalityDepth - n.Lag
	if target <= n.viewed && n.viewed != 0 {
		return nil
	}
	in := distseq.InputEvents{Height: target, Cursor: n.cursor}
	for {
		evs, err := n.c.Chain.Events(ctx, in.Cursor, 1000)
		if err != nil {
			return err
		}
		more := false
		for _, e := range evs {
			if e.Height > target {
				break
			}
			in.Cursor, more = e.Cursor, true
			if ce, ok := distseq.DecodeEvent(e); ok {
				in.Events = append(in.Events, ce)
			}
		}
		if !more || len(evs) < 1000 {
			break
		}
	}
	n.cursor, n.viewed = in.Cursor, target
	return n.step(ctx, in)
}

// FlushTrace writes what the node's trace buffered.
func (n *Node) FlushTrace() error { return n.tracer.Flush() }
