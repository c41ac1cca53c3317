package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/store"
)

// instantChain is the burndown's ledger: no signatures checked, no
// validation, no fees. Every transaction sent is included, succeeded, in
// the next block, which is made as soon as there is one to include and the
// previous head was taken (SubscribeHeads): heads come as fast as the node
// takes them, and no empty block is ever made. Several nodes may subscribe
// (BurndownOptions.Nodes): each gets every head, the newest when it takes
// one, and whichever is free makes the next block. It declares no reorg
// depth, so the node waits one confirmation, the inclusion's own block.
type instantChain struct {
	mu sync.Mutex
	// blocks are the last keptBlocks blocks, oldest first; height is the
	// head's. A chain lives outside the node: what it keeps of old blocks
	// is not the node's memory to measure, and the node reads blocks at
	// its head (an older one reads as absent: the node keeps the nonce and
	// fee its attempt recorded).
	blocks  []chain.Block
	height  uint64
	mempool []chain.BlockTx
	status  map[chain.Hash]chain.TxStatus
	nonces  map[chain.Address]uint64
	// wakes has one channel a subscriber, holding one token: the mempool
	// has transactions, or a block was made since it last looked.
	wakes []chan struct{}
	sent  int
}

var (
	_ chain.Chain          = (*instantChain)(nil)
	_ chain.HeadSubscriber = (*instantChain)(nil)
	_ chain.BlockReader    = (*instantChain)(nil)
)

func newInstantChain() *instantChain {
	return &instantChain{status: map[chain.Hash]chain.TxStatus{}, nonces: map[chain.Address]uint64{}}
}

// errNoContracts answers Call: the burndown's chain has no contract state.
var errNoContracts = errors.New("bench: the burndown chain has no contracts")

// keptBlocks is how many of the newest blocks the burndown's chain keeps.
const keptBlocks = 1024

func (c *instantChain) headLocked() chain.BlockHeader {
	if len(c.blocks) == 0 {
		return chain.BlockHeader{}
	}
	return c.blocks[len(c.blocks)-1].BlockHeader
}

// Head implements chain.Chain.
func (c *instantChain) Head(context.Context) (chain.BlockHeader, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.headLocked(), nil
}

// SendTx implements chain.Chain: tx goes in the mempool, for the next block.
func (c *instantChain) SendTx(_ context.Context, tx chain.Tx) (chain.Hash, error) {
	h := tx.HashCanonical() // the sequencer hands args in canonical form
	// The block keeps what the node reads of a block (hash, sender,
	// nonce, fee): a chain lives outside the node, so its copy of every
	// signature and memo is not the node's memory to measure.
	tx.Args, tx.Memo, tx.Signature = nil, "", ""
	c.mu.Lock()
	c.mempool = append(c.mempool, chain.BlockTx{Tx: tx, Hash: h, Status: chain.OutcomeSucceeded})
	c.status[h] = chain.TxStatus{Hash: h, State: chain.TxPending}
	c.sent++
	c.wakeLocked()
	c.mu.Unlock()
	return h, nil
}

// TxStatus implements chain.Chain.
func (c *instantChain) TxStatus(_ context.Context, h chain.Hash) (chain.TxStatus, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.status[h]; ok {
		return st, nil
	}
	return chain.TxStatus{Hash: h, State: chain.TxUnknown}, nil
}

// Events implements chain.Chain: there are none.
func (c *instantChain) Events(context.Context, uint64, int) ([]chain.Event, error) { return nil, nil }

// Call implements chain.Chain.
func (c *instantChain) Call(context.Context, string, string, json.RawMessage) (json.RawMessage, error) {
	return nil, errNoContracts
}

// Account implements chain.Chain.
func (c *instantChain) Account(_ context.Context, a chain.Address) (chain.Account, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.nonces[a]
	return chain.Account{Address: a, Nonce: n, PendingNonce: n}, nil
}

// MinFee implements chain.Chain: 0.
func (c *instantChain) MinFee(context.Context) (uint64, error) { return 0, nil }

// Blocks implements chain.BlockReader.
func (c *instantChain) Blocks(_ context.Context, from, to uint64) ([]chain.Block, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	first := c.height - uint64(len(c.blocks)) + 1 // the oldest kept
	from = max(from, first)
	to = min(to, c.height)
	if from > to || len(c.blocks) == 0 {
		return nil, nil
	}
	return append([]chain.Block(nil), c.blocks[from-first:to-first+1]...), nil
}

// wakeLocked gives every subscriber its token.
func (c *instantChain) wakeLocked() {
	for _, w := range c.wakes {
		select {
		case w <- struct{}{}:
		default:
		}
	}
}

// SubscribeHeads implements chain.HeadSubscriber: when woken, a subscriber
// makes a block of the mempool (if it holds transactions) and takes the
// newest head, if it has not had it yet.
func (c *instantChain) SubscribeHeads(ctx context.Context) (<-chan chain.BlockHeader, error) {
	out := make(chan chain.BlockHeader)
	w := make(chan struct{}, 1)
	c.mu.Lock()
	c.wakes = append(c.wakes, w)
	c.mu.Unlock()
	go func() {
		defer close(out)
		var seen uint64
		for {
			select {
			case <-ctx.Done():
				return
			case <-w:
			}
			h, ok := c.next(seen)
			if !ok {
				continue
			}
			seen = h.Height
			select {
			case out <- h:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

// next makes a block of the mempool, if it holds transactions, and returns
// the head if it is above seen.
func (c *instantChain) next(seen uint64) (chain.BlockHeader, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.mempool) > 0 {
		c.makeBlockLocked()
		c.wakeLocked() // the other subscribers take it too
	}
	if c.height <= seen {
		return chain.BlockHeader{}, false
	}
	return c.headLocked(), true
}

// makeBlockLocked includes the mempool in a new block.
func (c *instantChain) makeBlockLocked() {
	height := c.height + 1
	txs := c.mempool
	c.mempool = nil
	for i := range txs {
		t := &txs[i]
		t.Index = i
		c.status[t.Hash] = chain.TxStatus{Hash: t.Hash, State: chain.TxIncluded, Height: height, Index: i, Success: true}
		c.nonces[t.From] = max(c.nonces[t.From], t.Nonce+1)
	}
	b := chain.Block{BlockHeader: chain.BlockHeader{Height: height, Hash: chain.Hash(fmt.Sprintf("%064x", height)), TxCount: len(txs)}, Txs: txs}
	if len(c.blocks) > 0 {
		b.Parent = c.blocks[len(c.blocks)-1].Hash
	}
	if len(c.blocks) == keptBlocks {
		c.blocks[0] = chain.Block{}
		c.blocks = c.blocks[1:]
	}
	c.blocks = append(c.blocks, b)
	c.height = height
}

// noopDispatcher builds an empty call for the burndown's chain and does
// nothing on success or failure.
type noopDispatcher struct{}

var (
	_ sequencer.Dispatcher = noopDispatcher{}
	_ sequencer.Builder    = noopDispatcher{}
)

// burndownType is the one transaction type of the burndown.
const burndownType = "NOOP"

func (noopDispatcher) Name() string    { return burndownType }
func (noopDispatcher) MaxRetries() int { return 0 }

// Build implements sequencer.Builder: a call carrying the record's uid.
func (noopDispatcher) Build(_ context.Context, txn sequencer.RawTxnData, _ sequencer.Sender) (chain.Tx, error) {
	return chain.Tx{Contract: "noop", Method: "run", Memo: txn.UID}, nil
}

// Dispatch implements sequencer.Dispatcher; the node never calls it for a
// Builder with keystore senders.
func (noopDispatcher) Dispatch(context.Context, sequencer.RawTxnData, sequencer.Sender) (sequencer.TxnResult, error) {
	return sequencer.TxnResult{}, sequencer.Permanent(errors.New("bench: the no-op dispatcher only builds"))
}

// PureHooks implements sequencer.PureHooks: the hooks below return the
// result as given, so the node runs them on its loop and commits the result
// with the transaction's end.
func (noopDispatcher) PureHooks() bool { return true }

func (noopDispatcher) OnSuccess(_ context.Context, _ sequencer.RawTxnData, r sequencer.TxnResult, _ sequencer.Sender) (sequencer.TxnResult, error) {
	return r, nil
}

func (noopDispatcher) OnFailure(_ context.Context, _ sequencer.RawTxnData, r sequencer.TxnResult, _ sequencer.Sender) (sequencer.TxnResult, error) {
	return r, nil
}

// countingStore counts the node's commits, their rows and the time spent
// in them, for the progress lines (the counts of several stores when the
// burndown runs several nodes: also).
type countingStore struct {
	store.Store
	*counts
}

// counts are what countingStores counted.
type counts struct {
	applies, txs, attempts, queues, senders, history atomic.Int64
	applyNanos                                       atomic.Int64
}

// Apply implements store.Store.
func (c *countingStore) Apply(ctx context.Context, b store.Batch) error {
	c.count(b)
	t0 := wall.Now()
	err := c.Store.Apply(ctx, b)
	c.applyNanos.Add(int64(wall.Now().Sub(t0)))
	return err
}

// countingPipeliner is a countingStore of a store.Pipeliner, and one too
// (the node looks for it: a wrapper without it would hide it).
type countingPipeliner struct{ *countingStore }

// counting wraps st in a countingStore, a Pipeliner if st is one.
func counting(st store.Store) (*countingStore, store.Store) {
	c := &countingStore{Store: st, counts: &counts{}}
	return c, c.also(st)
}

// also wraps st in a countingStore that counts with c (a Pipeliner if st
// is one).
func (c *countingStore) also(st store.Store) store.Store {
	o := &countingStore{Store: st, counts: c.counts}
	if _, ok := st.(store.Pipeliner); ok {
		return countingPipeliner{o}
	}
	return o
}

// StartApply implements store.Pipeliner.
func (c countingPipeliner) StartApply(ctx context.Context, b store.Batch, after store.Started) store.Started {
	c.count(b)
	if t, ok := after.(timedStart); ok {
		after = t.Started // the store chains only to its own
	}
	return timedStart{c.countingStore, wall.Now(), c.Store.(store.Pipeliner).StartApply(ctx, b, after)}
}

// timedStart adds a started batch's time to its countingStore's.
type timedStart struct {
	c  *countingStore
	t0 time.Time
	store.Started
}

// Wait implements store.Started.
func (t timedStart) Wait(ctx context.Context) error {
	err := t.Started.Wait(ctx)
	t.c.applyNanos.Add(int64(wall.Now().Sub(t.t0)))
	return err
}

func (c *counts) count(b store.Batch) {
	c.applies.Add(1)
	c.txs.Add(int64(len(b.Txs)))
	for i := range b.Txs {
		if b.Txs[i].Attempt != nil {
			c.attempts.Add(1)
		}
	}
	c.queues.Add(int64(len(b.Queues)))
	c.senders.Add(int64(len(b.Senders)))
	c.history.Add(int64(len(b.History)))
}

// String names the counts.
func (c *counts) String() string {
	return fmt.Sprintf("%d commits: %d tx updates (%d with an attempt), %d queues, %d senders, %d history; %s in Apply",
		c.applies.Load(), c.txs.Load(), c.attempts.Load(), c.queues.Load(), c.senders.Load(), c.history.Load(),
		time.Duration(c.applyNanos.Load()).Round(time.Millisecond))
}
