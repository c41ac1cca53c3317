package chain

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ordolabs/ordo/internal/clock"
)

// Address identifies an account, in the form of its chain's Signer:
// devchain's is the lowercase hex of an ed25519 public key, an EVM chain's
// "0x" and 40 lowercase hex digits.
type Address string

// Hash names a transaction or a block as its chain writes it: devchain's
// is the lowercase hex of a SHA-256 digest, an EVM chain's "0x" and the
// 64 lowercase hex digits of a keccak-256 digest.
type Hash string

// BlockHeader describes a block without its transactions.
type BlockHeader struct {
	Height  uint64    `json:"height"`
	Hash    Hash      `json:"hash"`
	Parent  Hash      `json:"parent"`
	Time    time.Time `json:"time"`
	TxCount int       `json:"txCount"`
	// MinFee is the minimum fee that was in force for this block.
	MinFee uint64 `json:"minFee"`
	// ReorgDepth is the deepest reorg the chain declares it may make, as of
	// this head: an inclusion held by ReorgDepth+1 blocks is final. Set on
	// heads (Head, head notifications), not on stored blocks; 0 on a chain
	// that never reorgs. A deeper reorg is an anomaly the node reports.
	ReorgDepth uint64 `json:"reorgDepth,omitempty"`
}

// Outcome of an included transaction.
const (
	OutcomeSucceeded = "succeeded"
	OutcomeFailed    = "failed"
)

// ReasonDuplicateIntent is the failure reason of an included transaction
// whose memo (the intent id: ordo puts its record's uid there) an earlier
// successful transaction on the chain already carried: a chain applies an
// intent at most once, so the intent is applied, by that earlier
// transaction, and this one changed nothing but its sender's nonce and fee.
const ReasonDuplicateIntent = "duplicate_intent"

// BlockTx is a transaction as included in a block, with its receipt.
type BlockTx struct {
	Tx
	Hash   Hash   `json:"hash"`
	Index  int    `json:"index"`
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
}

// Block is a header with its transactions in execution order.
type Block struct {
	BlockHeader
	Txs []BlockTx `json:"txs"`
}

// TxState is where a transaction stands on the chain.
type TxState string

// Transaction states reported by TxStatus.
const (
	// TxPending: in the mempool, not yet included.
	TxPending TxState = "pending"
	// TxIncluded: in a block at Height, Index; Success and Reason tell the outcome.
	TxIncluded TxState = "included"
	// TxDropped: removed from the mempool for a known reason (replaced by a
	// higher fee, funds gone); it can no longer be included.
	TxDropped TxState = "dropped"
	// TxUnknown: the chain does not know the hash (never seen, silently
	// dropped, or lost by a restart of the chain node).
	TxUnknown TxState = "unknown"
)

// TxStatus is a transaction's status by hash.
type TxStatus struct {
	Hash   Hash    `json:"hash"`
	State  TxState `json:"state"`
	Height uint64  `json:"height,omitempty"`
	// Index and Success are meaningful when State is included.
	Index   int  `json:"index"`
	Success bool `json:"success"`
	// Reason is the failure reason of an included transaction that failed, or
	// why a dropped transaction was dropped.
	Reason string `json:"reason,omitempty"`
}

// Event is emitted by a contract while applying a transaction.
type Event struct {
	// Cursor orders all events of a chain; it is never reused, even after a
	// reorg removes the block that emitted the event.
	Cursor   uint64          `json:"cursor"`
	Height   uint64          `json:"height"`
	TxHash   Hash            `json:"txHash"`
	TxIndex  int             `json:"txIndex"`
	Contract string          `json:"contract"`
	Name     string          `json:"name"`
	Data     json.RawMessage `json:"data,omitempty"`
}

// Account is an account's state as of the head.
type Account struct {
	Address Address `json:"address"`
	// Nonce is the next nonce the chain will include for this account.
	Nonce uint64 `json:"nonce"`
	// PendingNonce is the next nonce after the account's mempool transactions
	// that follow Nonce without a gap.
	PendingNonce uint64 `json:"pendingNonce"`
	// Balance is the balance in the chain's smallest unit, saturated at
	// the largest uint64 (an EVM balance above ~18.4 ether in wei).
	Balance uint64 `json:"balance"`
	// BalanceExact is the exact balance as a decimal string, set by
	// chains whose balances may not fit a uint64 (EVM: wei); empty
	// otherwise, when Balance is exact.
	BalanceExact string `json:"balanceExact,omitempty"`
}

// Chain is the ledger interface that engines use.
type Chain interface {
	// Head returns the newest block's header.
	Head(ctx context.Context) (BlockHeader, error)
	// SendTx submits a signed transaction and returns its hash once the
	// chain has accepted it into its mempool.
	SendTx(ctx context.Context, tx Tx) (Hash, error)
	// TxStatus reports a transaction's status by hash.
	TxStatus(ctx context.Context, h Hash) (TxStatus, error)
	// Events returns up to limit events with a cursor greater than after.
	Events(ctx context.Context, after uint64, limit int) ([]Event, error)
	// Call runs a read-only method on a contract's state at the head.
	Call(ctx context.Context, contract, method string, args json.RawMessage) (json.RawMessage, error)
	// Account returns an account's nonce and balance.
	Account(ctx context.Context, addr Address) (Account, error)
	// MinFee returns the minimum fee a transaction needs to be included now.
	MinFee(ctx context.Context) (uint64, error)
}

// HeadSubscriber is implemented by chains that push new heads. The channel is
// closed when ctx ends or the subscription breaks. Notifications are hints: a
// slow reader may miss some heights, so readers act on the newest header.
type HeadSubscriber interface {
	SubscribeHeads(ctx context.Context) (<-chan BlockHeader, error)
}

// BlockReader is implemented by chains whose blocks can be listed, for audits.
type BlockReader interface {
	// Blocks returns the blocks with heights in [from, to].
	Blocks(ctx context.Context, from, to uint64) ([]Block, error)
}

// EachBlock calls fn with each block of br with a height in [from, to], in
// order, reading them a page at a time (a BlockReader may return fewer than
// asked, and none above its head). It stops at the first error.
func EachBlock(ctx context.Context, br BlockReader, from, to uint64, fn func(Block) error) error {
	for from <= to {
		bs, err := br.Blocks(ctx, from, to)
		if err != nil {
			return err
		}
		if len(bs) == 0 {
			return nil
		}
		for _, b := range bs {
			if err := fn(b); err != nil {
				return err
			}
		}
		if from = bs[len(bs)-1].Height + 1; from == 0 { // wrapped
			return nil
		}
	}
	return nil
}

// WatchHeads sends each new head of c on the returned channel until ctx ends.
// It uses c's push notifications when c is a HeadSubscriber and falls back to
// polling Head every poll otherwise, or when the subscription breaks.
func WatchHeads(ctx context.Context, c Chain, clk clock.Clock, poll time.Duration) <-chan BlockHeader {
	out := make(chan BlockHeader, 1)
	go func() {
		defer close(out)
		var last uint64
		var lastHash Hash
		send := func(h BlockHeader) {
			// A new height, or the same height with another hash (a reorg
			// replaced the head).
			if last != 0 && (h.Height < last || (h.Height == last && h.Hash == lastHash)) {
				return
			}
			last, lastHash = h.Height, h.Hash
			select {
			case out <- h:
			default: // reader is busy: replace the stale notification
				select {
				case <-out:
				default:
				}
				out <- h
			}
		}
		for ctx.Err() == nil {
			if sub, ok := c.(HeadSubscriber); ok {
				if ch, err := sub.SubscribeHeads(ctx); err == nil {
					for h := range ch {
						send(h)
					}
				}
			}
			if ctx.Err() != nil {
				return
			}
			// Polling fallback: until the next subscription attempt.
			for range 10 {
				if h, err := c.Head(ctx); err == nil {
					send(h)
				}
				t := clk.NewTimer(poll)
				select {
				case <-ctx.Done():
					t.Stop()
					return
				case <-t.C():
				}
			}
		}
	}()
	return out
}

// StatusReader is what WaitIncluded needs of a chain.
type StatusReader interface {
	TxStatus(ctx context.Context, h Hash) (TxStatus, error)
}

// WaitIncluded polls c every poll on clk until every hash is included, in
// order; a transaction included but failed is an error naming its reason,
// and so is ctx ending first (bound the wait with its deadline).
func WaitIncluded(ctx context.Context, c StatusReader, clk clock.Clock, poll time.Duration, hashes ...Hash) error {
	for _, h := range hashes {
		for {
			st, err := c.TxStatus(ctx, h)
			if err == nil && st.State == TxIncluded {
				if !st.Success {
					return fmt.Errorf("transaction %s failed: %s", h, st.Reason)
				}
				break
			}
			t := clk.NewTimer(poll)
			select {
			case <-ctx.Done():
				t.Stop()
				return fmt.Errorf("transaction %s not included: %w", h, ctx.Err())
			case <-t.C():
			}
		}
	}
	return nil
}
