package distseq

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/mailbox"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/transport"
	"google.golang.org/protobuf/proto"
)

// Submitter hands a coordinator's dispatch to the base ledger through the
// node's sequencer, idempotently by (txID, call); the outcome comes back
// through Node.Dispatched. Submit must not block on the chain.
type Submitter interface {
	Submit(ctx context.Context, contract, txID string, call []byte) error
}

// NodeConfig configures the production driver of a Core.
type NodeConfig struct {
	// Core is the core's configuration.
	Core CoreConfig
	// Store holds the durable state. Required.
	Store store.DistseqStore
	// Transport reaches the other members; its handler is Node.Handle.
	// Required.
	Transport transport.Transport
	// Submitter sends dispatches. Required.
	Submitter Submitter
	// Clock is the injected clock. Defaults to the wall clock.
	Clock clock.Clock
	// Tick is how often the core gets an InputTick. Defaults to 100ms.
	Tick time.Duration
	// Logger gets what the driver reports. Defaults to slog.Default().
	Logger *slog.Logger
	// Trace, when set, records the core's run (ordo replay reads it);
	// TraceDomain names the Domain in it. Defaults to nil and "token".
	Trace       io.Writer
	TraceDomain string
}

// Node drives one Core from one goroutine (Run): inputs from any
// goroutine go through a mailbox; each Ready is committed, then its
// messages sent, its effects performed and its replies answered.
type Node struct {
	cfg     NodeConfig
	core    *Core
	tracer  *Tracer
	inbox   *mailbox.Mailbox[envelope]
	ref     uint64
	waiting map[uint64]chan Reply
	done    chan struct{} // closed when Run returns
}

type envelope struct {
	in    Input
	reply chan Reply
	read  func(*Core) // a read run on the driver's goroutine between steps
}

// ErrStopped is returned to callers whose input the stopped node never
// stepped.
var ErrStopped = errors.New("distseq: node stopped")

// NewNode checks cfg and builds a node; Run starts it.
func NewNode(cfg NodeConfig) (*Node, error) {
	if cfg.Store == nil || cfg.Transport == nil || cfg.Submitter == nil {
		return nil, fmt.Errorf("%w: a Store, a Transport and a Submitter are required", ErrConfig)
	}
	cfg.Core.Self = NodeID(cfg.Transport.Self())
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Tick <= 0 {
		cfg.Tick = 100 * time.Millisecond
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.TraceDomain == "" {
		cfg.TraceDomain = "token"
	}
	core, err := New(cfg.Core)
	if err != nil {
		return nil, err
	}
	return &Node{cfg: cfg, core: core, tracer: NewTracer(cfg.Trace, cfg.TraceDomain),
		inbox: mailbox.New[envelope](), waiting: map[uint64]chan Reply{}, done: make(chan struct{})}, nil
}

// Handle is the transport's handler: the message joins the node's inbox.
func (n *Node) Handle(m transport.Message) {
	n.inbox.Put(envelope{in: InputMessage{From: NodeID(m.From), Body: m.Body}})
}

// Events hands the node what its indexer read (final blocks only).
func (n *Node) Events(in InputEvents) { n.inbox.Put(envelope{in: in}) }

// Dispatched hands the node a dispatch's outcome.
func (n *Node) Dispatched(in InputDispatched) { n.inbox.Put(envelope{in: in}) }

// Submit is ptx_sendTransaction: the intent is committed before it
// returns the transaction id (an idempotency key already known returns
// the same id for the same intent, and ErrKeyConflict for another).
func (n *Node) Submit(ctx context.Context, contract, key string, intent []byte) (string, error) {
	return n.submit(ctx, InputSubmit{Contract: contract, Key: key, Intent: intent})
}

// Prepare is ptx_prepareTransaction: like Submit, but the coordinator
// hands the prepared transaction back (the intent record's Prepared, once
// set) instead of dispatching it; the caller submits it to the base
// ledger, and the node follows it there as it follows its own.
func (n *Node) Prepare(ctx context.Context, contract, key string, intent []byte) (string, error) {
	return n.submit(ctx, InputSubmit{Contract: contract, Key: key, Intent: intent, Prepare: true})
}

func (n *Node) submit(ctx context.Context, in InputSubmit) (string, error) {
	key := in.Key
	if key != "" {
		if rec, err := n.cfg.Store.DistseqIntentByKey(ctx, key); err == nil {
			if err := CheckKey(rec, in); err != nil {
				return "", err
			}
			return rec.TxID, nil
		} else if !errors.Is(err, store.ErrNotFound) {
			return "", err
		}
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	ch := make(chan Reply, 1)
	in.TxID = "tx_" + hex.EncodeToString(b[:])
	n.inbox.Put(envelope{in: in, reply: ch})
	select {
	case r := <-ch:
		return r.TxID, r.Err
	case <-n.done:
		select {
		case r := <-ch: // answered before the stop
			return r.TxID, r.Err
		default:
			return "", ErrStopped
		}
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// Contracts reads, between two steps, every privacy group as the core
// sees it (Core.Contracts): the coordinator per contract for the API.
func (n *Node) Contracts(ctx context.Context) ([]ContractView, error) {
	return readCore(ctx, n, (*Core).Contracts)
}

// StateCounts reads, between two steps, each contract's intents by state
// (Core.StateCounts) for the API.
func (n *Node) StateCounts(ctx context.Context) ([]StateCount, error) {
	return readCore(ctx, n, (*Core).StateCounts)
}

// readCore runs read on the core between two steps (on the node's loop)
// and returns what it read.
func readCore[T any](ctx context.Context, n *Node, read func(*Core) T) (T, error) {
	ch := make(chan T, 1)
	n.inbox.Put(envelope{read: func(c *Core) { ch <- read(c) }})
	var zero T
	select {
	case v := <-ch:
		return v, nil
	case <-n.done:
		return zero, ErrStopped
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

// Run loads the durable state, starts the core and steps inputs until
// ctx ends. A failed commit stops it with the error (the core is ahead of
// the store: the caller restarts the node, which starts from the store);
// one cut short because ctx ended is a clean stop.
func (n *Node) Run(ctx context.Context) error {
	defer n.stop()
	err := n.run(ctx)
	if err != nil && ctx.Err() != nil {
		return nil // a commit cut short by the shutdown: the store holds the last one
	}
	return err
}

func (n *Node) run(ctx context.Context) error {
	if err := n.start(ctx); err != nil {
		return err
	}
	tick := n.cfg.Clock.NewTimer(n.cfg.Tick)
	defer func() { tick.Stop() }()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-n.inbox.Signal():
		case <-tick.C():
			tick = n.cfg.Clock.NewTimer(n.cfg.Tick)
			if err := n.step(ctx, InputTick{Now: n.cfg.Clock.Now()}, nil); err != nil {
				return err
			}
		}
		for _, e := range n.inbox.Take() {
			if e.read != nil {
				e.read(n.core)
				continue
			}
			if err := n.step(ctx, e.in, e.reply); err != nil {
				return err
			}
		}
	}
}

func (n *Node) start(ctx context.Context) error {
	st := n.cfg.Store
	groups, err := st.DistseqGroups(ctx)
	if err != nil {
		return err
	}
	intents, err := st.DistseqIntents(ctx, store.DistseqIntentFilter{Status: store.DistseqPending, Limit: 1000})
	if err != nil {
		return err
	}
	disp, err := st.DistseqOpenDispatches(ctx)
	if err != nil {
		return err
	}
	out, err := st.DistseqPendingOutbox(ctx)
	if err != nil {
		return err
	}
	var inc [8]byte
	if _, err := rand.Read(inc[:]); err != nil {
		return err
	}
	return n.step(ctx, InputStart{Now: n.cfg.Clock.Now(), Incarnation: hex.EncodeToString(inc[:]),
		Groups: groups, Intents: intents, Dispatches: disp, Outbox: out}, nil)
}

// step is the driver's contract: Step, commit, then send, perform and
// reply, in that order.
func (n *Node) step(ctx context.Context, in Input, reply chan Reply) error {
	if s, ok := in.(InputSubmit); ok && reply != nil {
		n.ref++
		s.Ref = n.ref
		n.waiting[s.Ref] = reply
		in = s
	}
	if t, ok := in.(InputTick); ok && t.Now.IsZero() {
		in = InputTick{Now: n.cfg.Clock.Now()}
	}
	r, err := n.tracer.Step(n.core, in)
	if err != nil {
		return fmt.Errorf("distseq: step: %w", err)
	}
	if err := n.cfg.Store.ApplyDistseq(ctx, r.Batch); err != nil {
		return fmt.Errorf("distseq: commit: %w", err)
	}
	for _, s := range r.Sends {
		body, err := proto.Marshal(s.Env)
		if err != nil {
			return fmt.Errorf("distseq: encode %s: %w", s.Kind, err)
		}
		if err := n.cfg.Transport.Send(ctx, transport.NodeID(s.To), transport.Message{Kind: s.Kind, Assured: s.Assured, Body: body}); err != nil {
			// assured messages are resent by the core; the rest is
			// fire and forget
			n.cfg.Logger.Debug("distseq: send", "to", s.To, "kind", s.Kind, "err", err)
		}
	}
	for _, e := range r.Effects {
		if err := n.perform(ctx, e); err != nil {
			return err
		}
	}
	for _, rp := range r.Replies {
		if ch := n.waiting[rp.Ref]; ch != nil {
			delete(n.waiting, rp.Ref)
			ch <- rp
		}
	}
	return nil
}

// perform runs an effect: a load is answered before the next input.
func (n *Node) perform(ctx context.Context, e Effect) error {
	switch e.Kind {
	case EffectLoad:
		states, err := n.cfg.Store.DistseqStates(ctx, e.Contract, true)
		if err != nil {
			return fmt.Errorf("distseq: load %s: %w", e.Contract, err)
		}
		return n.step(ctx, InputLoaded{Contract: e.Contract, States: states}, nil)
	case EffectReadSpends:
		in, err := ReadSpends(ctx, n.cfg.Store, e)
		if err != nil {
			return err
		}
		return n.step(ctx, in, nil)
	case EffectDispatch:
		if err := n.cfg.Submitter.Submit(ctx, e.Contract, e.TxID, e.Payload); err != nil {
			// the coordinator's submitter record stays open: a restart
			// dispatches it again; meanwhile the sender's timers act
			n.cfg.Logger.Error("distseq: dispatch", "tx", e.TxID, "err", err)
		}
	}
	return nil
}

// ReadSpends performs an EffectReadSpends against st.
func ReadSpends(ctx context.Context, st store.DistseqStore, e Effect) (InputSpendsRead, error) {
	states, err := st.DistseqStatesByID(ctx, e.Contract, e.States)
	if err != nil {
		return InputSpendsRead{}, fmt.Errorf("distseq: read spends of %s: %w", e.TxID, err)
	}
	in := InputSpendsRead{Contract: e.Contract, TxID: e.TxID, States: states}
	if len(e.Creators) == 0 {
		return in, nil
	}
	if in.Created, err = st.DistseqStatesCreatedBy(ctx, e.Contract, e.Creators); err != nil {
		return InputSpendsRead{}, fmt.Errorf("distseq: read the creators' states of %s: %w", e.TxID, err)
	}
	for _, by := range e.Creators {
		rec, err := st.DistseqIntent(ctx, by)
		switch {
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			return InputSpendsRead{}, fmt.Errorf("distseq: read the creator %s of a state %s spends: %w", by, e.TxID, err)
		case rec.Status == store.DistseqReverted && len(rec.Granted) == 0:
			// reverted with no grant left that could land (a park's
			// revert); another revert may still leave one: not counted
			in.Reverted = append(in.Reverted, by)
		}
	}
	return in, nil
}

// stop answers every caller still waiting.
func (n *Node) stop() {
	close(n.done)
	for ref, ch := range n.waiting {
		ch <- Reply{Ref: ref, Err: ErrStopped}
		delete(n.waiting, ref)
	}
	_ = n.tracer.Flush()
}
