package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/ordolabs/ordo/internal/api"
	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/leader"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/store"
)

// The node's start. Build does not need its chain: a remote chain that
// does not answer yet is waited for by Serve. Serve serves the API at once
// (intake commits to the store and is acknowledged) and holds every
// engine, and on a shared store the lease keeper, until startup has
// reached the chain and the store has taken its identity: the first node
// to reach its chain records it (store.ChainStore), and a node whose chain
// is another keeps its engines stopped, says so in its log and answers
// /healthz 503 chain_identity_mismatch naming both. What Build could not
// do without the chain, startup does before it opens the gate: it funds
// the dev senders, and reads the leader's channels from the chain's caps
// and hands them to the sequencer (its pins) and to the leader; an
// account the chain says cannot lead (no cap, no funds) stops the node
// with Build's error, a config error.

// Waits of startup between its tries while the chain does not answer (or
// the store has no room): from minStartWait, doubling, up to maxStartWait.
const (
	minStartWait = 250 * time.Millisecond
	maxStartWait = 10 * time.Second
)

// startTimeout bounds one call of startup to the chain.
const startTimeout = 10 * time.Second

// chainGate holds the engines until startup has opened it.
type chainGate struct {
	clock clock.Clock
	log   *slog.Logger
	// fund, when set, funds the dev senders once the chain answers (Build
	// could not: the chain was down).
	fund func(context.Context) error
	// channels, when set, reads the leader's channels once the chain
	// answers and hands them to the sequencer and the leader (Build could
	// not: the chain was down). Its errors but errNoAnswer are refusals.
	channels func(context.Context) error

	ready chan struct{} // closed by open
	mu    sync.Mutex
	cond  *api.Condition // why the engines are held, nil once open
}

func newChainGate(clk clock.Clock, log *slog.Logger, chainURL string) *chainGate {
	return &chainGate{clock: clk, log: log, ready: make(chan struct{}),
		cond: &api.Condition{Code: api.StatusChainUnreachable, Message: "the node has not reached " + chainDescription(chainURL) + " yet: intake works; the engines start once it answers"}}
}

// conditions is api.Options.Conditions: why the engines are held, if
// they are.
func (g *chainGate) conditions() []api.Condition {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cond == nil {
		return nil
	}
	return []api.Condition{*g.cond}
}

func (g *chainGate) set(c *api.Condition) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.cond = c
}

// open lets the engines run.
func (g *chainGate) open() {
	g.set(nil)
	close(g.ready)
}

// Ready is closed once the node has reached its chain, the store has taken
// the chain's identity, and the engines may run.
func (n *Node) Ready() <-chan struct{} { return n.gate.ready }

// held is f run once the gate opens (nil if ctx ends first).
func (n *Node) held(f func(context.Context) error) func(context.Context) error {
	return func(ctx context.Context) error {
		select {
		case <-n.gate.ready:
			return f(ctx)
		case <-ctx.Done():
			return nil
		}
	}
}

// ErrSharedInProcess refuses a shared store with an in-process devchain.
var ErrSharedInProcess = errors.New("store.url names a shared PostgreSQL store, and chain is empty (an in-process devchain): " +
	"each node would send the store's intents to a ledger of its own; run one chain (ordo devchain --listen ... --data ...) and give every node sharing the store its URL (--chain)")

// checkStoreChain refuses what would put one store's intents on two
// ledgers from the start.
func checkStoreChain(cfg Config) error {
	if cfg.Store.postgres() && cfg.Chain == "" && !cfg.EVM.enabled() {
		return ErrSharedInProcess
	}
	return nil
}

// withoutChain is Build's answer to a remote chain that did not answer
// (err): the node starts without it.
func (n *Node) withoutChain(err error) {
	n.log.Warn("the chain does not answer: the node starts without it; intake works, the engines wait for it and /healthz answers 503 chain_unreachable until it answers",
		"chain", n.Config.Chain, "err", err)
}

// errNoAnswer marks an error of the chain not answering (no answer, or
// none in time), as opposed to its refusal: trying again may help.
var errNoAnswer = errors.New("the chain does not answer")

// lateChannels is chainGate.channels: it reads the leader's channels from
// c (leaderChannels' checks and errors), adds replication's pins and
// hands the pins to the sequencer and the channels to the leader, before
// either runs.
func (n *Node) lateChannels(c chain.Chain, keys map[string]chain.Key, senders []sequencer.SenderConfig) func(context.Context) error {
	return func(ctx context.Context) error {
		cctx, cancel := context.WithTimeout(ctx, startTimeout)
		defer cancel()
		channels, pins, err := n.leaderChannels(cctx, c, keys)
		if err != nil {
			if chain.CodeOf(err) == "" && !errors.Is(err, leader.ErrCannotLead) {
				return fmt.Errorf("%w: %w", errNoAnswer, err)
			}
			return err
		}
		if pins, err = pinReplication(n.Config.Replication, senders, pins, n.log); err != nil {
			return err
		}
		if err := n.Sequencer.SetPins(pins); err != nil {
			return err
		}
		return n.Leader.SetChannels(channels)
	}
}

// startup reaches the chain, has the store take its identity, funds the
// dev senders and reads the leader's channels Build could not, retrying
// on the clock while the chain does not answer; then it opens the gate
// and waits for ctx. On a chain that is not the store's, it keeps the
// gate shut until ctx ends; a leader account the chain refuses stops it
// with the refusal.
func (n *Node) startup(ctx context.Context) error {
	g := n.gate
	var wait time.Duration
	pause := func() bool {
		wait = min(max(2*wait, minStartWait), maxStartWait)
		t := g.clock.NewTimer(wait)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return false
		case <-t.C():
			return true
		}
	}
	var id chain.Identity
	for tries := 0; ; tries++ {
		var err error
		if id, err = n.chainIdentity(ctx); err == nil || errors.Is(err, chain.ErrNoIdentity) {
			break
		}
		if ctx.Err() != nil {
			return nil
		}
		g.set(&api.Condition{Code: api.StatusChainUnreachable,
			Message: fmt.Sprintf("waiting for %s to answer (%v): intake works; the engines start once it answers", chainDescription(n.Config.Chain), err)})
		if tries%20 == 0 {
			n.log.Warn("waiting for the chain: the engines start once it answers", "chain", chainName(n.Config), "err", err)
		}
		if !pause() {
			return nil
		}
	}
	wait = 0
	if id == (chain.Identity{}) {
		n.log.Warn("the chain does not report its identity: the store cannot check that it belongs to it", "chain", chainName(n.Config))
	}
	for id != (chain.Identity{}) {
		err := n.bindChain(ctx, id)
		var mm *store.ChainMismatchError
		switch {
		case err == nil:
		case errors.As(err, &mm):
			g.set(&api.Condition{Code: api.StatusChainMismatch,
				Message: fmt.Sprintf("the store belongs to chain %s, and this node's chain (%s) is %s: the engines stay stopped; give the node the store's chain, or another store", mm.Stored, chainName(n.Config), mm.Given),
				Data:    map[string]store.ChainIdentity{"store": mm.Stored, "chain": mm.Given}})
			n.log.Error("the store belongs to another chain: the engines stay stopped (intake still commits to the store)",
				"store", mm.Stored.String(), "chain", mm.Given.String(), "url", chainName(n.Config))
			<-ctx.Done()
			return nil
		case errors.Is(err, store.ErrStorageFull):
			g.set(&api.Condition{Code: api.StatusStorageFull, Message: fmt.Sprintf("the store has no room to record the chain's identity (%v): free space on its disk", err)})
			n.log.Error("the store is full: waiting for room to record the chain's identity", "err", err)
			if !pause() {
				return nil
			}
			continue
		case ctx.Err() != nil:
			return nil
		default:
			return fmt.Errorf("node: recording the chain's identity in the store: %w", err)
		}
		break
	}
	for g.fund != nil {
		err := g.fund(ctx)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return nil
		}
		if errors.Is(err, errFundRefused) {
			return err // the chain answered: what Build would have refused
		}
		n.log.Warn("funding the dev senders: the chain does not answer; trying again", "err", err)
		if !pause() {
			return nil
		}
	}
	for g.channels != nil {
		err := g.channels(ctx)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return nil
		}
		if !errors.Is(err, errNoAnswer) {
			n.log.Error("the leader cannot start: the node stops (leader.accounts: a config error)", "err", err)
			return err // the chain answered: what Build would have refused
		}
		g.set(&api.Condition{Code: api.StatusChainUnreachable,
			Message: fmt.Sprintf("waiting for %s to answer the leader's caps (%v): intake works; the engines start once it answers", chainDescription(n.Config.Chain), err)})
		n.log.Warn("reading the leader's channels: the chain does not answer; trying again", "err", err)
		if !pause() {
			return nil
		}
	}
	n.log.Info("the chain answers: the engines start", "chain", chainName(n.Config), "identity", id.String())
	g.open()
	<-ctx.Done()
	return nil
}

// chainIdentity asks the node's chain for its identity, within
// startTimeout.
func (n *Node) chainIdentity(ctx context.Context) (chain.Identity, error) {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	id, err := chain.IdentityOf(ctx, n.Chain)
	if err != nil {
		return chain.Identity{}, err
	}
	return id, id.Validate()
}

// bindChain has the store take id (a store without a record of its chain
// takes any).
func (n *Node) bindChain(ctx context.Context, id chain.Identity) error {
	cs, ok := n.store.(store.ChainStore)
	if !ok {
		n.log.Warn("the store does not record its chain: it cannot check that it belongs to this one")
		return nil
	}
	return cs.BindChain(ctx, store.ChainIdentity{ChainID: id.ChainID, Genesis: string(id.Genesis)})
}

// rideFull runs an engine (the processor, the leader) again after it
// stopped on a full store (store.ErrStorageFull), after a wait on the
// clock (minStartWait doubling to maxStartWait): its Run builds it again
// from the store, as after a lost lease. Any other return is the engine's.
func (n *Node) rideFull(name string, run func(context.Context) error) func(context.Context) error {
	return func(ctx context.Context) error {
		var wait time.Duration
		for {
			err := run(ctx)
			if !errors.Is(err, store.ErrStorageFull) || ctx.Err() != nil {
				return err
			}
			wait = min(max(2*wait, minStartWait), maxStartWait)
			n.log.Error("the store is full: the engine stopped; it runs again from the store after a wait (free space on the store's disk)",
				"engine", name, "err", err, "wait", wait)
			t := n.gate.clock.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil
			case <-t.C():
			}
		}
	}
}
