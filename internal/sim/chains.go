package sim

import (
	"context"
	"errors"

	"github.com/ordolabs/ordo/internal/chain"
)

// Chains as the node sees them in a run: with failing status checks, or
// without block reads.

// nodeChain is the chain the node is given: devchain, without its block
// reads when NoBlockReader, behind flakyStatus.
func (w *seqWorld) nodeChain() chain.Chain {
	var ch chain.Chain = w.dc
	if w.cfg.NoBlockReader {
		ch = headsOnly{w.dc}
	}
	// One status check in ten cannot reach the chain until the faults stop.
	if br, ok := ch.(chain.BlockReader); ok {
		ch = flakyStatusReader{&flakyStatus{Chain: ch, w: w}, br}
	} else {
		ch = &flakyStatus{Chain: ch, w: w}
	}
	return ch
}

// flakyStatus fails a share of status checks (the world's statusErrors, from
// its seeded source), as a chain that does not answer would; it keeps the
// wrapped chain's block reads.
type flakyStatus struct {
	chain.Chain
	w *seqWorld
}

var errStatusUnreachable = errors.New("status check: connection refused")

func (f *flakyStatus) TxStatus(ctx context.Context, h chain.Hash) (chain.TxStatus, error) {
	if f.w.statusRng.Float64() < f.w.statusErrors {
		return chain.TxStatus{}, errStatusUnreachable
	}
	return f.Chain.TxStatus(ctx, h)
}

// flakyStatusReader is a flakyStatus over a chain whose blocks can be read.
type flakyStatusReader struct {
	*flakyStatus
	br chain.BlockReader
}

// Blocks reads blocks from the wrapped chain.
func (f flakyStatusReader) Blocks(ctx context.Context, from, to uint64) ([]chain.Block, error) {
	return f.br.Blocks(ctx, from, to)
}

// headsOnly is a chain whose blocks cannot be read: only chain.Chain's
// methods (no chain.BlockReader, no head subscription).
type headsOnly struct{ chain.Chain }
