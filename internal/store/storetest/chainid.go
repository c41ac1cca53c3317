package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/ordolabs/ordo/internal/store"
)

// ChainStored is a store that records the ledger it belongs to.
type ChainStored interface {
	store.Store
	store.ChainStore
}

// ChainOpenFunc opens the store kept in dir; called twice with one dir
// while the first is open, it returns two handles on one store (two nodes
// sharing it).
type ChainOpenFunc func(t *testing.T, dir string) ChainStored

type chainHandle struct {
	ChainStored
	closeOnce
}

func (h *chainHandle) close() error { return h.closeStore(h.ChainStored) }

// RunChain runs the conformance suite of store.ChainStore: the first
// identity bound wins, atomically between handles on one store; it
// survives a reopen; another identity is refused with a
// *store.ChainMismatchError naming both and changes nothing; an identity
// with an empty field is refused.
func RunChain(t *testing.T, open ChainOpenFunc) {
	o := opener[ChainStored, *chainHandle]{open: open, wrap: func(st ChainStored) *chainHandle { return &chainHandle{ChainStored: st} }}
	runParallel(t, []subtest{
		{"FirstWins", func(t *testing.T) { testChainFirstWins(t, o.fresh(t)) }},
		{"Reopen", func(t *testing.T) { testChainReopen(t, o) }},
		{"Concurrent", func(t *testing.T) { testChainConcurrent(t, o) }},
	})
}

var (
	chainA = store.ChainIdentity{ChainID: "devchain/1", Genesis: strings.Repeat("a", 64)}
	chainB = store.ChainIdentity{ChainID: "devchain/1", Genesis: strings.Repeat("b", 64)}
)

// wantBound checks the identity st records.
func wantBound(t *testing.T, st store.ChainStore, want store.ChainIdentity, ok bool) {
	t.Helper()
	got, found, err := st.BoundChain(ctxT(t))
	if err != nil || found != ok || got != want {
		t.Fatalf("BoundChain = %+v, %v, %v; want %+v, %v", got, found, err, want, ok)
	}
}

// wantMismatch checks that err refuses given on a store of stored.
func wantMismatch(t *testing.T, err error, stored, given store.ChainIdentity) {
	t.Helper()
	var me *store.ChainMismatchError
	if !errors.Is(err, store.ErrChainMismatch) || !errors.As(err, &me) || me.Stored != stored || me.Given != given {
		t.Fatalf("BindChain(%s) on a store of %s: %v, want a *ChainMismatchError naming both", given, stored, err)
	}
}

func testChainFirstWins(t *testing.T, st *chainHandle) {
	ctx := ctxT(t)
	wantBound(t, st, store.ChainIdentity{}, false)
	for _, bad := range []store.ChainIdentity{{ChainID: "x"}, {Genesis: "y"}, {}} {
		if err := st.BindChain(ctx, bad); err == nil || errors.Is(err, store.ErrChainMismatch) {
			t.Fatalf("BindChain(%+v) = %v, want a refusal of the identity", bad, err)
		}
	}
	wantBound(t, st, store.ChainIdentity{}, false)
	if err := st.BindChain(ctx, chainA); err != nil {
		t.Fatalf("first BindChain: %v", err)
	}
	wantBound(t, st, chainA, true)
	if err := st.BindChain(ctx, chainA); err != nil {
		t.Fatalf("BindChain of the store's own chain: %v", err)
	}
	for _, other := range []store.ChainIdentity{chainB, {ChainID: "devchain/2", Genesis: chainA.Genesis}} {
		wantMismatch(t, st.BindChain(ctx, other), chainA, other)
	}
	wantBound(t, st, chainA, true)
	// The store's records are untouched by the refusals and usable.
	enqueue(t, st, ntx("u1", "q"))
}

func testChainReopen(t *testing.T, o opener[ChainStored, *chainHandle]) {
	dir := t.TempDir()
	st := o.openAt(t, dir)
	if err := st.BindChain(ctxT(t), chainA); err != nil {
		t.Fatalf("BindChain: %v", err)
	}
	if err := st.close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	st = o.openAt(t, dir)
	wantBound(t, st, chainA, true)
	wantMismatch(t, st.BindChain(ctxT(t), chainB), chainA, chainB)
}

// testChainConcurrent: two handles on one store, sixteen different
// identities bound at once through both: one wins, every other call is
// refused naming it, and both handles read it.
func testChainConcurrent(t *testing.T, o opener[ChainStored, *chainHandle]) {
	dir := t.TempDir()
	hs := []*chainHandle{o.openAt(t, dir)}
	hs = append(hs, o.openAt(t, dir))
	const n = 16
	errs := make([]error, n)
	ids := make([]store.ChainIdentity, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		ids[i] = store.ChainIdentity{ChainID: fmt.Sprintf("devchain/%d", i), Genesis: strings.Repeat(fmt.Sprintf("%x", i%16), 64)}
		wg.Go(func() {
			<-start
			errs[i] = hs[i%2].BindChain(ctxT(t), ids[i])
		})
	}
	close(start)
	wg.Wait()
	winner := -1
	for i, err := range errs {
		if err == nil {
			if winner >= 0 {
				t.Fatalf("two identities bound: %s and %s", ids[winner], ids[i])
			}
			winner = i
		}
	}
	if winner < 0 {
		t.Fatalf("no identity bound: %v", errs)
	}
	for i, err := range errs {
		if i != winner {
			wantMismatch(t, err, ids[winner], ids[i])
		}
	}
	for _, h := range hs {
		wantBound(t, h, ids[winner], true)
	}
}

// FullFunc takes away, from outside the store opened in dir (st), the room
// its writes need, as a full disk does, and returns a function that gives
// it back.
type FullFunc func(t *testing.T, dir string, st store.Store) (free func())

// RunStorageFull runs the suite of store.ErrStorageFull: while the store
// has no room, Enqueue and Apply fail with an error wrapping
// store.ErrStorageFull and write nothing, what was committed before is
// intact, and once there is room again the same calls succeed (an intent
// retried with its idempotency key is created once).
func RunStorageFull(t *testing.T, open OpenFunc, fill FullFunc) {
	o := opener[store.Store, *handle]{open: open, wrap: func(st store.Store) *handle { return &handle{Store: st} }}
	t.Run("FullThenFreed", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		st := o.openAt(t, dir)
		ctx := ctxT(t)
		acked := enqueue(t, st, keyed("a", "q", "ka"), ntx("b", "q"))
		before := listAll(t, st, store.Filter{})
		// Large enough to need new pages whatever the store had free.
		big := json.RawMessage(`"` + strings.Repeat("x", 512<<10) + `"`)
		c := keyed("c", "q", "kc")
		c.Data = big
		upd := store.Batch{Txs: []store.TxUpdate{{UID: "a", State: store.Done, Result: big, At: at(5)}},
			History: []store.HistoryEntry{{UID: "a", At: at(5), From: store.Waiting, To: store.Done}}}

		free := fill(t, dir, st.Store)
		if _, err := st.Enqueue(ctx, []store.NewTransaction{c}); !errors.Is(err, store.ErrStorageFull) {
			free()
			t.Fatalf("Enqueue on a full store: %v, want store.ErrStorageFull", err)
		}
		if err := st.Apply(ctx, upd); !errors.Is(err, store.ErrStorageFull) {
			free()
			t.Fatalf("Apply on a full store: %v, want store.ErrStorageFull", err)
		}
		if _, err := st.Get(ctx, "c"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Get(c) after a refused Enqueue: %v, want not found", err)
		}
		checkTxs(t, "records while full", listAll(t, st, store.Filter{}), before, false)
		free()

		res := enqueue(t, st, c)
		if !res[0].Created {
			t.Fatalf("Enqueue after the room came back: %+v, want created", res[0])
		}
		apply(t, st, upd)
		got, err := st.Get(ctx, "a")
		if err != nil || got.State != store.Done || string(got.Result) != string(big) {
			t.Fatalf("a after the room came back: %s, %v", got.State, err)
		}
		if res := enqueue(t, st, keyed("a2", "q", "ka")); res[0].Created || res[0].Transaction.UID != acked[0].Transaction.UID {
			t.Fatalf("the acknowledged key ka: %+v, want %s", res[0].Transaction, acked[0].Transaction.UID)
		}
		if n := len(listAll(t, st, store.Filter{})); n != 3 {
			t.Fatalf("%d records, want 3 (a, b, c)", n)
		}
	})
}
