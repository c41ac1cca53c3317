package sequencer

import (
	"context"

	"github.com/ordolabs/ordo/internal/chain"
)

// reorgWatch remembers the canonical hashes of the last blocks the loop saw,
// so that when the head moves it can tell how deep a reorg went and report
// one deeper than the chain declares (an anomaly: DONE may have been undone).
// It needs a chain whose blocks can be read; without one it sees nothing.
type reorgWatch struct {
	hashes map[uint64]chain.Hash
	top    uint64
}

// seen takes a new head and the headers of the blocks read with it (from the
// last head seen + 1 up to it); it returns an InputReorg when the head's
// chain left the one remembered deeper than h.ReorgDepth.
func (w *reorgWatch) seen(ctx context.Context, c chain.Chain, h chain.BlockHeader, read []chain.BlockHeader) (Input, bool) {
	if w.hashes == nil {
		w.hashes = map[uint64]chain.Hash{}
	}
	br, ok := c.(chain.BlockReader)
	fork, moved := w.top, false
	switch {
	case !ok || w.top == 0:
	case len(read) > 0 && read[0].Height == w.top+1:
		moved = read[0].Parent != w.hashes[w.top]
	case h.Height <= w.top:
		moved = w.hashes[h.Height] != h.Hash || h.Height < w.top
		fork = h.Height
	}
	if moved {
		// Walk down to the highest block both chains hold.
		for fork > 0 && fork+maxReorgTrack > w.top {
			bs, err := br.Blocks(ctx, fork, fork)
			if err != nil || len(bs) != 1 {
				return Input{}, false // cannot tell: the next head tries again
			}
			if bs[0].Hash == w.hashes[fork] {
				break
			}
			w.hashes[fork] = bs[0].Hash // the new chain's, for the next comparison
			fork--
		}
	}
	depth := w.top - fork
	for _, b := range read {
		w.hashes[b.Height] = b.Hash
	}
	w.hashes[h.Height] = h.Hash
	if moved && h.Height < w.top {
		for x := h.Height + 1; x <= w.top; x++ {
			delete(w.hashes, x)
		}
	}
	w.top = h.Height
	for x := range w.hashes {
		if x+maxReorgTrack < w.top {
			delete(w.hashes, x)
		}
	}
	if !moved || depth <= h.ReorgDepth {
		return Input{}, false
	}
	return Input{Kind: InputReorg, Height: fork, Depth: depth, ReorgDepth: h.ReorgDepth}, true
}
