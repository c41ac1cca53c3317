package memstore

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

// Distseq is an in-memory store.DistseqStore. The zero value is not ready:
// use NewDistseq. It is safe for concurrent use.
//
// Records are immutable once stored: an update replaces the record, so
// stored byte slices and member lists are never written after they are
// copied in, and Clone shares them.
type Distseq struct {
	mu         sync.RWMutex
	groups     map[string]store.DistseqGroup
	intents    map[string]store.DistseqIntent
	byKey      map[string]string // idempotency key → tx id
	dispatches map[string]store.DistseqDispatch
	open       map[string]struct{} // tx ids of dispatches in status dispatched
	outbox     map[string]store.DistseqDistribution
	pending    map[string]struct{} // ids of distributions not acked
	states     map[string]map[string]store.DistseqState
	received   map[string]struct{}
	cursor     uint64
	hasCursor  bool
}

var _ store.DistseqStore = (*Distseq)(nil)

// NewDistseq returns an empty store.
func NewDistseq() *Distseq {
	return &Distseq{
		groups:     map[string]store.DistseqGroup{},
		intents:    map[string]store.DistseqIntent{},
		byKey:      map[string]string{},
		dispatches: map[string]store.DistseqDispatch{},
		open:       map[string]struct{}{},
		outbox:     map[string]store.DistseqDistribution{},
		pending:    map[string]struct{}{},
		states:     map[string]map[string]store.DistseqState{},
		received:   map[string]struct{}{},
	}
}

// Clone returns a deep copy of what the store holds: later writes to
// either do not show in the other. (Stored records are immutable, so the
// copy shares their byte slices.)
func (d *Distseq) Clone() *Distseq {
	d.mu.RLock()
	defer d.mu.RUnlock()
	c := &Distseq{
		groups:     maps.Clone(d.groups),
		intents:    maps.Clone(d.intents),
		byKey:      maps.Clone(d.byKey),
		dispatches: maps.Clone(d.dispatches),
		open:       maps.Clone(d.open),
		outbox:     maps.Clone(d.outbox),
		pending:    maps.Clone(d.pending),
		states:     make(map[string]map[string]store.DistseqState, len(d.states)),
		received:   maps.Clone(d.received),
		cursor:     d.cursor,
		hasCursor:  d.hasCursor,
	}
	for k, m := range d.states {
		c.states[k] = maps.Clone(m)
	}
	return c
}

// ApplyDistseq implements store.DistseqStore: b is checked whole (Validate,
// then the idempotency keys as they would stand after each intent in turn)
// before any of it is written, so a refused batch writes nothing.
func (d *Distseq) ApplyDistseq(ctx context.Context, b store.DistseqBatch) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if b.Empty() {
		return nil
	}
	if err := b.Validate(); err != nil {
		return fmt.Errorf("memstore: apply distseq: %w", err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.checkKeys(b.Intents); err != nil {
		return fmt.Errorf("memstore: apply distseq: %w", err)
	}
	for _, g := range b.Groups {
		g.Members = append(make([]store.DistseqMember, 0, len(g.Members)), g.Members...)
		d.groups[g.Contract] = g
	}
	for _, in := range b.Intents {
		if old, ok := d.intents[in.TxID]; ok && old.IdempotencyKey != "" {
			delete(d.byKey, old.IdempotencyKey)
		}
		in.Payload = clone(in.Payload)
		in.Prepared = clone(in.Prepared)
		in.CreatedAt, in.UpdatedAt = norm(in.CreatedAt), norm(in.UpdatedAt)
		d.intents[in.TxID] = in
		if in.IdempotencyKey != "" {
			d.byKey[in.IdempotencyKey] = in.TxID
		}
	}
	for _, x := range b.Dispatches {
		x.Payload = clone(x.Payload)
		x.CreatedAt, x.UpdatedAt = norm(x.CreatedAt), norm(x.UpdatedAt)
		d.dispatches[x.TxID] = x
		if x.Status == store.DistseqDispatched {
			d.open[x.TxID] = struct{}{}
		} else {
			delete(d.open, x.TxID)
		}
	}
	for _, o := range b.Outbox {
		o.Payload = clone(o.Payload)
		o.CreatedAt, o.UpdatedAt = norm(o.CreatedAt), norm(o.UpdatedAt)
		d.outbox[o.ID] = o
		if o.Acked {
			delete(d.pending, o.ID)
		} else {
			d.pending[o.ID] = struct{}{}
		}
	}
	for _, st := range b.States {
		m := d.states[st.Contract]
		if m == nil {
			m = map[string]store.DistseqState{}
			d.states[st.Contract] = m
		}
		if old, ok := m[st.ID]; ok {
			if len(old.Data) == 0 && len(st.Data) > 0 {
				old.Data, old.CreatedBy, old.Height = clone(st.Data), st.CreatedBy, st.Height
			}
			if st.Spent && !old.Spent {
				old.Spent, old.SpentBy = true, st.SpentBy
			}
			m[st.ID] = old
			continue
		}
		st.Data = clone(st.Data)
		m[st.ID] = st
	}
	for _, id := range b.Received {
		d.received[id] = struct{}{}
	}
	if b.Cursor != nil {
		d.cursor, d.hasCursor = *b.Cursor, true
	}
	return nil
}

// checkKeys refuses intents one of which would take an idempotency key
// another tx id holds, in the store or after the intents before it.
func (d *Distseq) checkKeys(intents []store.DistseqIntent) error {
	owner := map[string]string{} // key → tx id ("" freed), over d.byKey
	keyOf := map[string]string{} // tx id → key, over d.intents
	for _, in := range intents {
		old, ok := keyOf[in.TxID]
		if !ok {
			old = d.intents[in.TxID].IdempotencyKey
		}
		if old != "" && old != in.IdempotencyKey {
			owner[old] = ""
		}
		keyOf[in.TxID] = in.IdempotencyKey
		if in.IdempotencyKey == "" {
			continue
		}
		holder, ok := owner[in.IdempotencyKey]
		if !ok {
			holder = d.byKey[in.IdempotencyKey]
		}
		if holder != "" && holder != in.TxID {
			return fmt.Errorf("intent %s: key %q held by %s: %w", in.TxID, in.IdempotencyKey, holder, store.ErrDuplicateKey)
		}
		owner[in.IdempotencyKey] = in.TxID
	}
	return nil
}

// DistseqGroup implements store.DistseqStore.
func (d *Distseq) DistseqGroup(_ context.Context, contract string) (store.DistseqGroup, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	g, ok := d.groups[contract]
	if !ok {
		return store.DistseqGroup{}, fmt.Errorf("memstore: distseq group %s: %w", contract, store.ErrNotFound)
	}
	return copyGroup(g), nil
}

// DistseqGroups implements store.DistseqStore: in Contract order, never nil.
func (d *Distseq) DistseqGroups(_ context.Context) ([]store.DistseqGroup, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	out := make([]store.DistseqGroup, 0, len(d.groups))
	for _, g := range d.groups {
		out = append(out, copyGroup(g))
	}
	slices.SortFunc(out, func(a, b store.DistseqGroup) int { return cmp.Compare(a.Contract, b.Contract) })
	return out, nil
}

// DistseqIntent implements store.DistseqStore.
func (d *Distseq) DistseqIntent(_ context.Context, txID string) (store.DistseqIntent, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	in, ok := d.intents[txID]
	if !ok {
		return store.DistseqIntent{}, fmt.Errorf("memstore: distseq intent %s: %w", txID, store.ErrNotFound)
	}
	in.Payload = clone(in.Payload)
	in.Prepared = clone(in.Prepared)
	return in, nil
}

// DistseqIntentByKey implements store.DistseqStore: the empty key is never
// found.
func (d *Distseq) DistseqIntentByKey(ctx context.Context, key string) (store.DistseqIntent, error) {
	d.mu.RLock()
	txID, ok := d.byKey[key]
	d.mu.RUnlock()
	if !ok || key == "" {
		return store.DistseqIntent{}, fmt.Errorf("memstore: distseq intent of key %q: %w", key, store.ErrNotFound)
	}
	return d.DistseqIntent(ctx, txID)
}

// Limits of DistseqIntents, as package sqlite's lists.
const (
	defaultLimit = 100
	maxLimit     = 1000
)

// DistseqIntents implements store.DistseqStore: never nil. A Limit of 0 or
// less means 100, more than 1000 means 1000.
func (d *Distseq) DistseqIntents(_ context.Context, f store.DistseqIntentFilter) ([]store.DistseqIntent, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = defaultLimit
	}
	limit = min(limit, maxLimit)
	d.mu.RLock()
	out := []store.DistseqIntent{}
	for _, in := range d.intents {
		if (f.Status == "" || in.Status == f.Status) && (f.Contract == "" || in.Contract == f.Contract) {
			out = append(out, in)
		}
	}
	d.mu.RUnlock()
	slices.SortFunc(out, func(a, b store.DistseqIntent) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.TxID, b.TxID))
	})
	if len(out) > limit {
		out = out[:limit]
	}
	for i := range out {
		out[i].Payload = clone(out[i].Payload)
		out[i].Prepared = clone(out[i].Prepared)
	}
	return out, nil
}

// DistseqOpenDispatches implements store.DistseqStore: never nil.
func (d *Distseq) DistseqOpenDispatches(_ context.Context) ([]store.DistseqDispatch, error) {
	d.mu.RLock()
	out := make([]store.DistseqDispatch, 0, len(d.open))
	for id := range d.open {
		x := d.dispatches[id]
		x.Payload = clone(x.Payload)
		out = append(out, x)
	}
	d.mu.RUnlock()
	slices.SortFunc(out, func(a, b store.DistseqDispatch) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.TxID, b.TxID))
	})
	return out, nil
}

// DistseqPendingOutbox implements store.DistseqStore: never nil.
func (d *Distseq) DistseqPendingOutbox(_ context.Context) ([]store.DistseqDistribution, error) {
	d.mu.RLock()
	out := make([]store.DistseqDistribution, 0, len(d.pending))
	for id := range d.pending {
		o := d.outbox[id]
		o.Payload = clone(o.Payload)
		out = append(out, o)
	}
	d.mu.RUnlock()
	slices.SortFunc(out, func(a, b store.DistseqDistribution) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// DistseqStates implements store.DistseqStore: never nil.
func (d *Distseq) DistseqStates(_ context.Context, contract string, unspentOnly bool) ([]store.DistseqState, error) {
	d.mu.RLock()
	m := d.states[contract]
	out := make([]store.DistseqState, 0, len(m))
	for _, st := range m {
		if unspentOnly && st.Spent {
			continue
		}
		st.Data = clone(st.Data)
		out = append(out, st)
	}
	d.mu.RUnlock()
	slices.SortFunc(out, func(a, b store.DistseqState) int {
		return cmp.Or(cmp.Compare(a.Height, b.Height), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// DistseqStatesByID implements store.DistseqStore: never nil.
func (d *Distseq) DistseqStatesByID(_ context.Context, contract string, ids []string) ([]store.DistseqState, error) {
	d.mu.RLock()
	m := d.states[contract]
	out := make([]store.DistseqState, 0, len(ids))
	for _, id := range ids {
		if st, ok := m[id]; ok {
			st.Data = clone(st.Data)
			out = append(out, st)
		}
	}
	d.mu.RUnlock()
	slices.SortFunc(out, func(a, b store.DistseqState) int { return cmp.Compare(a.ID, b.ID) })
	return slices.CompactFunc(out, func(a, b store.DistseqState) bool { return a.ID == b.ID }), nil
}

// DistseqStatesCreatedBy implements store.DistseqStore: never nil.
func (d *Distseq) DistseqStatesCreatedBy(_ context.Context, contract string, txIDs []string) ([]store.DistseqState, error) {
	d.mu.RLock()
	out := []store.DistseqState{}
	for _, st := range d.states[contract] {
		if slices.Contains(txIDs, st.CreatedBy) {
			st.Data = clone(st.Data)
			out = append(out, st)
		}
	}
	d.mu.RUnlock()
	slices.SortFunc(out, func(a, b store.DistseqState) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// DistseqReceived implements store.DistseqStore.
func (d *Distseq) DistseqReceived(_ context.Context, id string) (bool, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	_, ok := d.received[id]
	return ok, nil
}

// DistseqCursor implements store.DistseqStore.
func (d *Distseq) DistseqCursor(_ context.Context) (uint64, bool, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.cursor, d.hasCursor, nil
}

func copyGroup(g store.DistseqGroup) store.DistseqGroup {
	g.Members = append(make([]store.DistseqMember, 0, len(g.Members)), g.Members...)
	return g
}

// clone copies b; empty comes back nil, as sqlite stores it as NULL.
func clone(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...)
}

// norm is t as sqlite returns it: to the nanosecond, in UTC, no monotonic
// reading; the zero time stays zero.
func norm(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return time.Unix(0, t.UnixNano()).UTC()
}
