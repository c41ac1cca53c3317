package node

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"github.com/ordolabs/ordo/internal/smm"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/ordolabs/ordo/internal/api"
	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/fslock"
	"github.com/ordolabs/ordo/internal/leader"
	"github.com/ordolabs/ordo/internal/processor"
	"github.com/ordolabs/ordo/internal/ptx"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/ui"
)

// Node is an assembled node, ready to Run.
type Node struct {
	Config    Config
	Sequencer *sequencer.Node
	// Processor is the processor engine (seed 002).
	Processor *processor.Node
	// Leader is the leader engine (seed 001), nil when leader.accounts is
	// empty.
	Leader *leader.Node
	// Distseq is the distributed sequencer (nil unless configured).
	Distseq *Distseq
	// SMM is the state machine manager (nil unless replication is on).
	SMM   *smm.Node
	Chain chain.Chain
	// Devchain is the in-process devchain, nil with a remote chain.
	Devchain *devchain.Chain
	// closeChain closes an EVM backend's connections (nil otherwise).
	closeChain func()
	Handler    http.Handler
	// Router is the API's router, every route with its rule (Routes).
	Router   *auth.Router
	Registry *prometheus.Registry
	store    Store
	// leases are this node's leases on a shared PostgreSQL store (nil on
	// the embedded one).
	leases *leaseKeeper
	log    *slog.Logger
	lock   *fslock.Lock
	trace  *os.File
	// gate holds the engines until the node has reached its chain and the
	// store has taken its identity (startup.go).
	gate *chainGate
	// traces are the engines' trace files (Options.Trace + ".processor",
	// ".leader").
	traces []*os.File
	// devAddrs are the dev senders' addresses (fundDevSenders).
	devAddrs []chain.Address
	// regAccount is the sender this node registers from on an EVM chain
	// (pinRegistration), "" elsewhere.
	regAccount string
	// stopGate refuses requests that may change state once the node stops
	// (shutdown.go); clock is the node's (Options.Clock).
	stopGate *api.Drain
	// streams ends the change streams (GET /v1/changes) at shutdown.
	streams *api.Streams
	clock   clock.Clock
	// reaper prunes finished records (Config.Retention), nil when off.
	reaper *reaper
	// sampler keeps the history of the node's figures (Config.Dashboard).
	sampler *sampler
}

// Options are what a caller adds to a Config when building a node.
type Options struct {
	Logger *slog.Logger
	Clock  clock.Clock
	// OnFinish is passed to the sequencer.
	OnFinish func(uid string, state store.TxState, blocks uint64)
	// Workers is the sequencer's effect workers. Defaults to 64.
	Workers int
	// Trace, when not empty, is a file the sequencer appends its trace to
	// (every input and Ready, for `ordo replay`). Defaults to "" (none).
	Trace string
	// Engines mount their routes on the node's API, each with its rule,
	// after the sequencer's and the devchain's. Defaults to none.
	Engines []api.Routes
}

// submitterAuthorizer is implemented by an EVM backend with a faucet key:
// it lets a dev sender submit through the router.
type submitterAuthorizer interface {
	AuthorizeSubmitter(ctx context.Context, addr chain.Address) error
}

// faucet is implemented by devchain handles in dev mode.
type faucet interface {
	Faucet(ctx context.Context, addr chain.Address, amount uint64) (chain.Account, error)
}

// Build assembles a node from cfg (defaults applied here).
func Build(ctx context.Context, cfg Config, o Options) (*Node, error) {
	cfg.SetDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if err := cfg.Health.Check(); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if err := checkStoreChain(cfg); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if err := os.MkdirAll(cfg.Data, 0o755); err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	lock, err := fslock.Acquire(cfg.Data)
	if err != nil {
		return nil, fmt.Errorf("node: %w", err)
	}
	n := &Node{Config: cfg, Registry: prometheus.NewRegistry(), log: o.Logger, lock: lock, gate: newChainGate(o.Clock, o.Logger, cfg.Chain), stopGate: &api.Drain{}, streams: &api.Streams{}, clock: o.Clock}
	n.Registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	chainDown := false // a remote chain that does not answer yet (startup.go)
	if cfg.EVM.enabled() {
		b, err := evmChain(ctx, cfg.EVM, o)
		if err != nil {
			n.Close()
			return nil, err
		}
		n.Chain, n.closeChain = b, b.Close
	} else if cfg.Chain == "" {
		dc, err := devchain.New(devchain.Config{Seed: cfg.Devchain.Seed, BlockTime: time.Duration(cfg.Devchain.BlockTime), MaxBlockTxs: cfg.Devchain.MaxBlockTxs,
			DataDir: filepath.Join(cfg.Data, "devchain"), Faults: cfg.Devchain.Faults.Update(), Clock: o.Clock, DevAccounts: 16})
		if err != nil {
			n.Close()
			return nil, err
		}
		n.Chain, n.Devchain = dc, dc
	} else {
		n.Chain = devchain.NewClient(cfg.Chain, nil)
		if err := reachable(ctx, n.Chain, cfg.Chain); err != nil {
			chainDown = true
			n.withoutChain(err)            // startup.go
			n.gate.fund = n.fundDevSenders // once it answers
		}
	}
	senders, keys, err := n.senders(ctx)
	if err != nil {
		n.Close()
		return nil, err
	}
	st, err := openStore(ctx, cfg)
	if err != nil {
		n.Close()
		return nil, err
	}
	n.store = st
	if n.leases, err = n.shared(st, senders, o); err != nil {
		n.Close()
		return nil, err
	}
	// The chain the sequencer and its dispatchers use is metered: call
	// latency and errors, the head and its age, and whether the chain
	// answers (logged, and reported by /healthz).
	metered := chain.NewMetered(n.Chain, chain.MeteredOptions{Registerer: n.Registry, Clock: o.Clock, Logger: o.Logger})
	dispatchers := map[string]sequencer.Dispatcher{}
	policies := map[string]sequencer.Policy{}
	allWorkers := true // every sender is a remote worker, which dispatches every type
	for _, s := range senders {
		allWorkers = allWorkers && s.Worker != ""
	}
	for _, t := range cfg.AllowedTypes {
		tc := cfg.Types[t]
		p := sequencer.Policy{MaxRetries: cmp.Or(tc.MaxRetries, cfg.MaxRetries), Delay: time.Duration(cmp.Or(tc.RetryDelay, cfg.RetryDelay))}
		policies[t] = p
		if tc.Worker != "" {
			dispatchers[t] = dispatch.NewTypeWorker(tc.Worker, time.Duration(cfg.WorkerTimeout), t, p.MaxRetries)
			continue
		}
		d, err := dispatch.NewZkAppDispatcher(t, p.MaxRetries, metered, func(id string) chain.Key { return keys[id] })
		if err != nil {
			if allWorkers {
				continue
			}
			n.Close()
			return nil, fmt.Errorf("allowed type %s has no dispatcher: it is not a built-in type (%s), it has no worker (types.%s.worker: the URL of a remote worker that builds it) and not every sender is a worker sender; configure one, or remove it from allowedTypes",
				t, strings.Join(dispatch.BuiltinTypes(), ", "), t)
		}
		dispatchers[t] = d
	}
	seqTypes := engineTypes(cfg.AllowedTypes, dispatchers, policies, metered, keys)
	m := sequencer.NewMetrics(n.Registry)
	var trace io.Writer
	if o.Trace != "" {
		if n.trace, err = os.OpenFile(o.Trace, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err != nil {
			n.Close()
			return nil, fmt.Errorf("trace: %w", err)
		}
		trace = n.trace
	}
	var channels []string
	var pins map[string]string
	if chainDown && len(cfg.Leader.Accounts) > 0 {
		// The leader's channels are read from the chain's caps once it
		// answers, before the sequencer and the leader run (startup.go);
		// what needs no chain is checked now.
		if err := n.leaderAccounts(keys); err != nil {
			n.Close()
			return nil, err
		}
		if _, err := pinReplication(cfg.Replication, senders, nil, slog.New(slog.DiscardHandler)); err != nil {
			n.Close()
			return nil, err
		}
		n.gate.channels = n.lateChannels(metered, keys, senders)
	} else {
		if channels, pins, err = n.leaderChannels(ctx, metered, keys); err != nil {
			n.Close()
			return nil, err
		}
		if pins, err = pinReplication(cfg.Replication, senders, pins, n.log); err != nil {
			n.Close()
			return nil, err
		}
	}
	if pins, n.regAccount, err = pinRegistration(cfg, senders, pins); err != nil {
		n.Close()
		return nil, err
	}
	gated, err := deposedQueues(ctx, cfg, st)
	if err != nil {
		n.Close()
		return nil, err
	}
	var proc *processor.Node
	var lead *leader.Node
	var ds *Distseq
	onFinish := func(uid string, state store.TxState, blocks uint64) {
		proc.Finished(uid, state)
		if ds != nil {
			ds.Submitter.Finished(uid, state, blocks)
		}
		if lead != nil {
			lead.Finished(uid, state)
		}
		if n.SMM != nil {
			n.SMM.Finished(uid)
		}
		if o.OnFinish != nil {
			o.OnFinish(uid, state, blocks)
		}
	}
	seq, err := sequencer.NewNode(sequencer.Config{Trace: trace, Store: st, Chain: metered, Clock: o.Clock, Dispatchers: dispatchers, AllowedTypes: seqTypes, EngineTypes: EngineTypes,
		Policies: policies, Fees: sequencer.FeePolicy(cfg.Fees), InclusionTimeout: cfg.InclusionTimeoutBlocks, Confirmations: cfg.Confirmations, Senders: senders,
		Workers: o.Workers, Logger: o.Logger, Metrics: m, OnFinish: onFinish, Intake: cfg.Intake(), Pins: pins, Gated: gated, Owner: n.owner(),
		Pipelines: append(append(cfg.Sequencer.pipelines(), cfg.Distseq.pipeline()...), replicationPipeline(cfg.Replication)...)})
	if err != nil {
		n.Close()
		return nil, err
	}
	n.Sequencer = seq
	if proc, err = n.processor(seq, n.fencedFor("processor", st), metered, o); err != nil {
		n.Close()
		return nil, err
	}
	n.Processor = proc
	if len(cfg.Leader.Accounts) > 0 {
		if lead, err = n.leader(seq, n.fencedFor("leader", st), metered, keys, channels, o); err != nil {
			n.Close()
			return nil, err
		}
		n.Leader = lead
	}
	if cfg.Distseq.enabled() {
		if ds, err = n.distseq(ctx, seq, n.fencedFor("distseq", st), o); err != nil {
			n.Close()
			return nil, err
		}
		n.Distseq = ds
	}
	if n.leases != nil {
		if err := n.takeLeases(ctx); err != nil {
			n.Close()
			return nil, err
		}
	}
	// Access: the authenticator keeps only the tokens' hashes, and so does
	// the node's copy of its config.
	authn, err := auth.New(cfg.Auth())
	if err != nil {
		n.Close()
		return nil, fmt.Errorf("config: %w", err)
	}
	n.Config = cfg.hashed()
	limiter := cfg.API.IntakeLimit.Limiter(o.Clock.Now)
	rpc, peers := cfg.PTX.handler(cfg.DevMode), ptx.Peers{}
	if ds != nil {
		rpc.B, peers.Src = limitPTX(ds, limiter), ds
	}
	engines := []api.Routes{proc, rpc, peers}
	var intake api.Intake
	var repl api.Replication
	if cfg.Replication.Enabled {
		if n.SMM, err = n.replication(seq, st, ds, authn, o); err != nil {
			n.Close()
			return nil, fmt.Errorf("replication: %w", err)
		}
		si := smmIntake{n.SMM}
		intake, repl = si, si
	}
	engines = append(engines, smm.Routes{N: n.SMM}, ui.Routes{})
	if lead != nil {
		engines = append(engines, lead)
	}
	if n.Devchain != nil {
		engines = append(engines, api.DevchainRoutes(n.devchainHandler()))
	}
	n.sampler = newSampler(cfg.Dashboard, st, n.Registry, o.Clock)
	if ls, ok := st.(store.LeaderStore); ok && lead != nil {
		n.sampler.leader = ls
	}
	n.Router = api.NewSequencerHandler(seq, api.Options{Registry: n.Registry, Logger: o.Logger,
		Chain: metered, ChainTimeout: time.Duration(cfg.Health.ChainTimeout), Auth: authn,
		TypeRoles: cfg.IntakeAccess.TypeRoles, Engines: append(engines, o.Engines...), Intake: intake, Replication: repl,
		IntakeLimiter: limiter, Conditions: n.gate.conditions, Clock: o.Clock, Streams: n.streams,
		Session: n.session(), StatsHistory: n.sampler.history})
	var h http.Handler = n.Router
	if n.Handler, err = cfg.WrapHandler(h); err != nil {
		n.Close()
		return nil, fmt.Errorf("config: %w", err)
	}
	n.Handler = n.stopGate.Wrap(n.Handler)
	if cfg.Retention.enabled() {
		p, ok := st.(store.Pruner)
		if !ok {
			n.Close()
			return nil, fmt.Errorf("config: retention: the store %T cannot prune records", st)
		}
		n.reaper = newReaper(cfg.Retention, p, o.Clock, o.Logger, n.Registry)
	}
	return n, nil
}

// notDevMode is why a node outside dev mode does not serve its in-process
// devchain's routes that change the chain.
const notDevMode = "outside dev mode a node serves only its chain's reads (head, blocks, subscribe, tx status, accounts, minfee, events, call); " +
	"start it with ordo serve --dev-mode (devMode: true in the config) to serve transaction submission, the fault knobs, the faucet, the dev accounts and mining on its address"

// devchainHandler is the in-process devchain's API as the node serves it:
// whole in dev mode, its reads only otherwise.
func (n *Node) devchainHandler() http.Handler {
	var opts []devchain.HandlerOption
	if !n.Config.DevMode {
		opts = append(opts, devchain.ReadOnly(notDevMode))
	}
	return devchain.NewHandler(n.Devchain, append(opts, devchain.WithLogger(n.log))...)
}

// chainWrapper is a chain that wraps another (a metered chain, say): the
// faucet of dev senders is looked for through it.
type chainWrapper interface {
	Unwrap() chain.Chain
}

// faucetOf returns the faucet of c, or of a chain it wraps, or nil.
func faucetOf(c chain.Chain) faucet {
	for c != nil {
		if f, ok := c.(faucet); ok {
			return f
		}
		w, ok := c.(chainWrapper)
		if !ok {
			return nil
		}
		c = w.Unwrap()
	}
	return nil
}

// noFaucet is the error of dev senders that need funding on a chain without
// a faucet.
func (n *Node) noFaucet(cause string) error {
	return fmt.Errorf("devSenders: %d dev senders need funds from the chain's faucet, and %s %s; "+
		"start the devchain without --no-dev-mode, or set --dev-senders 0 (devSenders: 0) and configure funded senders (senders: keyFile or worker)",
		n.Config.DevSenders, chainDescription(n.Config.Chain), cause)
}

// chainDescription names the node's chain in a sentence.
func chainDescription(url string) string {
	if url == "" {
		return "the in-process devchain"
	}
	return "the chain at " + url
}

// hashed returns c with each principal's token replaced by its SHA-256.
func (c Config) hashed() Config {
	if len(c.Principals) == 0 {
		return c
	}
	c.Principals = auth.Config{Principals: c.Principals}.Hashed().Principals
	return c
}

// chainName names the node's chain in logs: its JSON-RPC URLs on an EVM
// chain, its URL for a remote devchain, else the in-process devchain.
func chainName(c Config) string {
	switch {
	case c.EVM.enabled():
		return strings.Join(c.EVM.URLs, ", ")
	case c.Chain != "":
		return c.Chain
	}
	return "in-process devchain"
}

// Close releases the store and the in-process chain.
func (n *Node) Close() error {
	var errs []error
	if n.store != nil {
		errs = append(errs, n.store.Close())
	}
	if n.Devchain != nil {
		errs = append(errs, n.Devchain.Close())
	}
	if n.closeChain != nil {
		n.closeChain()
	}
	if n.trace != nil {
		errs = append(errs, n.trace.Close())
	}
	for _, f := range n.traces {
		errs = append(errs, f.Close())
	}
	errs = append(errs, n.lock.Release())
	return errors.Join(errs...)
}

// ErrChainUnreachable is returned by Build when the configured chain does
// not answer at start.
var ErrChainUnreachable = errors.New("the chain does not answer")

// reachable asks the chain at url for its head, within 10s, and turns a
// failure into one sentence that names the URL.
func reachable(ctx context.Context, c chain.Chain, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := c.Head(ctx); err != nil {
		return fmt.Errorf("%w: no answer from %s (%w); start it (ordo devchain --listen ...) or leave --chain out for an in-process devchain", ErrChainUnreachable, url, err)
	}
	return nil
}
