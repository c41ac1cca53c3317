package cluster

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/distseq/token"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/memstore"
	"github.com/ordolabs/ordo/internal/transport"
	"github.com/ordolabs/ordo/internal/transport/simnet"
)

// Config shapes a cluster.
type Config struct {
	// Nodes is the committee size; nodes are named A, B, C, ... Defaults
	// to 4.
	Nodes int
	// Seed drives the network, the chain and the keys. Defaults to 1.
	Seed uint64
	// Contracts is how many privacy groups the committee shares, each
	// named "g<i>". Defaults to 1.
	Contracts int
	// Coins and CoinAmount: each group is minted Coins coins of
	// CoinAmount, owned round robin by the members' owners (Owner).
	// Defaults to 200 coins of 1000.
	Coins      int
	CoinAmount uint64
	// Threshold is each group's endorsement threshold (0: all members).
	Threshold int
	// BlockTime is the devchain's block interval. Defaults to 1s.
	BlockTime time.Duration
	// FinalityDepth is the chain's declared reorg depth; the indexers
	// read only blocks at least this deep. Defaults to 0.
	FinalityDepth uint64
	// Tick is how often each node's core gets an InputTick. Defaults to
	// 100ms.
	Tick time.Duration
	// Core is the template of every node's core configuration (Self, Key
	// and Domain are set per node). RangeSize defaults to 10 here.
	Core distseq.CoreConfig
	// Net configures the in-memory network (its Seed and Clock are set).
	Net simnet.Config
	// SeqInFlight is the sequencer pipeline's depth per contract queue.
	// Defaults to DefaultSeqInFlight.
	SeqInFlight int
	// Dir holds the nodes' sequencer stores. Defaults to a new temporary
	// directory, removed by Close.
	Dir string
	// Trace, when set, gives each node's trace writer (internal/trace's
	// format, engine "distseq"); a restarted node appends to the same one.
	Trace func(id distseq.NodeID) io.Writer
	// Check runs every core's CheckInvariants after each of its steps; a
	// violation stops the run with an error. Defaults to false.
	Check bool
	// OnStep, when set, is called after every input a node's core takes,
	// before the driver commits its batch. It may crash the node there:
	// CrashBeforeCommit loses the batch (a crash at 1S or 1C), and
	// CrashAfterCommit keeps it but sends, performs and replies nothing
	// (a crash at 2S or 2C).
	OnStep func(n *Node, in distseq.Input, r *distseq.Ready) Crash
}

// Crash is what OnStep asks of the driver.
type Crash uint8

// The crash points.
const (
	NoCrash Crash = iota
	CrashBeforeCommit
	CrashAfterCommit
)

func (c *Config) defaults() {
	if c.Nodes == 0 {
		c.Nodes = 4
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.Contracts == 0 {
		c.Contracts = 1
	}
	if c.Coins == 0 {
		c.Coins = 200
	}
	if c.CoinAmount == 0 {
		c.CoinAmount = 1000
	}
	if c.BlockTime == 0 {
		c.BlockTime = time.Second
	}
	if c.Tick == 0 {
		c.Tick = 100 * time.Millisecond
	}
	if c.Core.RangeSize == 0 {
		c.Core.RangeSize = 10
	}
}

// Cluster is N distributed-sequencer nodes, one devchain and one
// in-memory network, driven in one goroutine on one virtual clock.
type Cluster struct {
	cfg   Config
	clk   *clock.Virtual
	Net   *simnet.Network
	Chain *devchain.Chain
	nodes []*Node
	byID  map[distseq.NodeID]*Node

	deployer chain.Address
	nextTick time.Time
	txSeq    int
	ref      uint64
	replies  map[uint64]distseq.Reply
	// Confirmed counts IntentConfirmed events on chain per (group, txId).
	Confirmed map[string]int
	// ConfirmedAt is the height at which each txId was confirmed.
	ConfirmedAt map[string]uint64
	submitted   map[string]time.Time
	events      uint64
	dir         string
	ownDir      bool
}

// New builds a cluster: deploys and mints every group, and starts every
// node.
func New(ctx context.Context, cfg Config) (*Cluster, error) {
	cfg.defaults()
	clk := clock.NewVirtual(clock.Epoch)
	dc, err := devchain.New(devchain.Config{Seed: cfg.Seed, BlockTime: cfg.BlockTime, Clock: clk, DevAccounts: cfg.Nodes + 1,
		FinalityDepth: cfg.FinalityDepth, MaxBlockTxs: 100000, MaxNonceGap: 1 << 20, MaxMempool: 1 << 22})
	if err != nil {
		return nil, err
	}
	ncfg := cfg.Net
	ncfg.Seed, ncfg.Clock = cfg.Seed, clk
	c := &Cluster{cfg: cfg, clk: clk, Net: simnet.New(ncfg), Chain: dc, byID: map[distseq.NodeID]*Node{},
		replies: map[uint64]distseq.Reply{}, Confirmed: map[string]int{}, ConfirmedAt: map[string]uint64{}, submitted: map[string]time.Time{}}
	accts, err := dc.DevAccounts(ctx)
	if err != nil {
		return nil, err
	}
	c.deployer = accts[0].Address
	rng := rand.New(rand.NewPCG(cfg.Seed, 77))
	var members []devchain.PrivacyMember
	for i := range cfg.Nodes {
		seed := make([]byte, ed25519.SeedSize)
		for j := range seed {
			seed[j] = byte(rng.Uint32())
		}
		key := ed25519.NewKeyFromSeed(seed)
		id := distseq.NodeID(string(rune('A' + i%26)))
		if i >= 26 {
			id = distseq.NodeID(fmt.Sprintf("N%d", i))
		}
		n := &Node{c: c, ID: id, key: key, acct: accts[i+1].Address, Store: memstore.NewDistseq()}
		c.nodes = append(c.nodes, n)
		c.byID[id] = n
		members = append(members, devchain.PrivacyMember{ID: string(id), PublicKey: hex.EncodeToString(key.Public().(ed25519.PublicKey))})
	}
	if err := c.deploy(ctx, members); err != nil {
		return nil, err
	}
	c.nextTick = clk.Now()
	c.dir = cfg.Dir
	if c.dir == "" {
		if c.dir, err = os.MkdirTemp("", "ordo-distseq-*"); err != nil {
			return nil, err
		}
		c.ownDir = true
	}
	for _, n := range c.nodes {
		if err := n.start(ctx); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Close stops every node's sequencer and the chain, and removes the
// directory the cluster made.
func (c *Cluster) Close() {
	for _, n := range c.nodes {
		n.seq.close()
		n.seq = nil
	}
	c.Chain.Close()
	if c.ownDir {
		os.RemoveAll(c.dir)
	}
}

// Owner is node id's owner in the cluster, "u@<id>": the coins minted
// are its, round robin over the members, and an intent without From
// spends its node's.
func Owner(id distseq.NodeID) string { return "u@" + string(id) }

// Group returns the name of group i.
func Group(i int) string { return fmt.Sprintf("g%d", i) }

func (c *Cluster) deploy(ctx context.Context, members []devchain.PrivacyMember) error {
	var nonce uint64
	send := func(method string, args any) error {
		b, _ := json.Marshal(args)
		_, err := c.Chain.SendTx(ctx, chain.Tx{From: c.deployer, Nonce: nonce, Fee: 10000, Contract: devchain.PrivacyGroupContract, Method: method, Args: b})
		nonce++
		return err
	}
	for i := range c.cfg.Contracts {
		g := Group(i)
		args := map[string]any{"group": g, "members": members}
		if c.cfg.Threshold > 0 {
			args["threshold"] = c.cfg.Threshold
		}
		if err := send("deploy", args); err != nil {
			return fmt.Errorf("deploy %s: %w", g, err)
		}
		coins := token.Mint(g+"-mint-", "", slices.Repeat([]uint64{c.cfg.CoinAmount}, c.cfg.Coins)...)
		for j := range coins {
			coins[j].Owner = Owner(distseq.NodeID(members[j%len(members)].ID)) // round robin over the members' owners
		}
		for len(coins) > 0 {
			n := min(len(coins), 64)
			ps := make([]devchain.PrivacyState, n)
			for j, s := range coins[:n] {
				ps[j] = devchain.PrivacyState{ID: s.ID, Owner: s.Owner, Data: json.RawMessage(s.Data)}
			}
			if err := send("mint", map[string]any{"group": g, "states": ps}); err != nil {
				return fmt.Errorf("mint %s: %w", g, err)
			}
			coins = coins[n:]
		}
	}
	if _, _, err := c.Chain.Mine(ctx); err != nil {
		return err
	}
	for range c.cfg.FinalityDepth {
		if _, _, err := c.Chain.Mine(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Now is the cluster's virtual time.
func (c *Cluster) Now() time.Time { return c.clk.Now() }

// Nodes returns the nodes in name order.
func (c *Cluster) Nodes() []*Node { return c.nodes }

// Node returns node id.
func (c *Cluster) Node(id distseq.NodeID) *Node { return c.byID[id] }

// Head is the chain's height.
func (c *Cluster) Head() uint64 {
	h, _ := c.Chain.Head(context.Background())
	return h.Height
}

// Submit hands node id an intent; it returns the transaction id the
// node answered with (or its error).
func (c *Cluster) Submit(ctx context.Context, id distseq.NodeID, group string, in token.Intent, key string) (string, error) {
	return c.submit(ctx, id, group, in, key, false)
}

// Prepare hands node id an intent for external submission
// (ptx_prepareTransaction): its prepared transaction appears in the
// sender's intent record and the caller submits it (Deployer can).
func (c *Cluster) Prepare(ctx context.Context, id distseq.NodeID, group string, in token.Intent, key string) (string, error) {
	return c.submit(ctx, id, group, in, key, true)
}

// Deployer is the dev account that deployed the groups; its next nonce
// is free for a test's own transactions.
func (c *Cluster) Deployer() chain.Address { return c.deployer }

func (c *Cluster) submit(ctx context.Context, id distseq.NodeID, group string, in token.Intent, key string, prepare bool) (string, error) {
	n := c.byID[id]
	if n == nil || n.core == nil {
		return "", fmt.Errorf("cluster: node %s is down", id)
	}
	if in.From == "" {
		in.From = Owner(id)
	}
	body, _ := json.Marshal(in)
	if key != "" {
		if rec, err := n.Store.DistseqIntentByKey(ctx, key); err == nil {
			if err := distseq.CheckKey(rec, distseq.InputSubmit{Contract: group, Key: key, Intent: body, Prepare: prepare}); err != nil {
				return "", err
			}
			return rec.TxID, nil
		}
	}
	c.txSeq++
	c.ref++
	txID := fmt.Sprintf("%s-tx%d", id, c.txSeq)
	if err := n.step(ctx, distseq.InputSubmit{Ref: c.ref, TxID: txID, Contract: group, Key: key, Intent: body, Prepare: prepare}); err != nil {
		return "", err
	}
	r, ok := c.replies[c.ref]
	delete(c.replies, c.ref)
	if !ok {
		return "", fmt.Errorf("cluster: no reply")
	}
	if r.Err == nil {
		c.submitted[r.TxID] = c.Now()
	}
	return r.TxID, r.Err
}

// SubmittedAt is when Submit acknowledged txID.
func (c *Cluster) SubmittedAt(txID string) (time.Time, bool) {
	t, ok := c.submitted[txID]
	return t, ok
}

// RunFor advances the virtual clock by d, delivering messages, ticking
// the nodes every Tick and producing blocks.
func (c *Cluster) RunFor(ctx context.Context, d time.Duration) error {
	_, err := c.RunUntil(ctx, d, func() bool { return false })
	return err
}

// RunUntil runs until cond holds (checked after every event) or d has
// passed; it reports whether cond held.
func (c *Cluster) RunUntil(ctx context.Context, d time.Duration, cond func() bool) (bool, error) {
	until := c.Now().Add(d)
	for {
		if cond() {
			return true, nil
		}
		if err := ctx.Err(); err != nil {
			return false, err
		}
		next := c.nextTick
		if b := c.Chain.NextBlockAt(); b.Before(next) {
			next = b
		}
		if m, ok := c.Net.Next(); ok && m.Before(next) {
			next = m
		}
		if next.After(until) {
			c.clk.Set(until)
			return cond(), nil
		}
		if err := c.event(ctx, next); err != nil {
			return false, err
		}
	}
}

// event handles what is due at t: a message, a block, or a tick.
func (c *Cluster) event(ctx context.Context, t time.Time) error {
	if m, ok := c.Net.Next(); ok && !m.After(t) {
		c.Net.Step()
		return c.takeErr()
	}
	c.clk.Set(t)
	if !c.Chain.NextBlockAt().After(t) {
		if c.Chain.Tick(t) > 0 {
			if err := c.afterBlock(ctx); err != nil {
				return err
			}
		}
		return nil
	}
	c.nextTick = t.Add(c.cfg.Tick)
	for _, n := range c.nodes {
		if n.core != nil {
			if err := n.step(ctx, distseq.InputTick{Now: t}); err != nil {
				return err
			}
		}
		if err := n.seq.settle(ctx); err != nil {
			return err
		}
	}
	return nil
}

// afterBlock: the chain's events are audited, submitters learn their
// outcomes, and each indexer moves on.
func (c *Cluster) afterBlock(ctx context.Context) error {
	if err := c.audit(ctx); err != nil {
		return err
	}
	for _, n := range c.nodes {
		if n.core == nil {
			continue
		}
		if err := n.pollSubmissions(ctx); err != nil {
			return err
		}
		if err := n.index(ctx); err != nil {
			return err
		}
	}
	return nil
}

// audit counts the IntentConfirmed events of the canonical chain's final
// blocks.
func (c *Cluster) audit(ctx context.Context) error {
	for {
		evs, err := c.Chain.Events(ctx, c.events, 1000)
		if err != nil {
			return err
		}
		if len(evs) == 0 {
			return nil
		}
		final := c.Head() - min(c.Head(), c.cfg.FinalityDepth)
		for _, e := range evs {
			if e.Height > final {
				return nil // counted once final: a reorg may still remove it
			}
			c.events = e.Cursor
			ic, ok, err := devchain.IntentConfirmedOf(e)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			c.Confirmed[ic.Group+"/"+ic.TxID]++
			c.ConfirmedAt[ic.TxID] = e.Height
		}
	}
}

// takeErr returns (and clears) an error a network handler met.
func (c *Cluster) takeErr() error {
	for _, n := range c.nodes {
		if n.err != nil {
			err := n.err
			n.err = nil
			return err
		}
	}
	return nil
}

// Crash stops node id: its memory is lost, its store kept.
func (c *Cluster) Crash(id distseq.NodeID) {
	n := c.byID[id]
	c.Net.Crash(transport.NodeID(id))
	n.core, n.ep = nil, nil
	n.seq.close()
	n.seq = nil
}

// Restart starts node id again from its store.
func (c *Cluster) Restart(ctx context.Context, id distseq.NodeID) error {
	n := c.byID[id]
	if n.core != nil {
		return nil
	}
	n.restarts++
	return n.start(ctx)
}

// Partition splits the network (chain access is unaffected).
func (c *Cluster) Partition(groups ...[]distseq.NodeID) {
	gs := make([][]transport.NodeID, len(groups))
	for i, g := range groups {
		for _, id := range g {
			gs[i] = append(gs[i], transport.NodeID(id))
		}
	}
	c.Net.Partition(gs...)
}

// Heal ends a partition.
func (c *Cluster) Heal() { c.Net.Heal() }

// Intent reads txID's record from the store of node sender.
func (c *Cluster) Intent(ctx context.Context, sender distseq.NodeID, txID string) (store.DistseqIntent, error) {
	return c.byID[sender].Store.DistseqIntent(ctx, txID)
}

// Config returns the cluster's configuration with its defaults.
func (c *Cluster) Config() Config { return c.cfg }
