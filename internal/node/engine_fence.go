package node

import (
	"context"

	"github.com/ordolabs/ordo/internal/store"
)

// engineStore is the store an engine writes through on a shared store:
// every ProcessorStore, LeaderStore and DistseqStore write carries the
// fence of the engine's lease as it was when the engine started here, so
// that a node that stalled past the lease's expiry, and whose engine runs
// elsewhere now, has its writes refused (store.ErrFenced) instead of
// interleaved with the new holder's. Reads and the sequencer's records
// pass through.
type engineStore struct {
	Store
	fence func() *store.Fence
}

// fencedFor returns st for engine name: as is on a store this node holds
// alone, wrapped in an engineStore on a shared one.
func (n *Node) fencedFor(name string, st Store) Store {
	if n.leases == nil {
		return st
	}
	return &engineStore{Store: st, fence: func() *store.Fence { return n.leases.engineFence(name) }}
}

// ApplyProcessor implements store.ProcessorStore, fenced.
func (s *engineStore) ApplyProcessor(ctx context.Context, c store.ProcChanges) error {
	c.Fence = s.fence()
	return s.Store.ApplyProcessor(ctx, c)
}

// ApplyLeader implements store.LeaderStore, fenced.
func (s *engineStore) ApplyLeader(ctx context.Context, c store.LeaderChanges) error {
	c.Fence = s.fence()
	return s.Store.ApplyLeader(ctx, c)
}

// ApplyDistseq implements store.DistseqStore, fenced.
func (s *engineStore) ApplyDistseq(ctx context.Context, b store.DistseqBatch) error {
	b.Fence = s.fence()
	return s.Store.ApplyDistseq(ctx, b)
}

// engineFence is the fence of engine name's lease as taken when the
// engine started on this node (leased). Before that, or once the engine
// stopped, it names a token no lease has (0): its writes are refused.
func (k *leaseKeeper) engineFence(name string) *store.Fence {
	k.mu.Lock()
	defer k.mu.Unlock()
	if f := k.running[name]; f != nil {
		return f // built once per start: the stores only read it
	}
	return &store.Fence{Holder: k.holder, Leases: map[string]int64{leaseEngine + name: 0}}
}

// holdsEngineToken reports whether this node holds engine name's lease
// with token tok.
func (k *leaseKeeper) holdsEngineToken(name string, tok int64) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	t, ok := k.held[leaseEngine+name]
	return ok && t == tok
}

// retire stops the keeper reaching for engine name's lease and has the
// next cycle give it back (a cycle renews every lease of the holder): the
// engine stopped here for good, and a standby node takes it over.
func (k *leaseKeeper) retire(name string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.retired == nil {
		k.retired = map[string]bool{}
	}
	k.retired[name] = true
}

// isRetired reports whether engine name stopped here for good.
func (k *leaseKeeper) isRetired(name string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.retired[name]
}

// startEngine makes the fence of engine name's writes from its lease's
// token, held now, and returns the token.
func (k *leaseKeeper) startEngine(name string) int64 {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.running == nil {
		k.running = map[string]*store.Fence{}
	}
	tok := k.held[leaseEngine+name]
	k.running[name] = &store.Fence{Holder: k.holder, Leases: map[string]int64{leaseEngine + name: tok}}
	return tok
}

// stopEngine forgets engine name's fence: a write after it is refused.
func (k *leaseKeeper) stopEngine(name string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.running, name)
}
