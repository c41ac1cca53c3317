package devchain

import (
	"container/heap"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"sort"
	"sync"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
)

type account struct {
	nonce   uint64
	balance uint64
}

type txLoc struct {
	height uint64
	index  int
}

type kvUndo struct {
	key     string
	old     []byte
	existed bool
}

// Chain is a devchain. It is safe for concurrent use.
type Chain struct {
	cfg       Config
	contracts map[string]Contract
	devKeys   map[chain.Address]ed25519.PrivateKey
	devOrder  []chain.Address

	mu       sync.RWMutex
	rng      *rand.Rand
	accounts map[chain.Address]*account
	state    map[string][]byte
	blocks   []*chain.Block // blocks[h] is height h; blocks[0] is genesis
	// chainID is "devchain/<seed>" of the genesis (Identity).
	chainID  string
	undo     [][]kvUndo // undo[h]: kv writes of block h, in order
	included map[chain.Hash]txLoc
	dropped  map[chain.Hash]string
	events   []chain.Event
	cursor   uint64
	pool     *mempool
	faults   FaultState
	nextAt   time.Time // when Tick produces the next block
	subs     map[chan chain.BlockHeader]struct{}
	log      *blockLog
	closed   bool
	// lastReorg is the head height a reorg last restored with empty
	// blocks, so a periodic reorg fires once per period.
	lastReorg uint64
	// faucetGiven is what the faucet has credited each account, restarts
	// included, against Config.FaucetAccountMax.
	faucetGiven map[chain.Address]uint64
}

var _ chain.Chain = (*Chain)(nil)
var _ chain.HeadSubscriber = (*Chain)(nil)
var _ chain.BlockReader = (*Chain)(nil)

// New makes a devchain from cfg. With cfg.DataDir it reopens the chain found
// there, replaying its log.
func New(cfg Config) (*Chain, error) {
	cfg.setDefaults()
	c := &Chain{
		cfg:       cfg,
		contracts: map[string]Contract{},
		devKeys:   map[chain.Address]ed25519.PrivateKey{},
		accounts:  map[chain.Address]*account{},
		state:     map[string][]byte{},
		included:  map[chain.Hash]txLoc{},
		dropped:   map[chain.Hash]string{},
		pool:      newMempool(),
		subs:      map[chan chain.BlockHeader]struct{}{},
	}
	c.faucetGiven = map[chain.Address]uint64{}
	for _, k := range append([]Contract{ZkApp{}, Library{}, Registry{}, Workflow{}, PrivacyGroup{}, Nodes{}, ReplicaSets{}}, cfg.Contracts...) {
		c.contracts[k.Name()] = k
	}
	c.contracts[IntentsContract] = Intents{}                           // reserved: the chain writes it
	c.contracts[MulticallContract] = multicall{contracts: c.contracts} // reserved: registered last
	c.faults = FaultState{ReorgDepth: 1}
	if err := c.applyFaults(cfg.Faults); err != nil {
		return nil, fmt.Errorf("devchain faults: %w", err)
	}
	g := genesis{Seed: cfg.Seed, DevAccounts: cfg.DevAccounts, DevBalance: cfg.DevBalance, MinFee: cfg.MinFee, Time: cfg.Clock.Now().UTC()}
	if cfg.DataDir != "" {
		l, prev, rep, err := openBlockLog(cfg.DataDir, g, c.replay)
		if err != nil {
			return nil, err
		}
		c.log = l
		if prev != nil {
			g = *prev
		}
		c.reportOpen(rep)
	} else {
		c.initGenesis(g)
	}
	c.rng = rand.New(rand.NewPCG(g.Seed, g.Seed^0x9e3779b97f4a7c15^c.head().Height))
	c.nextAt = cfg.Clock.Now().Add(cfg.BlockTime)
	return c, nil
}

type genesis struct {
	Seed        uint64 `json:"seed"`
	DevAccounts int    `json:"devAccounts"`
	DevBalance  uint64 `json:"devBalance"`
	// MinFee is the base minimum fee the chain was created with; a restart
	// keeps it whatever the flags say.
	MinFee uint64    `json:"minFee,omitempty"`
	Time   time.Time `json:"time"`
}

func (c *Chain) initGenesis(g genesis) {
	c.chainID = fmt.Sprintf("devchain/%d", g.Seed)
	for i := range g.DevAccounts {
		key := chain.KeyFromSeed(fmt.Sprintf("devchain/%d/dev/%d", g.Seed, i))
		addr := chain.KeyAddress(key)
		c.devKeys[addr] = key
		c.devOrder = append(c.devOrder, addr)
		c.accounts[addr] = &account{balance: g.DevBalance}
	}
	if g.MinFee != 0 {
		c.cfg.MinFee = g.MinFee
	}
	b := &chain.Block{BlockHeader: chain.BlockHeader{Height: 0, Time: g.Time, MinFee: c.cfg.MinFee}, Txs: []chain.BlockTx{}}
	b.Hash = blockHash(b)
	c.blocks = []*chain.Block{b}
	c.undo = [][]kvUndo{nil}
}

// Close stops the chain and closes its log. Subscriptions end.
func (c *Chain) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	c.endSubsLocked()
	if c.log != nil {
		return c.log.close()
	}
	return nil
}

// Config returns the chain's configuration with defaults filled in.
func (c *Chain) Config() Config { return c.cfg }

func (c *Chain) head() *chain.Block { return c.blocks[len(c.blocks)-1] }

func (c *Chain) acct(a chain.Address) *account {
	ac := c.accounts[a]
	if ac == nil {
		ac = &account{}
		c.accounts[a] = ac
	}
	return ac
}

// Head returns the newest block's header, with the reorg depth the chain
// declares.
func (c *Chain) Head(ctx context.Context) (chain.BlockHeader, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.headerLocked(c.head()), nil
}

// Identity implements chain.Identifier: "devchain/<seed>" (the seed the
// chain was created with, kept by its block log) and the hash of its genesis
// block, which covers the genesis time.
func (c *Chain) Identity(context.Context) (chain.Identity, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return chain.Identity{ChainID: c.chainID, Genesis: c.blocks[0].Hash}, nil
}

// headerLocked is b's header as a head: with the declared reorg depth.
func (c *Chain) headerLocked(b *chain.Block) chain.BlockHeader {
	h := b.BlockHeader
	h.ReorgDepth = c.cfg.FinalityDepth
	if c.faults.ReorgEvery > 0 {
		h.ReorgDepth = max(h.ReorgDepth, c.faults.ReorgDepth)
	}
	return h
}

// SendTx validates, verifies (or, in dev mode, signs for a dev account) and
// admits a transaction to the mempool. Beyond chain.Tx.Validate, a memo
// with a NUL byte and args with a key twice in one object (at any depth) are
// refused as invalid.
func (c *Chain) SendTx(ctx context.Context, tx chain.Tx) (chain.Hash, error) {
	if err := checkTxInput(&tx); err != nil {
		return "", err
	}
	if err := tx.Normalize(); err != nil {
		return "", err
	}
	if _, ok := c.contracts[tx.Contract]; !ok {
		return "", fmt.Errorf("%w: %q", chain.ErrUnknownContract, tx.Contract)
	}
	h := tx.HashCanonical() // args were made canonical above: hash once
	if tx.Signature == "" {
		key, ok := c.devKeys[tx.From]
		if !ok || c.cfg.NoDevMode {
			return "", fmt.Errorf("%w: unsigned transaction from an account that is not a dev account", chain.ErrBadSignature)
		}
		tx.SignHash(key, h)
	} else if err := tx.VerifyHash(h); err != nil {
		return "", err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return h, c.admit(tx, h)
}

func (c *Chain) admit(tx chain.Tx, h chain.Hash) error {
	if c.closed {
		return fmt.Errorf("%w: chain is closed", chain.ErrRejected)
	}
	if p := c.pool.byHash[h]; p != nil && !p.doomed {
		return nil // already known: idempotent
	}
	if _, ok := c.included[h]; ok {
		return nil
	}
	if c.roll(c.faults.RejectProb) {
		return fmt.Errorf("%w: fault injection", chain.ErrRejected)
	}
	var ac account // read without creating: a rejected sender leaves no trace
	if a := c.accounts[tx.From]; a != nil {
		ac = *a
	}
	if tx.Nonce < ac.nonce {
		return fmt.Errorf("%w: account nonce is %d, transaction nonce %d", chain.ErrNonceTooLow, ac.nonce, tx.Nonce)
	}
	if tx.Nonce > ac.nonce+c.cfg.MaxNonceGap {
		return fmt.Errorf("%w: account nonce is %d, transaction nonce %d", chain.ErrNonceTooHigh, ac.nonce, tx.Nonce)
	}
	if tx.Fee < c.cfg.MinFee {
		return fmt.Errorf("%w: fee %d, minimum %d", chain.ErrFeeTooLow, tx.Fee, c.cfg.MinFee)
	}
	if ac.balance < tx.Fee {
		return fmt.Errorf("%w: balance %d, fee %d", chain.ErrInsufficientFunds, ac.balance, tx.Fee)
	}
	old := c.pool.get(tx.From, tx.Nonce)
	if old != nil && !old.doomed {
		// Replacement: at least 110% of the pending fee.
		if !replaces(tx.Fee, old.tx.Fee) {
			return fmt.Errorf("%w: pending fee %d, offered %d", chain.ErrReplacementUnderpriced, old.tx.Fee, tx.Fee)
		}
	}
	if old == nil && c.pool.len() >= c.cfg.MaxMempool {
		return chain.ErrMempoolFull
	}
	if old != nil {
		c.pool.remove(old)
		if !old.doomed {
			c.dropped[old.hash] = "replaced by " + string(h)
		}
	}
	delete(c.dropped, h)
	c.pool.add(&poolTx{tx: tx, hash: h, doomed: c.roll(c.faults.DropProb)})
	return nil
}

func (c *Chain) roll(p float64) bool {
	if p <= 0 {
		return false
	}
	return c.rng.Float64() < p
}

// Tick produces the blocks that are due at now: one each BlockTime. A stall
// postpones production. It returns how many blocks it made.
func (c *Chain) Tick(now time.Time) int {
	n := 0
	for {
		c.mu.Lock()
		if now.Before(c.nextAt) || c.closed {
			c.mu.Unlock()
			return n
		}
		c.nextAt = c.nextAt.Add(c.cfg.BlockTime)
		if c.nextAt.Before(now) { // far behind: don't burst, resume the cadence
			c.nextAt = now.Add(c.cfg.BlockTime)
		}
		_, ok, err := c.mineLocked(now)
		c.mu.Unlock()
		if err == nil && ok {
			n++
		}
	}
}

// NextBlockAt returns when Tick will next produce a block.
func (c *Chain) NextBlockAt() time.Time {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.faults.StallUntil.After(c.nextAt) {
		return c.faults.StallUntil
	}
	return c.nextAt
}

// Mine produces one block now, whatever the block time. It makes none while
// a stall is in force (ok is false).
func (c *Chain) Mine(ctx context.Context) (hdr chain.BlockHeader, ok bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mineLocked(c.cfg.Clock.Now())
}

func (c *Chain) mineLocked(now time.Time) (chain.BlockHeader, bool, error) {
	if c.closed {
		return chain.BlockHeader{}, false, fmt.Errorf("%w: chain is closed", chain.ErrRejected)
	}
	if now.Before(c.faults.StallUntil) {
		return chain.BlockHeader{}, false, nil
	}
	if c.faults.ReorgEvery > 0 && c.head().Height > 0 && c.head().Height%c.faults.ReorgEvery == 0 && !c.reorgedAt(c.head().Height) {
		if err := c.reorgLocked(c.faults.ReorgDepth, now); err != nil {
			return chain.BlockHeader{}, false, err
		}
	}
	b := c.buildBlock(now)
	if err := c.commitBlock(b); err != nil {
		return chain.BlockHeader{}, false, err
	}
	return b.BlockHeader, true, nil
}

// reorgedAt reports whether the periodic reorg already replaced the blocks
// up to height (the head is then one of its replacement blocks).
func (c *Chain) reorgedAt(height uint64) bool { return c.lastReorg == height }

func (c *Chain) currentMinFee() uint64 {
	if c.faults.FeeSpikeBlocks > 0 {
		return c.cfg.MinFee * c.faults.FeeSpikeFactor
	}
	return c.cfg.MinFee
}

// buildBlock selects and executes the next block's transactions.
func (c *Chain) buildBlock(now time.Time) *chain.Block {
	c.pool.dropDoomed() // silent drops: the chain forgets them
	minFee := c.currentMinFee()
	parent := c.head()
	b := newBlock(parent, now, minFee)
	// Candidates: each sender's transaction at its next nonce.
	h := feeHeap{}
	for from, txs := range c.pool.bySender {
		if p := txs[c.acct(from).nonce]; p != nil && p.tx.Fee >= minFee {
			h = append(h, p)
		}
	}
	heap.Init(&h)
	var undo []kvUndo
	for h.Len() > 0 && len(b.Txs) < c.cfg.MaxBlockTxs {
		p := heap.Pop(&h).(*poolTx)
		ac := c.acct(p.tx.From)
		c.pool.remove(p)
		if ac.balance < p.tx.Fee {
			c.dropped[p.hash] = "insufficient funds at inclusion"
			continue
		}
		status, reason := chain.OutcomeSucceeded, ""
		if c.roll(c.faults.RevertProb) {
			status, reason = chain.OutcomeFailed, ReasonReverted
		}
		bt := chain.BlockTx{Tx: p.tx, Hash: p.hash, Index: len(b.Txs), Status: status, Reason: reason}
		undo = c.execTx(b, &bt, undo)
		b.Txs = append(b.Txs, bt)
		if next := c.pool.get(p.tx.From, ac.nonce); next != nil && next.tx.Fee >= minFee {
			heap.Push(&h, next)
		}
	}
	b.TxCount = len(b.Txs)
	b.Hash = blockHash(b)
	c.undo = append(c.undo, undo)
	return b
}

// execTx charges the fee, consumes the nonce and, unless bt already failed
// or its memo is an intent already applied (chain.ReasonDuplicateIntent),
// runs the contract; on success it records the memo (Intents). It records
// the outcome in bt and appends kv undo entries.
func (c *Chain) execTx(b *chain.Block, bt *chain.BlockTx, undo []kvUndo) []kvUndo {
	ac := c.acct(bt.From)
	ac.balance -= bt.Fee
	ac.nonce++
	c.included[bt.Hash] = txLoc{height: b.Height, index: bt.Index}
	delete(c.dropped, bt.Hash)
	if bt.Status == chain.OutcomeFailed {
		return undo
	}
	if c.duplicateIntent(bt.Memo) {
		bt.Status, bt.Reason = chain.OutcomeFailed, chain.ReasonDuplicateIntent
		return undo
	}
	k := c.contracts[bt.Contract]
	x := &Exec{Height: b.Height, Time: b.Time, From: bt.From, TxHash: bt.Hash, contract: bt.Contract, state: c.state}
	err := errNoContract
	if k != nil {
		err = k.Apply(x, bt.Method, bt.Args)
	}
	if err != nil {
		bt.Status, bt.Reason = chain.OutcomeFailed, err.Error()
		return c.applyWrites(&x.always, undo)
	}
	recordIntent(&x.writes, b, bt)
	undo = c.applyWrites(&x.writes, undo)
	for _, e := range x.events {
		c.cursor++
		c.events = append(c.events, chain.Event{Cursor: c.cursor, Height: b.Height, TxHash: bt.Hash, TxIndex: bt.Index, Contract: e.contract, Name: e.name, Data: e.data})
	}
	return undo
}

// applyWrites applies w to the state in order and appends their undo
// entries.
func (c *Chain) applyWrites(w *writeSet, undo []kvUndo) []kvUndo {
	for _, sk := range w.order {
		old, existed := c.state[sk]
		undo = append(undo, kvUndo{key: sk, old: old, existed: existed})
		if v := w.vals[sk]; v == nil {
			delete(c.state, sk)
		} else {
			c.state[sk] = v
		}
	}
	return undo
}

var errNoContract = errors.New("unknown contract")

// commitBlock logs the block (when durable), appends it and notifies
// subscribers.
func (c *Chain) commitBlock(b *chain.Block) error {
	if c.log != nil {
		if err := c.log.append(logRecord{Block: b}); err != nil {
			return err
		}
	}
	c.blocks = append(c.blocks, b)
	if c.faults.FeeSpikeBlocks > 0 {
		c.faults.FeeSpikeBlocks--
	}
	hd := c.headerLocked(b)
	for ch := range c.subs {
		select {
		case ch <- hd:
		default:
		}
	}
	return nil
}

// newBlock starts an empty block on top of parent.
func newBlock(parent *chain.Block, now time.Time, minFee uint64) *chain.Block {
	return &chain.Block{BlockHeader: chain.BlockHeader{Height: parent.Height + 1, Parent: parent.Hash, Time: now.UTC(), MinFee: minFee}, Txs: []chain.BlockTx{}}
}

func blockHash(b *chain.Block) chain.Hash {
	h := sha256.New()
	var n [8]byte
	h.Write([]byte(b.Parent))
	binary.BigEndian.PutUint64(n[:], b.Height)
	h.Write(n[:])
	binary.BigEndian.PutUint64(n[:], uint64(b.Time.UnixNano()))
	h.Write(n[:])
	binary.BigEndian.PutUint64(n[:], b.MinFee)
	h.Write(n[:])
	for _, t := range b.Txs {
		h.Write([]byte(t.Hash))
		h.Write([]byte(t.Status))
		h.Write([]byte(t.Reason))
		h.Write([]byte{0})
	}
	return chain.Hash(hex.EncodeToString(h.Sum(nil)))
}

// reorgLocked replaces the last depth blocks with empty ones at the same
// heights: state is rolled back exactly, events of those blocks are removed and
// their transactions return to the mempool.
func (c *Chain) reorgLocked(depth uint64, now time.Time) error {
	hd := c.head().Height
	if depth > hd {
		depth = hd
	}
	if depth == 0 {
		return nil
	}
	if c.log != nil {
		if err := c.log.append(logRecord{Reorg: depth}); err != nil {
			return err
		}
	}
	c.rollback(depth)
	c.faults.Reorgs++
	c.lastReorg = hd
	for range depth {
		parent := c.head()
		b := newBlock(parent, now, c.currentMinFee())
		b.Hash = blockHash(b)
		c.undo = append(c.undo, nil)
		if err := c.commitBlock(b); err != nil {
			return err
		}
	}
	return nil
}

func (c *Chain) rollback(depth uint64) {
	for range depth {
		b := c.head()
		u := c.undo[len(c.undo)-1]
		for i := len(u) - 1; i >= 0; i-- {
			if u[i].existed {
				c.state[u[i].key] = u[i].old
			} else {
				delete(c.state, u[i].key)
			}
		}
		for i := len(b.Txs) - 1; i >= 0; i-- {
			t := b.Txs[i]
			ac := c.acct(t.From)
			ac.balance += t.Fee
			ac.nonce--
			delete(c.included, t.Hash)
		}
		for _, t := range b.Txs {
			if c.pool.get(t.From, t.Nonce) == nil {
				c.pool.add(&poolTx{tx: t.Tx, hash: t.Hash})
			}
		}
		c.blocks = c.blocks[:len(c.blocks)-1]
		c.undo = c.undo[:len(c.undo)-1]
	}
	hd := c.head().Height
	i := sort.Search(len(c.events), func(i int) bool { return c.events[i].Height > hd })
	c.events = c.events[:i]
}

// replaces reports whether fee is at least 110% of old: fee >= old +
// ceil(old/10), which never overflows (an unreachable minimum refuses).
func replaces(fee, old uint64) bool {
	step := old / 10
	if old%10 != 0 {
		step++
	}
	least, carry := bits.Add64(old, step, 0)
	return carry == 0 && fee >= least
}
