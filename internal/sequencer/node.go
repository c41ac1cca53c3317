package sequencer

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/mailbox"
	"github.com/ordolabs/ordo/internal/store"
)

// SenderConfig is one sender: a key in the node's keystore, or a remote
// worker that holds the key.
type SenderConfig struct {
	// ID is the account address.
	ID chain.Address
	// Key signs for the sender, in the scheme of the chain's Signer
	// (chain.SignerOf); nil when Worker is set.
	Key chain.Key
	// Worker is the remote worker URL, recorded with the sender; Remote is
	// its client. Both are set for a worker sender, neither for a keystore
	// one.
	Worker string
	// Remote is the client of the remote worker at Worker.
	Remote Worker
}

// Config configures a sequencer node.
type Config struct {
	Store store.Store
	Chain chain.Chain
	// Clock defaults to the wall clock.
	Clock clock.Clock
	// Dispatchers by transaction type. Every allowed type needs one.
	Dispatchers map[string]Dispatcher
	// AllowedTypes are the types intake accepts. Defaults to the keys of
	// Dispatchers.
	AllowedTypes []string
	// EngineTypes are those of AllowedTypes that the node's engines submit
	// in process (the generic contract calls): intake takes them, but its
	// refusals do not list them to callers, who may not use them. Defaults
	// to none.
	EngineTypes []string
	// Policies override a type's retry policy (zero fields keep defaults:
	// MaxRetries from the dispatcher, Delay 5s).
	Policies map[string]Policy
	// Fees sets attempt fees.
	Fees FeePolicy
	// InclusionTimeout in blocks. Defaults to 5.
	InclusionTimeout uint64
	// Confirmations before DONE. Defaults to 0: the chain's declared reorg
	// depth plus one (see CoreConfig).
	Confirmations uint64
	// Senders are the node's senders.
	Senders []SenderConfig
	// Pins pin queues to senders: queue name → sender id (one of Senders).
	// A pinned queue is sent only by its sender; a pinned sender serves only
	// its queues. See CoreConfig.Pins. Defaults to none; SetPins replaces
	// them before Run.
	Pins map[string]string
	// Gated are queues that start closed: they take no new transaction
	// until Gate opens them (see InputGate). Defaults to none.
	Gated []string
	// Pipelines is the in-flight-per-queue policy: queues whose name starts
	// with a rule's Prefix (longest prefix wins) may have up to its InFlight
	// transactions in flight, nonce-ordered on one sender. See
	// CoreConfig.Pipelines. Defaults to none: one per queue.
	Pipelines []Pipeline
	// WaitingWindow is how many WAITING transactions per queue the core
	// keeps in memory (CoreConfig.WaitingWindow). Defaults to
	// DefaultWaitingWindow, or fewer at a start over many queues with
	// WAITING transactions and no Pipelines: WaitingBudget shared among
	// them, at least MinWaitingWindow each (a start over 100,000 queues
	// keeps 2 a queue, not 64).
	WaitingWindow int
	// Workers is how many effects run at once. Defaults to 64. Loads of
	// WAITING transactions (EffectLoad) have their own Workers/4 (at least
	// one) beside them, so that they never hold up the other effects.
	Workers int
	// PollInterval is the head polling interval for chains without push
	// notifications. Defaults to 500ms.
	PollInterval time.Duration
	// SenderPoll is how often the senders' accounts are read for their
	// metrics (balance, nonces, low balance). Defaults to
	// DefaultSenderPoll (15s).
	SenderPoll time.Duration
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Metrics, when set, is updated as the node runs.
	Metrics *Metrics
	// Intake are intake's configurable limits (CheckIntake). Zero fields
	// take their defaults.
	Intake IntakeRules
	// Schemas are JSON Schemas of types' data, by type: intake refuses data
	// that fails its type's schema. A type's entry here overrides what its
	// dispatcher declares (DataSchema); a type with neither takes any JSON.
	// Defaults to none.
	Schemas map[string]json.RawMessage
	// Inline makes the loop perform effects itself, in order, after each
	// commit, instead of handing them to a pool of workers: a simulation
	// turns the loop by hand (see Loop). Defaults to false.
	Inline bool
	// Trace, when set, records every input the loop steps and every Ready it
	// takes, for Replay. Defaults to nil (no trace).
	Trace io.Writer
	// Rand is the source of the random part of record ids. Defaults to
	// crypto/rand; a simulation passes a seeded source.
	Rand io.Reader
	// OnFinish, when set, is called from the run loop as each transaction
	// ends DONE or FAILED, with the blocks from its first dispatch to then.
	OnFinish func(uid string, state store.TxState, blocks uint64)
	// Owner, when set, limits the node to the queues and senders whose
	// leases it holds (several nodes on one store; see owner.go). Defaults
	// to nil: the node processes every queue and uses every sender.
	Owner Owner
}

// Node is a running sequencer: intake, the run cycle and its effects.
type Node struct {
	cfg     Config
	allowed map[string]bool
	keys    map[string]chain.Key
	signer  chain.Signer
	workers map[string]Worker
	inputs  *mailbox.Mailbox[Input]
	effects chan Effect
	log     *slog.Logger
	uidSeq  uidSource
	trace   *traceWriter
	schemas schemas
	started chan struct{}
	// startOnce closes started at the first loop's start (Run may start
	// over: owner.go).
	startOnce sync.Once
	// held is what the current core was built on (Config.Owner).
	held     atomic.Pointer[Held]
	dispHead map[string]uint64
	// atCap: the transactions pending at the fee cap (watchFeeCap).
	atCap map[string]bool
	// gas: each sender's largest gas limit seen (driver_senders.go).
	gas      gasSeen
	stopped  chan struct{}
	runErr   error
	public   []string      // AllowedTypes without EngineTypes: what a refusal lists
	intake   atomic.Int64  // records created by Submit
	full     atomic.Bool   // the store refused the latest write for want of room (full.go)
	fullWait time.Duration // the wait after a full store, doubling (loop only)
	begun    int64         // records that left WAITING (loop only)
	// pins are Config.Pins, or those of SetPins: read when a core is built.
	pins atomic.Pointer[map[string]string]
	// commits wakes the change feed's readers (Committed).
	commits commitSignal
}

// NewNode checks cfg and builds a node. Every allowed type must have a
// dispatcher.
func NewNode(cfg Config) (*Node, error) {
	if cfg.Store == nil || cfg.Chain == nil {
		return nil, errors.New("sequencer: a store and a chain are required")
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	if cfg.SenderPoll <= 0 {
		cfg.SenderPoll = DefaultSenderPoll
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	if err := cfg.Intake.Validate(); err != nil {
		return nil, fmt.Errorf("sequencer: intake: %w", err)
	}
	cfg.Intake = cfg.Intake.withDefaults()
	cfg.Fees.SetDefaults() // as the core's (watchFeeCap reads Max)
	var n0public []string
	if len(cfg.AllowedTypes) == 0 {
		for t := range cfg.Dispatchers {
			cfg.AllowedTypes = append(cfg.AllowedTypes, t)
		}
	}
	cfg.AllowedTypes = append([]string(nil), cfg.AllowedTypes...)
	sort.Strings(cfg.AllowedTypes)
	for _, t := range cfg.AllowedTypes {
		if !slices.Contains(cfg.EngineTypes, t) {
			n0public = append(n0public, t)
		}
	}
	n := &Node{cfg: cfg, allowed: map[string]bool{}, keys: map[string]chain.Key{}, signer: chain.SignerOf(cfg.Chain), workers: map[string]Worker{},
		inputs: mailbox.New[Input](), effects: make(chan Effect, effectBuffer), log: cfg.Logger, started: make(chan struct{}), stopped: make(chan struct{}), dispHead: map[string]uint64{}, atCap: map[string]bool{}, gas: gasSeen{max: map[string]uint64{}},
		uidSeq: uidSource{r: cfg.Rand}, trace: newTraceWriter(cfg.Trace), public: n0public}
	allRemote := len(cfg.Senders) > 0
	for _, s := range cfg.Senders {
		allRemote = allRemote && s.Worker != ""
	}
	var missing, unsigned []string
	for _, t := range cfg.AllowedTypes {
		n.allowed[t] = true
		d := cfg.Dispatchers[t]
		if d == nil {
			missing = append(missing, t)
		} else if _, ok := d.(Builder); !ok && !allRemote {
			unsigned = append(unsigned, t)
		}
	}
	sch, err := compileSchemas(cfg.AllowedTypes, cfg.Dispatchers, cfg.Schemas)
	if err != nil {
		return nil, fmt.Errorf("sequencer: %w", err)
	}
	n.schemas = sch
	if len(unsigned) > 0 {
		// A keystore sender's attempt must have its hash committed before
		// it is sent (else a timeout could hide a sent attempt and a retry
		// apply the intent twice): the driver signs, so it needs a Builder.
		return nil, fmt.Errorf("sequencer: the dispatchers of %s are not Builders; keystore senders need one (or use remote workers only)", strings.Join(unsigned, ", "))
	}
	if len(missing) > 0 && !allRemote {
		// Remote workers dispatch any type; a keystore sender needs an
		// in-process dispatcher for each.
		return nil, fmt.Errorf("sequencer: allowed types without a dispatcher: %s", strings.Join(missing, ", "))
	}
	if len(cfg.Senders) == 0 {
		return nil, errors.New("sequencer: at least one sender is required")
	}
	for _, s := range cfg.Senders {
		switch {
		case s.Worker != "" && s.Remote != nil:
			n.workers[string(s.ID)] = s.Remote
		case s.Key != nil:
			if a, err := n.signer.Address(s.Key); err != nil {
				return nil, fmt.Errorf("sequencer: sender %s: %w", s.ID, err)
			} else if a != s.ID {
				return nil, fmt.Errorf("sequencer: sender %s: its %s key signs for %s", s.ID, n.signer.Scheme(), a)
			}
			n.keys[string(s.ID)] = s.Key
		default:
			return nil, fmt.Errorf("sequencer: sender %s has neither a key nor a worker", s.ID)
		}
	}
	if err := checkPins(cfg.Pins, func(id string) bool {
		return slices.ContainsFunc(cfg.Senders, func(s SenderConfig) bool { return string(s.ID) == id })
	}); err != nil {
		return nil, fmt.Errorf("sequencer: %w", err)
	}
	n.pins.Store(&cfg.Pins)
	if err := CheckPipelines(cfg.Pipelines); err != nil {
		return nil, fmt.Errorf("sequencer: %w", err)
	}
	cfg.Store.SetOnEnqueued(n.enqueued) // new records reach the core in Seq order
	return n, nil
}

// SetPins replaces Config.Pins, checked as NewNode checks them: a node
// that learns its pins late (the leader's channels, read once its chain
// answers) sets them before Run. A core reads the pins when it is built
// (at Run, and at each reload from the store): a core already running
// keeps those it was built with.
func (n *Node) SetPins(pins map[string]string) error {
	if err := checkPins(pins, func(id string) bool {
		return slices.ContainsFunc(n.cfg.Senders, func(s SenderConfig) bool { return string(s.ID) == id })
	}); err != nil {
		return fmt.Errorf("sequencer: %w", err)
	}
	pins = maps.Clone(pins)
	n.pins.Store(&pins)
	return nil
}

// AllowedTypes returns the types intake accepts, sorted.
func (n *Node) AllowedTypes() []string { return append([]string(nil), n.cfg.AllowedTypes...) }

// Store returns the node's store, for reads.
func (n *Node) Store() store.Store { return n.cfg.Store }

// Gate closes queue (closed) or opens it again: a closed queue takes no
// new transaction, what it has in flight settles as usual (InputGate). It
// takes effect at the loop's next turn; a restart forgets it (Config.Gated
// says which queues start closed).
func (n *Node) Gate(queue string, closed bool) {
	n.inputs.Put(Input{Kind: InputGate, Queue: queue, Closed: closed})
}

// enqueued hands committed transactions to the core, and counts them.
func (n *Node) enqueued(created []store.Transaction) {
	n.intake.Add(int64(len(created)))
	n.inputs.Put(Input{Kind: InputEnqueued, Txs: created})
	if m := n.cfg.Metrics; m != nil {
		m.Intake.Add(float64(len(created)))
	}
}

// canReadBlocks reports whether receipts can come from reading new blocks.
func canReadBlocks(c chain.Chain) bool {
	_, ok := c.(chain.BlockReader)
	return ok
}

// Started is closed once Run has loaded the store and begun the run cycle.
func (n *Node) Started() <-chan struct{} { return n.started }

// Stopped is closed when Run has returned; Err then tells why.
func (n *Node) Stopped() <-chan struct{} { return n.stopped }

// Err returns the error Run stopped with, nil while it runs or after a clean
// stop.
func (n *Node) Err() error {
	select {
	case <-n.stopped:
		return n.runErr
	default:
		return nil
	}
}

// Run runs the sequencer until ctx ends. A store failure stops it with an
// error: nothing is acknowledged that was not committed, and a restart
// resumes from the store. A full store (store.ErrStorageFull) does not
// stop it, nor a chain that does not answer while it loads (at a start or
// a reload): it waits and loads again from the store (full.go). With an Owner, a change of the leases held or a
// fenced commit starts the loop over from the store (owner.go).
func (n *Node) Run(ctx context.Context) (err error) {
	defer func() {
		n.runErr = err
		close(n.stopped)
	}()
	for {
		err := n.runLoop(ctx)
		if errors.Is(err, store.ErrStorageFull) && ctx.Err() == nil {
			err = n.waitForRoom(ctx, err)
		}
		if errors.Is(err, errChainDown) && ctx.Err() == nil {
			err = n.waitForChain(ctx, err)
		}
		if !errors.Is(err, errReload) || ctx.Err() != nil {
			return err
		}
		n.drain()
		if n.cfg.Metrics != nil {
			n.cfg.Metrics.Reloads.Inc()
		}
	}
}

// runLoop runs one core until ctx ends, it fails, or it must be rebuilt
// (errReload).
func (n *Node) runLoop(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	l, err := n.Open(ctx)
	if errors.Is(err, store.ErrFenced) {
		// A lease lost before the owner noticed: wait for it to.
		n.log.Warn("sequencer: start fenced (a lease was lost): waiting for the leases to change", "err", err)
		t := n.cfg.Clock.NewTimer(time.Second)
		defer t.Stop()
		select {
		case <-n.ownerChanged():
		case <-ctx.Done():
		case <-t.C():
		}
		return errReload
	}
	if err != nil {
		return err // a full store: Run waits for room (full.go)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	defer l.wait() // no commit of this core may still be under way when the next one loads
	for range n.cfg.Workers {
		wg.Go(func() { n.work(ctx, l) })
	}
	loads := newLoadQueue()
	for range loadWorkers(n.cfg.Workers) {
		wg.Go(func() { n.workLoads(ctx, l, loads) })
	}
	wg.Go(func() { n.watchHeads(ctx, l) })
	if n.cfg.Metrics != nil {
		wg.Go(func() { n.watchSenders(ctx) })
	}
	n.startOnce.Do(func() { close(n.started) })
	var timer clock.Timer
	var timerAt time.Time
	for {
		effects, err := l.Turn(ctx)
		if errors.Is(err, store.ErrFenced) {
			n.log.Warn("sequencer: a commit was fenced (a lease was lost): starting over from the store", "err", err)
			return errReload
		}
		if errors.Is(err, store.ErrStorageFull) {
			return err // Run waits for room, once this core has stopped (full.go)
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		for _, e := range effects {
			if e.Kind == EffectLoad {
				loads.put(e)
				continue
			}
			select {
			case n.effects <- e:
			case <-ctx.Done():
				return nil
			}
		}
		if dl := l.Deadline(); !dl.IsZero() && (timer == nil || !dl.Equal(timerAt)) {
			if timer != nil {
				timer.Stop()
			}
			timer, timerAt = n.cfg.Clock.NewTimer(max(dl.Sub(n.cfg.Clock.Now()), 0)), dl
		}
		var timerC <-chan time.Time
		if timer != nil {
			timerC = timer.C()
		}
		select {
		case <-ctx.Done():
			return nil
		case <-n.ownerChanged():
			n.log.Info("sequencer: the leases held changed: starting over from the store")
			return errReload
		case <-n.inputs.Signal():
		case <-l.Committed():
		case <-timerC:
			timer = nil
			l.Put(Input{Kind: InputTick})
		}
	}
}

// newCore records the start of a core in the trace and builds it.
func (n *Node) newCore(cfg CoreConfig, now time.Time, snap Snapshot) (*Core, error) {
	n.trace.Start(cfg, now, snap)
	return NewCore(cfg, now, snap)
}
