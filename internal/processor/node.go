package processor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chainevents"
	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/engine"
	"github.com/ordolabs/ordo/internal/httpjson"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/store"
)

// Submitter is the sequencer's intake, as executions enter it
// (sequencer.Node implements it).
type Submitter interface {
	Submit(ctx context.Context, in []sequencer.Intake) ([]store.EnqueueResult, error)
}

// Records reads sequencer records: a FAILED execution's error
// (store.Store implements it).
type Records interface {
	Get(ctx context.Context, uid string) (store.Transaction, error)
}

// Driver defaults.
const (
	// DefaultWorkers is how many submissions run at once.
	DefaultWorkers = 32
	// DefaultDeliveryWorkers is how many callback deliveries run at once,
	// on their own workers: a slow receiver never holds up executions.
	DefaultDeliveryWorkers = 64
	// DefaultDeliveryTimeout bounds one callback delivery.
	DefaultDeliveryTimeout = 10 * time.Second
)

// Config configures a processor node.
type Config struct {
	// Store keeps the processors. Required.
	Store store.ProcessorStore
	// Sequencer takes executions. Required.
	Sequencer Submitter
	// Records reads a FAILED execution's error. Defaults to none (the
	// callback then says only that the transaction failed).
	Records Records
	// Chain gives heads (retry intervals in blocks, expirations by height)
	// and the events that carry callback confirmations. Defaults to none:
	// heights stay at 0 and only owners confirm.
	Chain chain.Chain
	// Clock defaults to the wall clock.
	Clock clock.Clock
	// Core tunes the core; zero fields take their defaults.
	Core CoreConfig
	// HTTP delivers callbacks. A callback URL is its processor owner's:
	// the node passes a client that dials only what its egress policy
	// allows (egress.Policy.Client), and a refused address is a failed
	// delivery, retried with backoff, its error naming the policy.
	// Defaults to a client with DeliveryTimeout and no egress policy.
	HTTP *http.Client
	// DeliveryTimeout bounds a delivery. Defaults to 10s.
	DeliveryTimeout time.Duration
	// Workers is how many submissions to the sequencer run at once.
	// Defaults to 32.
	Workers int
	// DeliveryWorkers is how many callback deliveries run at once, apart
	// from submissions. Defaults to 64.
	DeliveryWorkers int
	// OpenTick lets anyone tick (the seed's permissionless tick); false
	// makes a tick need the processor's owner. Defaults to true (see
	// SetOpenTick: the zero value of a bool cannot say so).
	OpenTick *bool
	// PollInterval is how often heads and events are read from a chain that
	// does not push heads. Defaults to 500ms.
	PollInterval time.Duration
	// Trace, when set, records every core built, input stepped and Ready
	// taken, for Replay (ordo replay). Defaults to nil (no trace).
	Trace io.Writer
	// Inline makes Turn perform effects itself, in order, and queue their
	// answers: a simulation turns the loop by hand. Defaults to false.
	Inline bool
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Metrics, when set, is updated after each commit. Defaults to nil.
	Metrics *Metrics
}

// Node is a running processor engine: its core behind a Loop, effect
// workers, a head watcher and a chain-event listener.
type Node struct {
	cfg Config
	log *slog.Logger
	srv *httpjson.Server // the API's server, set by Register
	tr  *traceWriter

	// slot holds the current Loop: Run may run again after it returned
	// (the engine standing by for its lease once more).
	slot *engine.Slot[*Loop]

	// contracts are the contract names the chain was found to know
	// (checkContracts).
	contracts sync.Map
}

// New checks cfg and returns a node; Open or Run builds its core.
func New(cfg Config) (*Node, error) {
	if cfg.Store == nil || cfg.Sequencer == nil {
		return nil, errors.New("processor: a store and a sequencer are required")
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.DeliveryTimeout <= 0 {
		cfg.DeliveryTimeout = DefaultDeliveryTimeout
	}
	if cfg.HTTP == nil {
		cfg.HTTP = &http.Client{Timeout: cfg.DeliveryTimeout}
	}
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	if cfg.DeliveryWorkers <= 0 {
		cfg.DeliveryWorkers = DefaultDeliveryWorkers
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 500 * time.Millisecond
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.OpenTick == nil {
		open := true
		cfg.OpenTick = &open
	}
	return &Node{cfg: cfg, log: cfg.Logger, slot: engine.NewSlot[*Loop](), tr: newTraceWriter(cfg.Trace)}, nil
}

// Open builds the core from the store (and the chain's head, when a chain
// answers) and returns its Loop. A second Open returns the same Loop, until
// a Run on it returns.
func (n *Node) Open(ctx context.Context) (*Loop, error) {
	return n.slot.Open(ctx, func(ctx context.Context) (*Loop, error) {
		core, err := n.newCore(ctx)
		if err != nil {
			return nil, err
		}
		return newLoop(n, core), nil
	})
}

func (n *Node) newCore(ctx context.Context) (*Core, error) {
	snap, err := n.cfg.Store.ProcessorSnapshot(ctx)
	if err != nil {
		return nil, fmt.Errorf("processor: load: %w", err)
	}
	var head uint64
	if n.cfg.Chain != nil {
		if h, err := n.cfg.Chain.Head(ctx); err == nil {
			head = h.Height
		} else {
			n.log.Warn("processor: chain head unknown at start; heights start at 0 until the next head", "err", err)
		}
	}
	now := n.cfg.Clock.Now().UTC()
	core, err := NewCore(n.cfg.Core, now, head, snap)
	if err != nil {
		return nil, fmt.Errorf("processor: load: %w", err)
	}
	n.tr.Start(n.cfg.Core, now, TraceStart{Head: head, Snapshot: snap})
	return core, nil
}

// Started is closed once Run has built the core and begun.
func (n *Node) Started() <-chan struct{} { return n.slot.Started() }

// Finished tells the processor a sequencer record ended (wire it to the
// sequencer's OnFinish). It never blocks.
func (n *Node) Finished(uid string, state store.TxState) {
	if l := n.currentLoop(); l != nil {
		l.Put(Finished(time.Time{}, uid, state == store.Done, ""))
	}
}

func (n *Node) currentLoop() *Loop { return n.slot.Current() }

// Run runs the engine until ctx ends: the loop on this goroutine, effects
// on a pool of workers, heads and events from the chain.
func (n *Node) Run(ctx context.Context) error {
	l, err := n.Open(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil // stopped while loading: a clean stop, the store is untouched
		}
		return err
	}
	defer n.slot.Forget(l) // stopped: the next Open builds a Loop from the store
	// The workers, the head watcher and the listener end with ctx: cancel
	// it before waiting for them (defers run last first), so that Run
	// returns when its loop fails, not only when its caller stops it.
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	submits, deliveries := make(chan Effect, 1<<12), make(chan Effect, 1<<12)
	for ch, k := range map[chan Effect]int{submits: n.cfg.Workers, deliveries: n.cfg.DeliveryWorkers} {
		for range k {
			wg.Go(func() {
				for e := range ch {
					l.Put(n.perform(ctx, e))
				}
			})
		}
	}
	defer close(submits)
	defer close(deliveries)
	if c := n.cfg.Chain; c != nil {
		wg.Go(func() {
			for h := range chain.WatchHeads(ctx, c, n.cfg.Clock, n.cfg.PollInterval) {
				l.Put(Head(time.Time{}, h.Height))
			}
		})
		lis := n.listener(l)
		wg.Go(func() {
			if err := lis.Run(ctx); err != nil && ctx.Err() == nil {
				n.log.Error("processor: event listener stopped", "err", err)
			}
		})
	}
	n.slot.MarkStarted()
	return l.run(ctx, submits, deliveries)
}

// listener reads callback confirmations from the chain, after the cursor
// the core holds; each page commits with its cursor (Loop.Do waits for the
// commit).
func (n *Node) listener(l *Loop) *chainevents.Listener {
	return &chainevents.Listener{Chain: n.cfg.Chain, Clock: n.cfg.Clock, From: l.core.Cursor(), PollInterval: n.cfg.PollInterval,
		Logger: n.log, Filter: func(e chain.Event) bool { return e.Name == ConfirmEvent },
		Handler: func(ctx context.Context, evs []chain.Event, next uint64) error {
			rep, err := l.Do(ctx, Events(time.Time{}, next, ConfirmsOf(evs)))
			if err == nil && rep.Code != "" {
				err = fmt.Errorf("processor: events: %s", rep.Message)
			}
			return err
		}}
}

// ConfirmsOf reads the callback confirmations events carry (event
// ConfirmEvent, data {executionId, success}); other events and malformed
// data are skipped.
func ConfirmsOf(evs []chain.Event) []Confirm {
	var out []Confirm
	for _, e := range evs {
		if e.Name != ConfirmEvent {
			continue
		}
		var d struct {
			ExecutionID string `json:"executionId"`
			Success     bool   `json:"success"`
		}
		if json.Unmarshal(e.Data, &d) != nil || d.ExecutionID == "" {
			continue
		}
		out = append(out, Confirm{Contract: e.Contract, Exec: d.ExecutionID, Success: d.Success})
	}
	return out
}
