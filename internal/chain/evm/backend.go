package evm

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/clock"
)

// Backoff is how long an endpoint that failed is left alone: Start after
// its first failure, doubling on each further one up to Max.
type Backoff struct {
	// Start is the first backoff; default 1s.
	Start time.Duration
	// Max caps it; default 1m.
	Max time.Duration
}

// Config points a Backend at an EVM chain.
type Config struct {
	// URLs are the JSON-RPC endpoints (http, https, ws, wss), tried in
	// order (failover). New needs at least one.
	URLs []string
	// ChainID is the chain's id: 0 takes the chain's own; otherwise the
	// chain's eth_chainId must equal it at first contact (New).
	ChainID uint64
	// Router is the OrdoRouter's address; zero for none (then a
	// transaction with a memo is refused). Its events are named "router".
	Router common.Address
	// Contracts are the contracts transactions, calls and events name, by
	// ordo name (1-64 characters of [a-z0-9_-]); default none.
	Contracts map[string]Contract
	// ReorgDepth is the deepest reorg assumed: an inclusion under
	// ReorgDepth+1 blocks is final, and events are read up to head −
	// ReorgDepth; default 2. Ignored when Finalized is set.
	ReorgDepth uint64
	// Finalized takes finality from the chain's "finalized" block tag
	// instead: the reorg depth of a head is head − finalized. Default
	// false.
	Finalized bool
	// TipPercent is the priority fee as a share of an attempt's fee cap
	// (Tx.Fee), in percent; default 10, at most 100.
	TipPercent uint64
	// GasMarginPercent is the gas limit as a share of the estimate, in
	// percent; default 130, at least 100.
	GasMarginPercent uint64
	// Backoff is the backoff of a failing endpoint; default 1s doubling
	// to 1m.
	Backoff Backoff
	// CallTimeout bounds one JSON-RPC call to one endpoint; a call that
	// takes longer backs the endpoint off and moves on; default 10s.
	CallTimeout time.Duration
	// Clock times backoffs and the faucet's wait; default clock.Real{}.
	Clock clock.Clock
	// Logger receives warnings (an endpoint backed off); default discards.
	Logger *slog.Logger
	// FaucetKey is a funded key of a development chain; when set, Faucet
	// transfers from it. Default none (Faucet answers ErrNotDevMode).
	FaucetKey *ecdsa.PrivateKey
}

func (c *Config) defaults() error {
	if c.ReorgDepth == 0 {
		c.ReorgDepth = 2
	}
	if c.TipPercent == 0 {
		c.TipPercent = 10
	}
	if c.TipPercent > 100 {
		return fmt.Errorf("evm: tipPercent %d: at most 100", c.TipPercent)
	}
	if c.GasMarginPercent == 0 {
		c.GasMarginPercent = 130
	}
	if c.GasMarginPercent < 100 {
		return fmt.Errorf("evm: gasMarginPercent %d: at least 100", c.GasMarginPercent)
	}
	if c.Backoff.Start <= 0 {
		c.Backoff.Start = time.Second
	}
	if c.Backoff.Max < c.Backoff.Start {
		c.Backoff.Max = max(time.Minute, c.Backoff.Start)
	}
	if c.CallTimeout <= 0 {
		c.CallTimeout = 10 * time.Second
	}
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

// Backend is ordo's chain seam over an EVM chain's JSON-RPC: it
// implements chain.Chain, HeadSubscriber, BlockReader, Identifier,
// SignerProvider and GasEstimator.
type Backend struct {
	cfg     Config
	log     *slog.Logger
	eps     []*endpoint
	closers []func()
	reg     *registry
	signer  *Signer
	chainID *big.Int

	idMu sync.Mutex
	id   chain.Identity

	sentMu    sync.Mutex
	sent      map[common.Hash]sentTx // what SendTx sent, for TxDropped
	sentOrder []common.Hash          // sent's keys, oldest first

	faucetMu sync.Mutex
}

// sentTx is what TxStatus needs to tell a dropped transaction.
type sentTx struct {
	from  common.Address
	nonce uint64
}

// maxSent bounds the memory of sent transactions.
const maxSent = 1 << 16

var (
	_ chain.Chain          = (*Backend)(nil)
	_ chain.HeadSubscriber = (*Backend)(nil)
	_ chain.BlockReader    = (*Backend)(nil)
	_ chain.Identifier     = (*Backend)(nil)
	_ chain.SignerProvider = (*Backend)(nil)
	_ chain.GasEstimator   = (*Backend)(nil)
)

// New dials cfg.URLs and checks the chain's id (Config.ChainID).
func New(ctx context.Context, cfg Config) (*Backend, error) {
	if len(cfg.URLs) == 0 {
		return nil, errors.New("evm: no endpoint URL")
	}
	var eps []*endpoint
	var closers []func()
	for _, u := range cfg.URLs {
		c, err := rpc.DialContext(ctx, u)
		if err != nil {
			for _, f := range closers {
				f()
			}
			return nil, fmt.Errorf("evm: dial %s: %w", u, err)
		}
		closers = append(closers, c.Close)
		eps = append(eps, &endpoint{url: u, rpc: ethclient.NewClient(c),
			canSubscribe: strings.HasPrefix(u, "ws://") || strings.HasPrefix(u, "wss://")})
	}
	b, err := newBackend(ctx, cfg, eps)
	if err != nil {
		for _, f := range closers {
			f()
		}
		return nil, err
	}
	b.closers = closers
	return b, nil
}

// NewWithClients is New over clients already built (the simulated
// backend's Client in tests); cfg.URLs is ignored. Heads are subscribed to
// on them.
func NewWithClients(ctx context.Context, cfg Config, clients ...RPC) (*Backend, error) {
	if len(clients) == 0 {
		return nil, errors.New("evm: no client")
	}
	eps := make([]*endpoint, len(clients))
	for i, c := range clients {
		eps[i] = &endpoint{rpc: c, canSubscribe: true}
	}
	return newBackend(ctx, cfg, eps)
}

func newBackend(ctx context.Context, cfg Config, eps []*endpoint) (*Backend, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	reg, err := newRegistry(cfg.Router, cfg.Contracts)
	if err != nil {
		return nil, fmt.Errorf("evm: %w", err)
	}
	b := &Backend{cfg: cfg, log: cfg.Logger, eps: eps, reg: reg, sent: map[common.Hash]sentTx{}}
	id, err := call(ctx, b, func(ctx context.Context, c RPC) (*big.Int, error) { return c.ChainID(ctx) })
	if err != nil {
		return nil, fmt.Errorf("evm: eth_chainId: %w", err)
	}
	if cfg.ChainID != 0 && (!id.IsUint64() || id.Uint64() != cfg.ChainID) {
		return nil, fmt.Errorf("evm: the chain's id is %s, the configuration says %d", id, cfg.ChainID)
	}
	b.chainID = id
	b.signer = newSigner(id, reg, cfg.TipPercent)
	return b, nil
}

// Close closes the connections New dialled.
func (b *Backend) Close() {
	for _, f := range b.closers {
		f()
	}
}

// Signer is the chain's signing scheme (secp256k1, EIP-1559).
func (b *Backend) Signer() chain.Signer { return b.signer }

// ChainID is the chain's id.
func (b *Backend) ChainID() *big.Int { return new(big.Int).Set(b.chainID) }

// Identity is the chain id in decimal and the hash of block 0.
func (b *Backend) Identity(ctx context.Context) (chain.Identity, error) {
	b.idMu.Lock()
	defer b.idMu.Unlock()
	if b.id.Genesis != "" {
		return b.id, nil
	}
	h, err := call(ctx, b, func(ctx context.Context, c RPC) (*types.Header, error) { return c.HeaderByNumber(ctx, big.NewInt(0)) })
	if err != nil {
		return chain.Identity{}, fmt.Errorf("evm: block 0: %w", err)
	}
	b.id = chain.Identity{ChainID: b.chainID.String(), Genesis: hashOf(h.Hash())}
	return b.id, nil
}

// timeOf is a block's timestamp (seconds) as a time.
func timeOf(sec uint64) time.Time { return time.Unix(int64(sec), 0).UTC() }

// saturate is n as a uint64, the largest when it is larger (or 0 for nil
// or negative).
func saturate(n *big.Int) uint64 {
	switch {
	case n == nil || n.Sign() <= 0:
		return 0
	case !n.IsUint64():
		return ^uint64(0)
	}
	return n.Uint64()
}

// nextBaseFee is the base fee of the block after h (EIP-1559: elasticity
// 2, change denominator 8); 0 before London.
func nextBaseFee(h *types.Header) *big.Int {
	if h.BaseFee == nil {
		return new(big.Int)
	}
	base := new(big.Int).Set(h.BaseFee)
	target := h.GasLimit / 2
	if target == 0 || h.GasUsed == target {
		return base
	}
	if h.GasUsed > target {
		d := new(big.Int).Mul(base, new(big.Int).SetUint64(h.GasUsed-target))
		d.Div(d, new(big.Int).SetUint64(target))
		d.Div(d, big.NewInt(8))
		if d.Sign() == 0 {
			d.SetInt64(1)
		}
		return base.Add(base, d)
	}
	d := new(big.Int).Mul(base, new(big.Int).SetUint64(target-h.GasUsed))
	d.Div(d, new(big.Int).SetUint64(target))
	d.Div(d, big.NewInt(8))
	base.Sub(base, d)
	if base.Sign() < 0 {
		base.SetInt64(0)
	}
	return base
}

// minFee is the least fee cap a new attempt should offer after h, with
// the node's suggested tip: max(2×next base fee + tip, tip×100/TipPercent),
// so that the tip an attempt derives from its fee is at least the
// suggestion; saturated at uint64.
func (b *Backend) minFee(h *types.Header, tip *big.Int) uint64 {
	f := nextBaseFee(h)
	f.Mul(f, big.NewInt(2))
	f.Add(f, tip)
	byTip := new(big.Int).Mul(tip, big.NewInt(100))
	byTip.Div(byTip, new(big.Int).SetUint64(b.cfg.TipPercent))
	if byTip.Cmp(f) > 0 {
		f = byTip
	}
	return max(saturate(f), 1)
}

func (b *Backend) latest(ctx context.Context) (*types.Header, error) {
	return call(ctx, b, func(ctx context.Context, c RPC) (*types.Header, error) { return c.HeaderByNumber(ctx, nil) })
}

func (b *Backend) suggestedTip(ctx context.Context) (*big.Int, error) {
	return call(ctx, b, func(ctx context.Context, c RPC) (*big.Int, error) { return c.SuggestGasTipCap(ctx) })
}

// MinFee is the least fee cap (wei per gas) a new attempt should offer.
func (b *Backend) MinFee(ctx context.Context) (uint64, error) {
	h, err := b.latest(ctx)
	if err != nil {
		return 0, err
	}
	tip, err := b.suggestedTip(ctx)
	if err != nil {
		return 0, err
	}
	return b.minFee(h, tip), nil
}

// Head is the newest block's header.
func (b *Backend) Head(ctx context.Context) (chain.BlockHeader, error) {
	h, err := b.latest(ctx)
	if err != nil {
		return chain.BlockHeader{}, err
	}
	return b.header(ctx, h)
}

// header completes h as a head: its transaction count, the fee floor
// after it and the reorg depth.
func (b *Backend) header(ctx context.Context, h *types.Header) (chain.BlockHeader, error) {
	out := chain.BlockHeader{
		Height: h.Number.Uint64(),
		Hash:   hashOf(h.Hash()),
		Parent: hashOf(h.ParentHash),
		Time:   timeOf(h.Time),
	}
	if h.TxHash != types.EmptyTxsHash {
		n, err := call(ctx, b, func(ctx context.Context, c RPC) (uint, error) { return c.TransactionCount(ctx, h.Hash()) })
		if err != nil {
			return chain.BlockHeader{}, err
		}
		out.TxCount = int(n)
	}
	tip, err := b.suggestedTip(ctx)
	if err != nil {
		return chain.BlockHeader{}, err
	}
	out.MinFee = b.minFee(h, tip)
	out.ReorgDepth, err = b.reorgDepth(ctx, out.Height)
	if err != nil {
		return chain.BlockHeader{}, err
	}
	return out, nil
}

// reorgDepth is the reorg depth as of head: ReorgDepth, or head −
// finalized.
func (b *Backend) reorgDepth(ctx context.Context, head uint64) (uint64, error) {
	if !b.cfg.Finalized {
		return b.cfg.ReorgDepth, nil
	}
	f, err := call(ctx, b, func(ctx context.Context, c RPC) (*types.Header, error) {
		return c.HeaderByNumber(ctx, big.NewInt(int64(rpc.FinalizedBlockNumber)))
	})
	if err != nil {
		return 0, fmt.Errorf("evm: finalized block: %w", err)
	}
	if fn := f.Number.Uint64(); fn < head {
		return head - fn, nil
	}
	return 0, nil
}

// finalHeight is the newest final block: head − ReorgDepth, or the
// finalized tag's; ok false when no block is final yet.
func (b *Backend) finalHeight(ctx context.Context) (uint64, bool, error) {
	head, err := call(ctx, b, func(ctx context.Context, c RPC) (uint64, error) { return c.BlockNumber(ctx) })
	if err != nil {
		return 0, false, err
	}
	d, err := b.reorgDepth(ctx, head)
	if err != nil {
		return 0, false, err
	}
	if d > head {
		return 0, false, nil
	}
	return head - d, true, nil
}

// Account is addr's nonce (latest), pending nonce and balance in wei
// (Balance saturated at uint64, BalanceExact in decimal).
func (b *Backend) Account(ctx context.Context, addr chain.Address) (chain.Account, error) {
	a, err := parseAddress(addr)
	if err != nil {
		return chain.Account{}, err
	}
	out := chain.Account{Address: addr}
	if out.Nonce, err = call(ctx, b, func(ctx context.Context, c RPC) (uint64, error) { return c.NonceAt(ctx, a, nil) }); err != nil {
		return chain.Account{}, err
	}
	if out.PendingNonce, err = call(ctx, b, func(ctx context.Context, c RPC) (uint64, error) { return c.PendingNonceAt(ctx, a) }); err != nil {
		return chain.Account{}, err
	}
	bal, err := call(ctx, b, func(ctx context.Context, c RPC) (*big.Int, error) { return c.BalanceAt(ctx, a, nil) })
	if err != nil {
		return chain.Account{}, err
	}
	out.Balance, out.BalanceExact = saturate(bal), bal.String()
	return out, nil
}

// errNoSubscription is SubscribeHeads' error without an endpoint that
// takes subscriptions.
var errNoSubscription = errors.New("evm: no endpoint takes subscriptions (a ws:// or wss:// URL)")

// SubscribeHeads sends each new head of a subscription (eth_subscribe
// newHeads) on a WebSocket endpoint or a client given directly; without
// one it is an error, and chain.WatchHeads polls Head instead. The channel
// closes when ctx ends or the subscription breaks.
func (b *Backend) SubscribeHeads(ctx context.Context) (<-chan chain.BlockHeader, error) {
	last := errNoSubscription
	for _, e := range b.order() {
		if !e.canSubscribe {
			continue
		}
		in := make(chan *types.Header, 16)
		sub, err := e.rpc.SubscribeNewHead(ctx, in)
		if err != nil {
			last = err
			continue
		}
		out := make(chan chain.BlockHeader, 1)
		go func() {
			defer close(out)
			defer sub.Unsubscribe()
			for {
				select {
				case <-ctx.Done():
					return
				case err := <-sub.Err():
					if err != nil {
						b.log.Info("evm head subscription ended", "err", err)
					}
					return
				case h := <-in:
					bh, err := b.header(ctx, h)
					if err != nil {
						return
					}
					select {
					case out <- bh:
					case <-ctx.Done():
						return
					}
				}
			}
		}()
		return out, nil
	}
	return nil, last
}
