package devchain

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/ordolabs/ordo/internal/chain"
)

// TxStatus reports a transaction's status.
func (c *Chain) TxStatus(ctx context.Context, h chain.Hash) (chain.TxStatus, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	st := chain.TxStatus{Hash: h, State: chain.TxUnknown}
	if loc, ok := c.included[h]; ok {
		t := c.blocks[loc.height].Txs[loc.index]
		st.State, st.Height, st.Index = chain.TxIncluded, loc.height, loc.index
		st.Success, st.Reason = t.Status == chain.OutcomeSucceeded, t.Reason
	} else if p := c.pool.byHash[h]; p != nil {
		st.State = chain.TxPending
	} else if why, ok := c.dropped[h]; ok {
		st.State, st.Reason = chain.TxDropped, why
	}
	return st, nil
}

// Events returns up to limit events after the cursor.
func (c *Chain) Events(ctx context.Context, after uint64, limit int) ([]chain.Event, error) {
	if limit <= 0 || limit > MaxEventsPerRequest {
		limit = MaxEventsPerRequest
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	i := sort.Search(len(c.events), func(i int) bool { return c.events[i].Cursor > after })
	j := min(i+limit, len(c.events))
	return append([]chain.Event(nil), c.events[i:j]...), nil
}

// Call runs a read-only contract method. Args with a key twice in one
// object (at any depth) are refused (ErrCallFailed). A read of something the
// contract does not hold (registry's tool, workflow's walk) fails with an
// error wrapping chain.ErrNotFound; every other failure wraps ErrCallFailed.
func (c *Chain) Call(ctx context.Context, contract, method string, args json.RawMessage) (json.RawMessage, error) {
	k, ok := c.contracts[contract]
	if !ok {
		return nil, fmt.Errorf("%w: %q", chain.ErrUnknownContract, contract)
	}
	if err := checkArgsKeys(args); err != nil {
		return nil, fmt.Errorf("%w: %w", chain.ErrCallFailed, err)
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	out, err := k.Call(contractReader{contract: contract, state: c.state}, method, args)
	if errors.Is(err, errNoMethod) {
		return nil, fmt.Errorf("%w: %s.%s", chain.ErrUnknownMethod, contract, method)
	}
	if errors.Is(err, chain.ErrNotFound) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", chain.ErrCallFailed, err)
	}
	return out, nil
}

// Account returns an account's nonce and balance.
func (c *Chain) Account(ctx context.Context, addr chain.Address) (chain.Account, error) {
	if err := chain.ValidateAddress(addr); err != nil {
		return chain.Account{}, fmt.Errorf("%w: %w", chain.ErrInvalidTx, err)
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	var a account
	if ac := c.accounts[addr]; ac != nil {
		a = *ac
	}
	return chain.Account{Address: addr, Nonce: a.nonce, PendingNonce: c.pool.pendingNonce(addr, a.nonce), Balance: a.balance}, nil
}

// MinFee returns the minimum fee in force.
func (c *Chain) MinFee(ctx context.Context) (uint64, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.currentMinFee(), nil
}

// SubscribeHeads pushes each new head until ctx ends or the chain closes.
func (c *Chain) SubscribeHeads(ctx context.Context) (<-chan chain.BlockHeader, error) {
	ch := make(chan chain.BlockHeader, 64)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, fmt.Errorf("%w: chain is closed", chain.ErrRejected)
	}
	c.subs[ch] = struct{}{}
	c.mu.Unlock()
	context.AfterFunc(ctx, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if _, ok := c.subs[ch]; ok {
			delete(c.subs, ch)
			close(ch)
		}
	})
	return ch, nil
}

// Blocks returns blocks with heights in [from, to], at most
// MaxBlocksPerRequest, none above the head.
func (c *Chain) Blocks(ctx context.Context, from, to uint64) ([]chain.Block, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	hd := c.head().Height
	if to > hd {
		to = hd
	}
	if to >= from && to-from >= MaxBlocksPerRequest {
		to = from + MaxBlocksPerRequest - 1
	}
	var out []chain.Block
	for h := from; h <= to; h++ {
		b := *c.blocks[h]
		b.Txs = append(make([]chain.BlockTx, 0, len(b.Txs)), b.Txs...) // callers must not reach the chain's own slices
		out = append(out, b)
	}
	return out, nil
}

// DevAccount is a funded account whose key the chain holds in dev mode.
type DevAccount struct {
	Address chain.Address `json:"address"`
	Nonce   uint64        `json:"nonce"`
	Balance uint64        `json:"balance"`
}

// DevAccounts lists the dev accounts with their nonce and balance.
func (c *Chain) DevAccounts(ctx context.Context) ([]DevAccount, error) {
	if c.cfg.NoDevMode {
		return nil, chain.ErrNotDevMode
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]DevAccount, 0, len(c.devOrder))
	for _, a := range c.devOrder {
		ac := c.accounts[a]
		out = append(out, DevAccount{Address: a, Nonce: ac.nonce, Balance: ac.balance})
	}
	return out, nil
}

// DevKey returns a dev account's key, for in-process signers.
func (c *Chain) DevKey(a chain.Address) (ed25519.PrivateKey, bool) {
	k, ok := c.devKeys[a]
	return k, ok
}

// Stats is a summary of the chain for logs and benchmarks.
type Stats struct {
	Height  uint64 `json:"height"`
	Mempool int    `json:"mempool"`
	Events  uint64 `json:"events"`
}

// Stats returns the chain's summary.
func (c *Chain) Stats() Stats {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return Stats{Height: c.head().Height, Mempool: c.pool.len(), Events: c.cursor}
}

// EndSubscriptions closes every head subscription, so that streaming
// readers (the HTTP API's server-sent events) end before a shutdown waits on
// them. The chain keeps running; new subscriptions are accepted.
func (c *Chain) EndSubscriptions() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.endSubsLocked()
}

func (c *Chain) endSubsLocked() {
	for ch := range c.subs {
		close(ch)
		delete(c.subs, ch)
	}
}
