package smm

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"github.com/prometheus/client_golang/prometheus"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/jobq"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/transport"
)

// Store is what the state machine manager needs of the node's store: the
// replication log and replica sets, the sequencer's records (to wait for
// its own replica-set updates) and the job queue's jobs.
type Store interface {
	store.ReplicaStore
	store.JobStore
	Get(ctx context.Context, uid string) (store.Transaction, error)
}

// Sequencer takes intents on this node and dispatches them (sequencer.Node
// does).
type Sequencer interface {
	Submit(ctx context.Context, in []sequencer.Intake) ([]store.EnqueueResult, error)
	// Gate closes a queue's dispatch (closed) or opens it again: a
	// deposed primary's queue is closed, an adopted one opened.
	Gate(queue string, closed bool)
}

// Registry is the endpoint → node id mapping (the chain's nodes registry).
type Registry interface {
	Refresh(ctx context.Context) error
	IDs() []transport.NodeID
}

// NodeConfig assembles a Node.
type NodeConfig struct {
	// Config is the replication's configuration (defaults applied here).
	Config Config
	// Key is this node's identity key: it signs replica-set updates, and
	// its node id is Transport.Self().
	Key       ed25519.PrivateKey
	Store     Store
	Transport transport.Transport
	Chain     chain.Chain
	Sequencer Sequencer
	Registry  Registry
	// Sets is how the chain's replica sets are read and written (nil:
	// devchain's replicasets contract, DevchainSets).
	Sets SetsBinding
	// Allow checks that a forwarded intent's principal may submit its type
	// on this node (nil: allowed).
	Allow func(principal, typ string) error
	// Clock defaults to clock.Real; Logger to slog.Default().
	Clock  clock.Clock
	Logger *slog.Logger
	// Servers is how many requests from other nodes are served at once.
	// Defaults to 8.
	Servers int
	// NewJobID makes job ids (tests and simulations); defaults to jobq's.
	NewJobID func() int64
	// Registerer receives the metrics (nil: not registered).
	Registerer prometheus.Registerer
	// Trace, when set, receives the core's trace (ordo replay checks it).
	Trace io.Writer
	// Sequential is for simulations: ask nodes one at a time in id order,
	// insert jobs one at a time in order (monitoring's heads and a step's
	// inserts otherwise go out at once).
	Sequential bool
}

// Node is the state machine manager of one node: the replication of the
// queues it is a member of (intake routed to primaries, the log pushed to
// and pulled by secondaries), and the monitoring, reconciliation,
// manual-sync and replica-set-update jobs on the kernel's job queue.
type Node struct {
	cfg   NodeConfig
	c     Config
	self  string
	rpc   *rpc
	jobs  *jobq.Node
	clock clock.Clock
	log   *slog.Logger
	m     *Metrics

	// mu guards the core and the driver's maps below.
	mu        sync.Mutex
	core      *Core
	tr        *traceWriter
	ackWake   chan struct{} // closed and renewed at each acknowledgement (EffectAcked)
	locks     map[string]*sync.Mutex
	onSynced  func(queue, secondary string, lag time.Duration)
	finishing map[string]chan struct{} // sequencer records a writeSet waits for
	cycleList []store.ReplicaSet       // the sets of the monitoring cycle under way
	load      map[string]int           // loads: sets per node, as of loadAt
	loadAt    time.Time
	waiting   map[string]map[uint64]context.CancelFunc // requests to a node, cancelled when it is found unhealthy
	waitSeq   uint64
}

// SetOnSynced has f called for each intent a manual sync got a secondary
// to hold, with the time from its commit on the primary (benchmarks). Set
// it before Run.
func (n *Node) SetOnSynced(f func(queue, secondary string, lag time.Duration)) { n.onSynced = f }

// cycleStats is monitoring's progress.
type cycleStats struct {
	Started  time.Time
	Last     time.Duration
	Offset   int
	Slice    []string
	Cycles   int
	Finished time.Time
}

// ErrForbidden is a forwarded intent refused by the primary's rules for
// its principal.
var ErrForbidden = errors.New("smm: the primary refuses this principal's intent")

// ErrUnavailable is intake for a queue that cannot be served now (its
// primary unreachable, a failover in progress): retry later with the same
// idempotency key.
var ErrUnavailable = errors.New("smm: queue unavailable")

// New returns a Node; Open it, then Run it.
func New(cfg NodeConfig) (*Node, error) {
	if cfg.Store == nil || cfg.Transport == nil || cfg.Chain == nil || cfg.Sequencer == nil || cfg.Registry == nil || cfg.Key == nil {
		return nil, errors.New("smm: store, transport, chain, sequencer, registry and key are required")
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Sets == nil {
		cfg.Sets = DevchainSets{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Servers <= 0 {
		cfg.Servers = 8
	}
	n := &Node{cfg: cfg, c: cfg.Config.WithDefaults(), self: string(cfg.Transport.Self()), clock: cfg.Clock, log: cfg.Logger, m: NewMetrics(cfg.Registerer),
		waiting: map[string]map[uint64]context.CancelFunc{},
		ackWake: make(chan struct{}), finishing: map[string]chan struct{}{}, locks: map[string]*sync.Mutex{}}
	ccfg, now := CoreConfigOf(n.self, n.c), cfg.Clock.Now()
	core, err := NewCore(ccfg, now, Snapshot{})
	if err != nil {
		return nil, err
	}
	n.core, n.tr = core, newTraceWriter(cfg.Trace)
	n.tr.Start(ccfg, now, Snapshot{})
	n.rpc = newRPC(cfg.Transport, 4*cfg.Servers)
	jcore := jobq.CoreConfig{Queues: jobq.SMMQueues(), Periodic: []jobq.PeriodicJob{
		{Name: KindRefreshMapping, Queue: jobq.QueueMonitoring, Kind: KindRefreshMapping, Every: n.c.MappingEvery, MaxAttempts: 1},
	}, BackoffBase: time.Second}
	jobs, err := jobq.New(jobq.Config{Store: cfg.Store, Core: jcore, Clock: cfg.Clock, Log: cfg.Logger, NewID: cfg.NewJobID})
	if err != nil {
		return nil, fmt.Errorf("smm: job queue: %w", err)
	}
	n.jobs = jobs
	n.registerJobs()
	cfg.Store.SetReplicaSelf(n.self)
	return n, nil
}

// Self is this node's id.
func (n *Node) Self() string { return n.self }

// Handle takes one of the state machine manager's messages from the
// transport (IsMessage); it never blocks.
func (n *Node) Handle(m transport.Message) { n.rpc.handle(m) }

// Open reads the registry and the replica sets naming this node from the
// chain (the queues it has become primary of are adopted by their next
// job or intake), and starts the job
// queue's state (monitoring's first slice is inserted when none is
// waiting).
func (n *Node) Open(ctx context.Context) error {
	if err := n.rebuild(ctx); err != nil {
		return err
	}
	if err := n.refreshMapping(ctx); err != nil {
		n.log.Warn("smm: node registry not read at start", "err", err)
	}
	if err := n.refreshSets(ctx); err != nil {
		n.log.Warn("smm: replica sets not read at start", "err", err)
	}
	if err := n.jobs.Open(ctx); err != nil {
		return fmt.Errorf("smm: job queue: %w", err)
	}
	return nil
}

// rebuild builds the core again from the sets the store holds
// (Snapshot).
func (n *Node) rebuild(ctx context.Context) error {
	sets, err := n.cfg.Store.ReplicaSets(ctx)
	if err != nil {
		return fmt.Errorf("smm: the held replica sets: %w", err)
	}
	snap := Snapshot{Sets: make([]ReplicaSet, len(sets))}
	for i, s := range sets {
		snap.Sets[i] = asCore(s)
	}
	ccfg, now := CoreConfigOf(n.self, n.c), n.clock.Now()
	core, err := NewCore(ccfg, now, snap)
	if err != nil {
		return err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.core = core
	n.tr.Start(ccfg, now, snap)
	return nil
}

// Run serves other nodes' requests and runs the jobs until ctx ends.
func (n *Node) Run(parent context.Context) error {
	ctx, cancel := context.WithCancel(parent)
	var wg sync.WaitGroup
	defer wg.Wait() // after cancel: defers run last first
	defer cancel()
	for range n.cfg.Servers {
		wg.Go(func() { n.serveLoop(ctx) })
	}
	errc := make(chan error, 1)
	wg.Go(func() { errc <- n.jobs.Run(ctx) })
	if err := n.startMonitoring(ctx); err != nil && ctx.Err() == nil {
		n.log.Warn("smm: monitoring not started", "err", err)
	}
	var err error
	select {
	case err = <-errc:
	case <-ctx.Done():
		err = <-errc
	}
	n.mu.Lock()
	terr := n.tr.Flush()
	n.mu.Unlock()
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return errors.Join(err, terr)
}

// startMonitoring inserts the first monitor-state unless one is live
// (each monitor-state inserts the next: one chain of them at a time).
func (n *Node) startMonitoring(ctx context.Context) error {
	live, err := n.cfg.Store.LiveJobs(ctx)
	if err != nil {
		return err
	}
	for _, j := range live {
		if j.Kind == KindMonitorState {
			return nil
		}
	}
	_, _, err = n.insert(ctx, KindMonitorState, jobq.QueueMonitoring, monitorArgs{}, "", time.Time{})
	return err
}

// serveLoop is one server worker.
func (n *Node) serveLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case in := <-n.rpc.serve:
			rctx, cancel := context.WithTimeout(ctx, n.c.SyncTimeout)
			resp := n.serve(rctx, in.from, in.req)
			cancel()
			resp.Id = in.req.Id
			n.rpc.reply(ctx, in.from, resp)
		}
	}
}

// lock returns the mutex that serializes the set changes of one queue.
func (n *Node) lock(queue string) *sync.Mutex {
	n.mu.Lock()
	defer n.mu.Unlock()
	l := n.locks[queue]
	if l == nil {
		l = &sync.Mutex{}
		n.locks[queue] = l
	}
	return l
}

// sleep waits d on the node's clock, or ctx.
func (n *Node) sleep(ctx context.Context, d time.Duration) error { return n.sleepOrWake(ctx, d, nil) }

// sleepOrWake waits d on the node's clock, or until wake is closed, or
// ctx.
func (n *Node) sleepOrWake(ctx context.Context, d time.Duration, wake <-chan struct{}) error {
	t := n.clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C():
		return nil
	case <-wake:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// markHealthAt records whether node answered a request made at asked: an
// unanswered one counts from when it was asked, not from its timeout.
func (n *Node) markHealthAt(node string, ok bool, asked time.Time) {
	// Answered asks for no job: its effects need no context.
	_, _ = n.step(context.Background(), Answered(node, asked, ok))
}

// untilLost returns ctx cancelled once node is found unhealthy (at once
// when it is already: a request to it waits no longer), and the function
// that stops watching.
func (n *Node) untilLost(ctx context.Context, node string) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	n.mu.Lock()
	defer n.mu.Unlock()
	if since, _ := n.core.UnhealthySince(node); !since.IsZero() {
		cancel()
		return ctx, cancel
	}
	n.waitSeq++
	id := n.waitSeq
	if n.waiting[node] == nil {
		n.waiting[node] = map[uint64]context.CancelFunc{}
	}
	n.waiting[node][id] = cancel
	return ctx, func() {
		n.mu.Lock()
		delete(n.waiting[node], id)
		if len(n.waiting[node]) == 0 {
			delete(n.waiting, node)
		}
		n.mu.Unlock()
		cancel()
	}
}

// unhealthySince is when node stopped answering (zero: healthy or never
// probed) and whether it was probed.
func (n *Node) unhealthySince(node string) (time.Time, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.core.UnhealthySince(node)
}
