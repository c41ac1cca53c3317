package evm

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
)

// RPC is what the backend asks of an endpoint: the methods of ethclient it
// uses. Both *ethclient.Client and the simulated backend's Client satisfy
// it. An endpoint that also has BlockReceipts (ethclient's) gives a block's
// receipts in one call.
type RPC interface {
	ChainID(ctx context.Context) (*big.Int, error)
	BlockNumber(ctx context.Context) (uint64, error)
	HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error)
	BlockByNumber(ctx context.Context, number *big.Int) (*types.Block, error)
	TransactionCount(ctx context.Context, blockHash common.Hash) (uint, error)
	TransactionByHash(ctx context.Context, hash common.Hash) (tx *types.Transaction, isPending bool, err error)
	TransactionReceipt(ctx context.Context, txHash common.Hash) (*types.Receipt, error)
	NonceAt(ctx context.Context, account common.Address, blockNumber *big.Int) (uint64, error)
	PendingNonceAt(ctx context.Context, account common.Address) (uint64, error)
	BalanceAt(ctx context.Context, account common.Address, blockNumber *big.Int) (*big.Int, error)
	CallContract(ctx context.Context, msg ethereum.CallMsg, blockNumber *big.Int) ([]byte, error)
	EstimateGas(ctx context.Context, msg ethereum.CallMsg) (uint64, error)
	SuggestGasTipCap(ctx context.Context) (*big.Int, error)
	SendTransaction(ctx context.Context, tx *types.Transaction) error
	FilterLogs(ctx context.Context, q ethereum.FilterQuery) ([]types.Log, error)
	SubscribeNewHead(ctx context.Context, ch chan<- *types.Header) (ethereum.Subscription, error)
}

// blockReceipter is an endpoint that returns a block's receipts at once.
type blockReceipter interface {
	BlockReceipts(ctx context.Context, blockNrOrHash rpc.BlockNumberOrHash) ([]*types.Receipt, error)
}

// endpoint is one RPC endpoint with its backoff state.
type endpoint struct {
	url string // "" for a client given to NewWithClients
	rpc RPC
	// canSubscribe: a WebSocket endpoint, or a client given directly.
	canSubscribe bool

	mu    sync.Mutex
	until time.Time     // backed off until then
	wait  time.Duration // the current backoff, 0 when healthy
}

func (e *endpoint) name(i int) string {
	if e.url != "" {
		return e.url
	}
	return fmt.Sprintf("client %d", i)
}

// isTransport reports whether err is the endpoint's failure rather than an
// answer: no JSON-RPC error object (a connection refused, a timeout, an
// HTTP status such as 429), or the JSON-RPC "limit exceeded" of providers
// that rate-limit that way (-32005).
func isTransport(err error) bool {
	if err == nil || errors.Is(err, ethereum.NotFound) {
		return false
	}
	var he rpc.HTTPError
	if errors.As(err, &he) {
		return true
	}
	var re rpc.Error
	if errors.As(err, &re) {
		return re.ErrorCode() == -32005
	}
	return true
}

// tooManyRequests reports an HTTP 429.
func tooManyRequests(err error) bool {
	var he rpc.HTTPError
	return errors.As(err, &he) && he.StatusCode == http.StatusTooManyRequests
}

// order returns the endpoints to try, in order: those not backed off, in
// configuration order; when all are, the one whose backoff ends first.
func (b *Backend) order() []*endpoint {
	now := b.cfg.Clock.Now()
	var up []*endpoint
	var first *endpoint // the one whose backoff ends first
	var firstUntil time.Time
	for _, e := range b.eps {
		e.mu.Lock()
		until := e.until
		e.mu.Unlock()
		if !now.Before(until) {
			up = append(up, e)
		} else if first == nil || until.Before(firstUntil) {
			first, firstUntil = e, until
		}
	}
	if len(up) > 0 {
		return up
	}
	return []*endpoint{first}
}

// backoff puts e aside, for twice its last backoff (from Backoff.Start to
// Backoff.Max).
func (b *Backend) backoff(e *endpoint, i int, err error) {
	e.mu.Lock()
	switch {
	case e.wait == 0:
		e.wait = b.cfg.Backoff.Start
	case e.wait < b.cfg.Backoff.Max:
		e.wait = min(2*e.wait, b.cfg.Backoff.Max)
	}
	e.until = b.cfg.Clock.Now().Add(e.wait)
	wait := e.wait
	e.mu.Unlock()
	b.log.Warn("evm endpoint backed off", "endpoint", e.name(i), "for", wait, "rateLimited", tooManyRequests(err), "err", err)
}

func (b *Backend) healthy(e *endpoint) {
	e.mu.Lock()
	e.wait, e.until = 0, time.Time{}
	e.mu.Unlock()
}

// do runs fn on the endpoints in order until one answers (an answer may
// be an error: a JSON-RPC error, not found); a transport failure or a
// timeout (CallTimeout) backs the endpoint off and moves on. It returns
// the last transport error when none answered.
func (b *Backend) do(ctx context.Context, fn func(ctx context.Context, c RPC) error) error {
	var last error
	for _, e := range b.order() {
		i := b.index(e)
		cctx, cancel := context.WithTimeout(ctx, b.cfg.CallTimeout)
		err := fn(cctx, e.rpc)
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !isTransport(err) {
			b.healthy(e)
			return err
		}
		b.backoff(e, i, err)
		last = err
	}
	return fmt.Errorf("every EVM endpoint failed: %w", last)
}

func (b *Backend) index(e *endpoint) int {
	for i, x := range b.eps {
		if x == e {
			return i
		}
	}
	return -1
}

// call is do for a call with one result.
func call[T any](ctx context.Context, b *Backend, fn func(ctx context.Context, c RPC) (T, error)) (T, error) {
	var out T
	err := b.do(ctx, func(ctx context.Context, c RPC) error {
		var err error
		out, err = fn(ctx, c)
		return err
	})
	return out, err
}
