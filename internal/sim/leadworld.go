package sim

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/chainevents"
	"github.com/ordolabs/ordo/internal/leader"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/tool"
)

// The world of a leader run: the chain (with the workflow and the registry),
// one store, the sequencer and the leader on one virtual clock, the tools
// behind an in-process network, an admin account that requests walks and
// registers tools, and a competing leader.

// Shape of the leader world.
const (
	leadFinality = 2 // the chain's declared reorg depth; reorgs stay within it
	// The leader core's tuning: a small run queue (the retrier resends what
	// does not fit), short periods, and a BlockFor the drain can outwait.
	leadCapacity   = 4
	leadMaxActive  = 2
	leadMaxRetries = 3
	leadSweepAfter = 5 * time.Second
	leadStaleAfter = 90 * time.Second
	leadBlockFor   = 30 * time.Second
	leadCheckEvery = 5 * time.Second
)

// leadShape is a run's shape, drawn from its seed alone.
type leadShape struct {
	caps  []int // caps per leader account
	tools int
}

func drawLeadShape(seed uint64) leadShape {
	r := rand.New(rand.NewPCG(seed, 0x73686170))
	accts := 1 + r.IntN(2)
	s := leadShape{caps: make([]int, accts), tools: 1 + r.IntN(3)}
	for i := range s.caps {
		s.caps[i] = 1
	}
	for range r.IntN(4 - accts) {
		s.caps[r.IntN(accts)]++
	}
	return s
}

type leadWorld struct {
	world
	cfg      LeaderConfig
	shape    leadShape
	accounts []string          // the channels' accounts, in channel order
	pins     map[string]string // leader/<i> → account
	signer   string            // the leader's id at the tools
	admin    ed25519.PrivateKey
	rival    ed25519.PrivateKey // the competing leader
	rnd      *rand.Rand         // the leader's Rand (the retrier's picks)
	tools    *toolNet
	gen      []int // per tool: the generation of its last registration sent
	walks    int   // requests sent
	engineWorld
	lnode   *leader.Node
	lloop   *leader.Loop
	cutting bool            // the next page is committed by TurnDeferred
	cutEffs []leader.Effect // what that turn asked
	chk     *leadChecker
	res     LeaderResult
}

func runLeadActions(ctx context.Context, cfg LeaderConfig, actions []LeadAction) (LeaderResult, error) {
	w, err := newLeadWorld(ctx, cfg)
	if err != nil {
		return LeaderResult{}, err
	}
	defer w.close()
	err = runSteps(ctx, w, actions, cfg.mutate, func(i int, a LeadAction, out string) {
		fmt.Fprintf(w.digest, "%d|%s|%s|%d|%d|%d\n", i, a, out, w.head, len(w.chk.indexed), len(w.chk.ended))
	})
	return w.res, err
}

func newLeadWorld(ctx context.Context, cfg LeaderConfig) (*leadWorld, error) {
	base, err := newWorld(cfg.Dir, "ordo-simlead-*", cfg.Seed, 'l', leadFinality)
	if err != nil {
		return nil, err
	}
	w := &leadWorld{world: base, cfg: cfg, shape: drawLeadShape(cfg.Seed), rnd: rand.New(rand.NewPCG(cfg.Seed, 0x72657472)),
		res: LeaderResult{Seed: cfg.Seed, Steps: cfg.Steps, Invocations: map[string]int{}, CutEffects: map[string]int{}}}
	w.chk = newLeadChecker(w)
	w.tools = newToolNet(w, cfg.Seed)
	keys, err := w.fundedKeys(ctx, "ordo-simlead-account", cfg.Seed, len(w.shape.caps)+2)
	if err != nil {
		return nil, err
	}
	w.admin, w.rival = keys[0], keys[1]
	var addrs []chain.Address
	for _, k := range keys[2:] {
		w.addSender(k)
		addrs = append(addrs, chain.KeyAddress(k))
		w.chk.ours[string(chain.KeyAddress(k))] = true
	}
	w.signer = string(addrs[0])
	if err := w.setUp(ctx, addrs); err != nil {
		w.close()
		return nil, err
	}
	if err := w.start(ctx); err != nil {
		w.close()
		return nil, err
	}
	return w, nil
}

// setUp initialises the workflow, grants the caps, registers the tools and
// mines until that is final; then reads the channels as a leader does.
func (w *leadWorld) setUp(ctx context.Context, addrs []chain.Address) error {
	send := func(k ed25519.PrivateKey, contract, method string, args any) error {
		if err := w.send(ctx, k, contract, method, args); err != nil {
			return fmt.Errorf("sim: set-up %s.%s: %w", contract, method, err)
		}
		return nil
	}
	if err := send(w.admin, devchain.WorkflowContract, devchain.WorkflowInit, struct{}{}); err != nil {
		return err
	}
	grant := func(a chain.Address) error {
		return send(w.admin, devchain.WorkflowContract, devchain.WorkflowGrantLeaderCap, map[string]any{"leader": a})
	}
	for i, a := range addrs {
		for range w.shape.caps[i] {
			if err := grant(a); err != nil {
				return err
			}
		}
	}
	if err := grant(chain.KeyAddress(w.rival)); err != nil {
		return err
	}
	w.gen = make([]int, w.shape.tools)
	for i := range w.shape.tools {
		if err := w.register(ctx, i); err != nil {
			return fmt.Errorf("sim: set-up: %w", err)
		}
	}
	for range leadFinality + 2 {
		next := w.dc.NextBlockAt()
		w.clk.Set(next)
		w.dc.Tick(next)
	}
	accounts, err := leader.Channels(ctx, w.dc, devchain.WorkflowContract, addrs)
	if err != nil {
		return fmt.Errorf("sim: set-up: %w", err)
	}
	w.accounts, w.pins = accounts, map[string]string{}
	for i, a := range accounts {
		w.pins[fmt.Sprintf("%s%d", leader.QueuePrefix, i)] = a
	}
	w.res.Accounts, w.res.Channels, w.res.Tools = len(addrs), len(accounts), w.shape.tools
	return nil
}

// register sends tool i's next registration: a new URL and output schema.
func (w *leadWorld) register(ctx context.Context, i int) error {
	w.gen[i]++
	g := uint64(w.gen[i])
	return w.send(ctx, w.admin, devchain.RegistryContract, "register", map[string]any{"tool": fmt.Sprintf("t%d", i),
		"url": leadToolURL(i, g), "inputSchema": json.RawMessage(leadToolInput), "outputSchema": json.RawMessage(leadToolOutput(g))})
}

// start opens the store (if closed), builds the sequencer and the leader
// from it, and settles what recovery asks.
func (w *leadWorld) start(ctx context.Context) error {
	if err := w.openStore(ctx); err != nil {
		return err
	}
	if err := w.startSequencer(ctx, &w.world, dispatch.CallType, w.pins, w.finished); err != nil {
		return err
	}
	quiet := slog.New(slog.DiscardHandler)
	var err error
	w.lnode, err = leader.New(leader.Config{Store: w.st, Sequencer: submitCounter{w}, Records: w.st, Chain: w.dc,
		Key: w.keys[w.signer], Clock: w.clk, Rand: w.rnd.Uint64, Inline: true, Logger: quiet, ToolTimeout: 5 * time.Second,
		Tools: &tool.Client{HTTP: &http.Client{Transport: w.tools}},
		Core: leader.CoreConfig{Accounts: w.accounts, Capacity: leadCapacity, MaxActive: leadMaxActive, MaxRetries: leadMaxRetries,
			RetryEvery: time.Second, SweepAfter: leadSweepAfter, StaleAfter: leadStaleAfter, BlockFor: leadBlockFor,
			CheckEvery: leadCheckEvery, ResubmitAfter: time.Second}})
	if err != nil {
		return err
	}
	if w.lloop, err = w.lnode.Open(ctx); err != nil {
		return fmt.Errorf("sim: leader start: %w", err)
	}
	w.lis = &chainevents.Listener{Chain: w.dc, Clock: w.clk, From: w.lloop.Core().Cursor(), Logger: quiet,
		Filter: func(e chain.Event) bool {
			return e.Contract == devchain.WorkflowContract && e.Name == "RequestWalkExecution" || e.Contract == devchain.RegistryContract
		},
		Handler: w.page}
	w.lastHead = ""
	if _, err := w.sloop.Turn(ctx); err != nil {
		return err
	}
	return w.settle(ctx)
}

// page is the listener's handler: the page's input stepped and committed
// by a turn of the leader's loop (deferred when a crash cuts it).
func (w *leadWorld) page(ctx context.Context, evs []chain.Event, next uint64) error {
	got := w.lloop.Ask(w.lnode.PageInput(evs, next))
	if w.cutting {
		effs, err := w.lloop.TurnDeferred(ctx)
		w.cutEffs = append(w.cutEffs, effs...)
		if err != nil {
			return err
		}
	} else if _, err := w.lloop.Turn(ctx); err != nil {
		return err
	}
	if _, ok, err := got(); !ok || err != nil {
		return fmt.Errorf("sim: a page of events was not committed (answered %t): %w", ok, err)
	}
	return nil
}

// finished is the sequencer's OnFinish: the leader hears of it.
func (w *leadWorld) finished(uid string, st store.TxState, _ uint64) {
	if w.lnode != nil {
		w.lnode.Finished(uid, st)
	}
}

// settle tells both engines of a new head, reads the chain's events, and
// turns both loops until no input waits.
func (w *leadWorld) settle(ctx context.Context) error {
	return settleWith(ctx, &w.engineWorld, w.lloop, "leader's", func(ctx context.Context) error {
		head, moved, err := w.newHead(ctx, &w.world)
		if err != nil {
			return err
		}
		if moved {
			w.res.Blocks = head.Height
		}
		if dl := w.sloop.Deadline(); !dl.IsZero() && !w.clk.Now().Before(dl) {
			w.sloop.Put(sequencer.Tick(w.clk.Now()))
		}
		return nil
	})
}

// advance moves the clock by dt, block by block.
func (w *leadWorld) advance(ctx context.Context, dt time.Duration) error {
	return w.advanceBy(ctx, dt, w.settle)
}

// crash drops both engines' memory and rebuilds them from the reopened
// store; the chain and the tools live on.
func (w *leadWorld) crash(ctx context.Context) error {
	w.res.Crashes++
	w.snode, w.sloop, w.lnode, w.lloop, w.lis = nil, nil, nil, nil, nil
	w.cutting, w.cutEffs = false, nil
	if err := w.closeStore(); err != nil {
		return err
	}
	return w.start(ctx)
}

// submitCounter is the leader's sequencer: the current sequencer node.
type submitCounter struct{ w *leadWorld }

func (s submitCounter) Submit(ctx context.Context, in []sequencer.Intake) ([]store.EnqueueResult, error) {
	s.w.chk.submits += len(in)
	return s.w.snode.Submit(ctx, in)
}
