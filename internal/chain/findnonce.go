package chain

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// FindPage is how many blocks FindNonce reads per window, a page every
// chain's Blocks returns whole (devchain's cap is 1000, the EVM backend's 64).
const FindPage = 64

// NonceReader is what FindNonce needs of a chain.
type NonceReader interface {
	BlockReader
	Head(ctx context.Context) (BlockHeader, error)
}

// FindNonce looks for the transaction that took nonce of the account from:
// it reads c's blocks from the head back, stopping below the first block
// older than since or after limit blocks (0: no limit). It returns the
// transaction, the height of its block and true, or false when none of
// those blocks holds it. Addresses compare without case (an EVM address
// may be checksummed).
//
// It is how the sequencer settles an attempt a remote worker may have sent
// without reporting its hash: the memo of what took its nonce says whether
// it was the intent's own transaction.
func FindNonce(ctx context.Context, c NonceReader, from Address, nonce uint64, since time.Time, limit uint64) (BlockTx, uint64, bool, error) {
	head, err := c.Head(ctx)
	if err != nil {
		return BlockTx{}, 0, false, fmt.Errorf("chain: find nonce: head: %w", err)
	}
	read := uint64(0)
	for hi := head.Height; hi >= 1; {
		lo := uint64(1)
		if hi > FindPage {
			lo = hi - FindPage + 1
		}
		var window []Block
		if err := EachBlock(ctx, c, lo, hi, func(b Block) error { window = append(window, b); return nil }); err != nil {
			return BlockTx{}, 0, false, fmt.Errorf("chain: find nonce: blocks %d-%d: %w", lo, hi, err)
		}
		for i := len(window) - 1; i >= 0; i-- {
			b := window[i]
			for _, tx := range b.Txs {
				if tx.Nonce == nonce && strings.EqualFold(string(tx.From), string(from)) {
					return tx, b.Height, true, nil
				}
			}
			read++
			if (limit > 0 && read >= limit) || (!since.IsZero() && b.Time.Before(since)) {
				return BlockTx{}, 0, false, nil
			}
		}
		hi = lo - 1
	}
	return BlockTx{}, 0, false, nil
}
