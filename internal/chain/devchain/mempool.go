package devchain

import (
	"container/heap"

	"github.com/ordolabs/ordo/internal/chain"
)

type poolTx struct {
	tx     chain.Tx
	hash   chain.Hash
	seq    uint64 // arrival order
	doomed bool   // silently dropped before the next block (drop fault)
}

// mempool holds pending transactions by sender and nonce.
type mempool struct {
	bySender map[chain.Address]map[uint64]*poolTx
	byHash   map[chain.Hash]*poolTx
	seq      uint64
	doomed   []*poolTx
}

func newMempool() *mempool {
	return &mempool{bySender: map[chain.Address]map[uint64]*poolTx{}, byHash: map[chain.Hash]*poolTx{}}
}

func (m *mempool) len() int { return len(m.byHash) }

func (m *mempool) get(from chain.Address, nonce uint64) *poolTx {
	return m.bySender[from][nonce]
}

func (m *mempool) add(p *poolTx) {
	m.seq++
	p.seq = m.seq
	s := m.bySender[p.tx.From]
	if s == nil {
		s = map[uint64]*poolTx{}
		m.bySender[p.tx.From] = s
	}
	s[p.tx.Nonce] = p
	m.byHash[p.hash] = p
	if p.doomed {
		m.doomed = append(m.doomed, p)
	}
}

// dropDoomed forgets the transactions the drop fault chose.
func (m *mempool) dropDoomed() {
	for _, p := range m.doomed {
		if m.byHash[p.hash] == p {
			m.remove(p)
		}
	}
	m.doomed = m.doomed[:0]
}

func (m *mempool) remove(p *poolTx) {
	delete(m.byHash, p.hash)
	if s := m.bySender[p.tx.From]; s != nil {
		if s[p.tx.Nonce] == p {
			delete(s, p.tx.Nonce)
		}
		if len(s) == 0 {
			delete(m.bySender, p.tx.From)
		}
	}
}

// pendingNonce is the nonce after the run of consecutive pool transactions
// that starts at next.
func (m *mempool) pendingNonce(from chain.Address, next uint64) uint64 {
	s := m.bySender[from]
	for s[next] != nil {
		next++
	}
	return next
}

// feeHeap orders candidates by fee, highest first, then by arrival.
type feeHeap []*poolTx

func (h feeHeap) Len() int { return len(h) }
func (h feeHeap) Less(i, j int) bool {
	if h[i].tx.Fee != h[j].tx.Fee {
		return h[i].tx.Fee > h[j].tx.Fee
	}
	return h[i].seq < h[j].seq
}
func (h feeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *feeHeap) Push(x any)   { *h = append(*h, x.(*poolTx)) }
func (h *feeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return x
}

var _ heap.Interface = (*feeHeap)(nil)
