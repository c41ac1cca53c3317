package leader

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chainevents"
	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/engine"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/tool"
)

// Submitter is the sequencer's intake (sequencer.Node implements it).
type Submitter interface {
	Submit(ctx context.Context, in []sequencer.Intake) ([]store.EnqueueResult, error)
}

// Records reads sequencer records (store.Store implements it).
type Records interface {
	Get(ctx context.Context, uid string) (store.Transaction, error)
}

// Driver defaults.
const (
	// DefaultWorkflow and DefaultRegistry are the contracts' names.
	DefaultWorkflow = "workflow"
	DefaultRegistry = "registry"
	// DefaultToolTimeout bounds one tool invocation.
	DefaultToolTimeout = 10 * time.Second
	// DefaultWorkers is how many effects run at once.
	DefaultWorkers = 32
	// ResultType is the sequencer type of result transactions.
	ResultType = "call"
)

// Config configures a leader node.
type Config struct {
	// Store keeps the index. Required.
	Store store.LeaderStore
	// Sequencer takes the result transactions. Required.
	Sequencer Submitter
	// Records reads a FAILED result's error. Required.
	Records Records
	// Chain gives events and answers the registry's and the workflow's
	// reads. Required.
	Chain chain.Chain
	// Key signs tool invocations: the leader's account key, ed25519 on
	// devchain or secp256k1 on an EVM chain (tool.Sign); the leader's id
	// is its address. Defaults to none: invocations are unsigned.
	Key chain.Key
	// Core tunes the core; Core.Accounts (one per channel, see Channels)
	// is required by Run: given here, or by SetChannels before Run.
	Core CoreConfig
	// Workflow and Registry name the contracts. Default to "workflow" and
	// "registry".
	Workflow, Registry string
	// ResultArgs builds the args of the workflow's submit_result for the
	// chain's form of the method; errText is the failure's message (ok
	// false). Defaults to DevchainResultArgs.
	ResultArgs func(walk string, ok bool, output json.RawMessage, errText string) json.RawMessage
	// ToolTimeout bounds a tool invocation. Defaults to 10s.
	ToolTimeout time.Duration
	// Tools invokes tools. Defaults to tool.DefaultClient.
	Tools *tool.Client
	// Clock defaults to the wall clock.
	Clock clock.Clock
	// Workers is how many effects run at once. Defaults to 32.
	Workers int
	// PollInterval is how often events are read from a chain that does
	// not push heads. Defaults to 500ms.
	PollInterval time.Duration
	// Rand draws the retrier's picks. Defaults to math/rand/v2's global
	// source; a simulation passes a seeded one.
	Rand func() uint64
	// Inline makes Turn perform effects itself, in order. Defaults to false.
	Inline bool
	// Trace records the core's run for Replay. Defaults to nil.
	Trace io.Writer
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Metrics, when set, is updated after each commit. Defaults to nil.
	Metrics *Metrics
}

// Node is a running leader: its core behind a Loop, effect workers and the
// chain-event listener.
type Node struct {
	cfg  Config
	log  *slog.Logger
	tr   *traceWriter
	defs *toolCache
	// chans are the channels' accounts (Core.Accounts, or SetChannels'):
	// read when a core is built and by the effects.
	chans atomic.Pointer[channelSet]
	// slot holds the current Loop: Run may run again after it returned
	// (the engine standing by for its lease once more).
	slot *engine.Slot[*Loop]
}

// New checks cfg and returns a node; Open or Run builds its core.
func New(cfg Config) (*Node, error) {
	if cfg.Store == nil || cfg.Sequencer == nil || cfg.Records == nil || cfg.Chain == nil {
		return nil, errors.New("leader: a store, a sequencer, its records and a chain are required")
	}
	if cfg.Workflow == "" {
		cfg.Workflow = DefaultWorkflow
	}
	if cfg.Registry == "" {
		cfg.Registry = DefaultRegistry
	}
	if cfg.ResultArgs == nil {
		cfg.ResultArgs = DevchainResultArgs
	}
	if cfg.ToolTimeout <= 0 {
		cfg.ToolTimeout = DefaultToolTimeout
	}
	if cfg.Tools == nil {
		cfg.Tools = tool.DefaultClient
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 500 * time.Millisecond
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Uint64
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	n := &Node{cfg: cfg, log: cfg.Logger, tr: newTraceWriter(cfg.Trace), defs: newToolCache(), slot: engine.NewSlot[*Loop]()}
	n.chans.Store(newChannelSet(cfg.Core.Accounts))
	return n, nil
}

// channelSet is the accounts of the channels, one per channel, and the
// set of them.
type channelSet struct {
	accounts []string
	ours     map[string]bool
}

func newChannelSet(accounts []string) *channelSet {
	s := &channelSet{accounts: slices.Clone(accounts), ours: map[string]bool{}}
	for _, a := range accounts {
		s.ours[a] = true
	}
	return s
}

// SetChannels sets the channels' accounts (Config.Core.Accounts), one per
// channel as Channels returns them: a node that reads them once its chain
// answers sets them before Run. A core reads them when it is built (at
// Run): a core already running keeps those it was built with.
func (n *Node) SetChannels(accounts []string) error {
	if len(accounts) == 0 {
		return errors.New("leader: no channel: the leader holds no leader cap (grant one with the workflow's grant_leader_cap)")
	}
	n.chans.Store(newChannelSet(accounts))
	return nil
}

// ErrCannotLead marks Channels' refusal of an account the chain answered
// about: it holds no leader cap, or no funds. Trying again cannot help
// until its admin or its owner acts.
var ErrCannotLead = errors.New("leader: the account cannot lead")

// cannotLead is an ErrCannotLead with its sentence.
type cannotLead struct{ msg string }

func (e *cannotLead) Error() string        { return e.msg }
func (e *cannotLead) Is(target error) bool { return target == ErrCannotLead }

// Channels reads on chain the leader caps each account holds and returns
// one entry per cap (an account with two caps runs two channels), after
// checking each account is funded: what a leader needs to start, with a
// sentence naming what is missing otherwise.
func Channels(ctx context.Context, c chain.Chain, workflow string, accounts []chain.Address) ([]string, error) {
	var out []string
	for _, a := range accounts {
		raw, err := c.Call(ctx, workflow, "caps", json.RawMessage(`{"leader":"`+string(a)+`"}`))
		if err != nil {
			return nil, fmt.Errorf("leader: reading the caps of %s from %s: %w", a, workflow, err)
		}
		var caps struct {
			Caps int `json:"caps"`
		}
		if err := json.Unmarshal(raw, &caps); err != nil {
			return nil, fmt.Errorf("leader: caps of %s: %w", a, err)
		}
		if caps.Caps == 0 {
			return nil, &cannotLead{fmt.Sprintf("leader: account %s holds no leader cap on %s: its admin grants one with grant_leader_cap {leader: %q}", a, workflow, a)}
		}
		acct, err := c.Account(ctx, a)
		if err != nil {
			return nil, fmt.Errorf("leader: reading account %s: %w", a, err)
		}
		if acct.Balance == 0 {
			return nil, &cannotLead{fmt.Sprintf("leader: account %s holds a leader cap but no funds to pay for its results: fund it", a)}
		}
		for range caps.Caps {
			out = append(out, string(a))
		}
	}
	return out, nil
}

// Open builds the core from the store and returns its Loop (the same Loop
// on a second call, until a Run on it returns).
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
	snap, err := n.cfg.Store.LeaderSnapshot(ctx)
	if err != nil {
		return nil, fmt.Errorf("leader: load: %w", err)
	}
	now := n.cfg.Clock.Now().UTC()
	cfg := n.cfg.Core
	cfg.Accounts = n.chans.Load().accounts
	core, err := NewCore(cfg, now, snap)
	if err != nil {
		return nil, err
	}
	// Tool definitions read before are stale for a core that runs again:
	// another node may have indexed a registry change past them.
	n.defs.reset()
	n.tr.Start(cfg, now, snap)
	return core, nil
}

func (n *Node) currentLoop() *Loop { return n.slot.Current() }

// Started is closed once Run has begun.
func (n *Node) Started() <-chan struct{} { return n.slot.Started() }

// Finished tells the leader a sequencer record ended (wire it to the
// sequencer's OnFinish). It never blocks.
func (n *Node) Finished(uid string, state store.TxState) {
	if l := n.currentLoop(); l != nil {
		l.Put(Finished(time.Time{}, uid, state == store.Done, ""))
	}
}

// Run runs the engine until ctx ends.
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
	effects := make(chan Effect, 1<<12)
	for range n.cfg.Workers {
		wg.Go(func() {
			for e := range effects {
				l.Put(n.perform(ctx, e))
			}
		})
	}
	defer close(effects)
	lis := n.Listener(l)
	wg.Go(func() {
		if err := lis.Run(ctx); err != nil && ctx.Err() == nil {
			n.log.Error("leader: event listener stopped", "err", err)
		}
	})
	n.slot.MarkStarted()
	return l.run(ctx, effects)
}

// Listener is the chain-event listener of the leader: the workflow's
// requests and the registry's changes, after the core's cursor; each page
// commits with its cursor (its handler waits for the commit).
func (n *Node) Listener(l *Loop) *chainevents.Listener {
	return &chainevents.Listener{Chain: n.cfg.Chain, Clock: n.cfg.Clock, From: l.core.Cursor(), PollInterval: n.cfg.PollInterval, Logger: n.log,
		Filter: func(e chain.Event) bool {
			return e.Contract == n.cfg.Workflow && e.Name == "RequestWalkExecution" || e.Contract == n.cfg.Registry
		},
		Handler: func(ctx context.Context, evs []chain.Event, next uint64) error {
			return n.HandleEvents(ctx, l, evs, next)
		}}
}

// HandleEvents indexes a page of events: the registry's changes invalidate
// the tool cache; the requests are stepped with the page's cursor (the loop
// checks each walk against the store first: a walk is indexed once); it
// returns once committed.
func (n *Node) HandleEvents(ctx context.Context, l *Loop, evs []chain.Event, next uint64) error {
	rep, err := l.Do(ctx, n.pageInput(evs, next))
	if err == nil && rep.Code != "" {
		err = fmt.Errorf("leader: events: %s", rep.Message)
	}
	return err
}

// pageInput is the input of a page of events: the registry's changes drop
// their tools from the cache; the requests are stepped with the page's
// cursor.
func (n *Node) pageInput(evs []chain.Event, next uint64) Input {
	var reqs []Request
	for _, e := range evs {
		if e.Contract == n.cfg.Registry {
			var d struct {
				Tool string `json:"tool"`
			}
			if json.Unmarshal(e.Data, &d) == nil {
				n.defs.drop(d.Tool)
			}
			continue
		}
		var d struct {
			Walk string `json:"walk"`
			Tool string `json:"tool"`
		}
		if json.Unmarshal(e.Data, &d) != nil || d.Walk == "" {
			n.log.Warn("leader: a request event without a walk; skipped", "cursor", e.Cursor)
			continue
		}
		raw, _ := json.Marshal(e)
		reqs = append(reqs, Request{ID: int64(e.Cursor), Walk: d.Walk, Tool: d.Tool, Digest: string(e.TxHash), Height: e.Height, JSON: raw})
	}
	return Events(time.Time{}, next, reqs)
}
