package sequencer

import (
	"context"
	"errors"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
)

// checkChain answers a status and lists one block; the rest of chain.Chain
// is never called here.
type checkChain struct {
	chain.Chain
	st      chain.TxStatus
	block   chain.Block
	readErr error
}

func (c *checkChain) TxStatus(context.Context, chain.Hash) (chain.TxStatus, error) { return c.st, nil }

func (c *checkChain) Blocks(_ context.Context, from, to uint64) ([]chain.Block, error) {
	if c.readErr != nil {
		return nil, c.readErr
	}
	if c.block.Height < from || c.block.Height > to {
		return nil, nil
	}
	return []chain.Block{c.block}, nil
}

// noBlocks is a chain that cannot list blocks.
type noBlocks struct {
	chain.Chain
	st chain.TxStatus
}

func (c noBlocks) TxStatus(context.Context, chain.Hash) (chain.TxStatus, error) { return c.st, nil }

// TestPerformCheckReportsIncludedFee: a status check that finds an attempt
// included reports the nonce and fee of the transaction its block holds
// (a remote worker may pay more than asked), as a block's receipt does;
// nothing when the block cannot be read or no longer holds that hash there.
func TestPerformCheckReportsIncludedFee(t *testing.T) {
	t.Parallel()
	included := chain.TxStatus{Hash: "h1", State: chain.TxIncluded, Height: 5, Index: 1, Success: true}
	block := chain.Block{BlockHeader: chain.BlockHeader{Height: 5}, Txs: []chain.BlockTx{
		{Tx: chain.Tx{Nonce: 3, Fee: 900}, Hash: "h0", Index: 0},
		{Tx: chain.Tx{Nonce: 7, Fee: 1007}, Hash: "h1", Index: 1},
	}}
	other := block
	other.Txs = []chain.BlockTx{block.Txs[0], {Tx: chain.Tx{Nonce: 8, Fee: 5}, Hash: "hX", Index: 1}}
	for _, tc := range []struct {
		name       string
		c          chain.Chain
		nonce, fee uint64
	}{
		{"included: the block's nonce and fee", &checkChain{st: included, block: block}, 7, 1007},
		{"block holds another hash there", &checkChain{st: included, block: other}, 0, 0},
		{"block read fails", &checkChain{st: included, block: block, readErr: errors.New("down")}, 0, 0},
		{"block not listed", &checkChain{st: included, block: chain.Block{BlockHeader: chain.BlockHeader{Height: 9}}}, 0, 0},
		{"index out of range", &checkChain{st: chain.TxStatus{Hash: "h1", State: chain.TxIncluded, Height: 5, Index: 4}, block: block}, 0, 0},
		{"chain lists no blocks", noBlocks{st: included}, 0, 0},
		{"pending: nothing to read", &checkChain{st: chain.TxStatus{Hash: "h1", State: chain.TxPending}, block: block}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			n := &Node{cfg: Config{Chain: tc.c}}
			in := n.performCheck(context.Background(), Effect{Kind: EffectCheck, Queue: "q1", UID: "u1", Attempt: 2, Hash: "h1"})
			if in.Kind != InputChecked || in.Queue != "q1" || in.UID != "u1" || in.Attempt != 2 || in.Err != "" {
				t.Fatalf("input %+v", in)
			}
			if in.Nonce != tc.nonce || in.Fee != tc.fee {
				t.Fatalf("nonce %d fee %d, want nonce %d fee %d", in.Nonce, in.Fee, tc.nonce, tc.fee)
			}
		})
	}
}
