package storetest

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit"
)

// Leased is a store that keeps leases.
type Leased interface {
	store.Store
	store.LeaseStore
}

// LeasesOpenFunc opens the (empty) store kept in dir.
type LeasesOpenFunc func(t *testing.T, dir string) Leased

type leaseSuite struct {
	opener[Leased, *leaseHandle]
	cfg config
}

type leaseHandle struct {
	Leased
	closeOnce
}

func (h *leaseHandle) close() error { return h.closeStore(h.Leased) }

// RunLeases runs the conformance suite of store.LeaseStore and of
// store.Batch.Fence against the stores that open returns. Subtests run in
// parallel, each with its own store. Time passes on the store's clock:
// the suite never sets it; a lease meant to expire is taken for 1ms and
// the suite polls until the store no longer lists it.
//
// Beyond the interface's comments, it pins down:
//   - AcquireLeases ignores duplicate and empty names and answers in name
//     order; a holder's unexpired lease keeps its token when acquired
//     again; a token taken after an expiry (by anyone) or from another
//     holder is above the lease's earlier tokens;
//   - a released lease is free at once and taken again with a higher
//     token; ReleaseLeases with nil names releases every lease of the
//     holder, and never another holder's;
//   - ActiveQueues leaves out queues whose transactions are all DONE or
//     FAILED and queues with only a binding;
//   - Apply with a Fence the store no longer honours (another holder, an
//     expired lease, a stale or a future token, a lease never taken)
//     fails with an error wrapping store.ErrFenced and writes nothing of
//     the batch; it does not undo writes it shares a group commit with
//     (WithBlocker makes such groups likelier);
//   - the engines' writes (ApplyProcessor, ApplyLeader, ApplyDistseq) of a
//     store that has them honour their Fence the same way.
func RunLeases(t *testing.T, open LeasesOpenFunc, opts ...Option) {
	s := &leaseSuite{opener: opener[Leased, *leaseHandle]{open: open, wrap: func(st Leased) *leaseHandle { return &leaseHandle{Leased: st} }}}
	for _, o := range opts {
		o(&s.cfg)
	}
	runParallel(t, []subtest{
		{"AcquireFree", s.testAcquireFree},
		{"AcquireHeld", s.testAcquireHeld},
		{"AcquireExpired", s.testAcquireExpired},
		{"AcquireOwn", s.testAcquireOwn},
		{"Renew", s.testRenew},
		{"Release", s.testRelease},
		{"LeasesPrefix", s.testLeasesPrefix},
		{"ActiveQueues", s.testActiveQueues},
		{"Fence", s.testFence},
		{"FenceInGroup", s.testFenceInGroup},
		{"EngineFence", s.testEngineFence},
		{"FenceChained", s.testFenceChained},
	})
}

const leaseLong = time.Minute

func acquire(t *testing.T, st store.LeaseStore, holder string, ttl time.Duration, names ...string) []store.Lease {
	t.Helper()
	ls, err := st.AcquireLeases(ctxT(t), holder, names, ttl)
	if err != nil {
		t.Fatalf("AcquireLeases(%s, %v): %v", holder, names, err)
	}
	return ls
}

func leasesOf(t *testing.T, st store.LeaseStore, prefix string) []store.Lease {
	t.Helper()
	ls, err := st.Leases(ctxT(t), prefix)
	if err != nil {
		t.Fatalf("Leases(%q): %v", prefix, err)
	}
	return ls
}

func leaseNamesOf(ls []store.Lease) []string {
	out := []string{}
	for _, l := range ls {
		out = append(out, l.Name)
	}
	return out
}

func wantLeaseNames(t *testing.T, what string, ls []store.Lease, want ...string) {
	t.Helper()
	if want == nil {
		want = []string{}
	}
	if got := leaseNamesOf(ls); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: leases %v, want %v", what, got, want)
	}
}

// leaseOf returns the lease named name in ls.
func leaseOf(t *testing.T, ls []store.Lease, name string) store.Lease {
	t.Helper()
	for _, l := range ls {
		if l.Name == name {
			return l
		}
	}
	t.Fatalf("no lease %s among %v", name, leaseNamesOf(ls))
	return store.Lease{}
}

// waitExpired polls until the store lists none of names.
func waitExpired(t *testing.T, st store.LeaseStore, names ...string) {
	t.Helper()
	testkit.WaitFor(t, 10*time.Second, time.Millisecond, fmt.Sprintf("leases %v expired", names), func() bool {
		live := 0
		for _, n := range names {
			live += len(leasesOf(t, st, n))
		}
		return live == 0
	})
}

func (s *leaseSuite) testAcquireFree(t *testing.T) {
	st := s.fresh(t)
	ls := acquire(t, st, "n1", leaseLong, "queue/b", "queue/a", "", "queue/b")
	wantLeaseNames(t, "acquired", ls, "queue/a", "queue/b")
	for _, l := range ls {
		if l.Holder != "n1" || l.Token <= 0 || l.Expires.IsZero() || l.Expires.Location() != time.UTC {
			t.Fatalf("lease %+v: want holder n1, a positive token, an expiry in UTC", l)
		}
	}
	if got := leasesOf(t, st, "queue/"); !reflect.DeepEqual(got, ls) {
		t.Fatalf("Leases = %+v, want %+v", got, ls)
	}
	wantLeaseNames(t, "no names", acquire(t, st, "n1", leaseLong))
	if _, err := st.AcquireLeases(ctxT(t), "", []string{"queue/c"}, leaseLong); err == nil {
		t.Fatalf("AcquireLeases with an empty holder: no error")
	}
	if _, err := st.AcquireLeases(ctxT(t), "n1", []string{"queue/c"}, 0); err == nil {
		t.Fatalf("AcquireLeases with a zero ttl: no error")
	}
}

func (s *leaseSuite) testAcquireHeld(t *testing.T) {
	st := s.fresh(t)
	a := leaseOf(t, acquire(t, st, "n1", leaseLong, "queue/a"), "queue/a")
	wantLeaseNames(t, "n2's", acquire(t, st, "n2", leaseLong, "queue/a", "queue/b"), "queue/b")
	if got := leaseOf(t, leasesOf(t, st, "queue/a"), "queue/a"); got != a {
		t.Fatalf("queue/a after n2's try: %+v, want %+v", got, a)
	}
}

func (s *leaseSuite) testAcquireExpired(t *testing.T) {
	st := s.fresh(t)
	firsts := acquire(t, st, "n1", time.Millisecond, "queue/a", "queue/b")
	first, b := leaseOf(t, firsts, "queue/a"), leaseOf(t, firsts, "queue/b")
	waitExpired(t, st, "queue/a", "queue/b")
	taken := acquire(t, st, "n2", leaseLong, "queue/a")
	if l := leaseOf(t, taken, "queue/a"); l.Holder != "n2" || l.Token <= first.Token {
		t.Fatalf("queue/a taken after expiry: %+v, want n2's with a token above %d", l, first.Token)
	}
	// The holder's own lease, taken again after it expired, gets a new token.
	again := leaseOf(t, acquire(t, st, "n1", leaseLong, "queue/b"), "queue/b")
	if again.Token <= b.Token {
		t.Fatalf("queue/b taken again after expiry: token %d, want above %d", again.Token, b.Token)
	}
}

func (s *leaseSuite) testAcquireOwn(t *testing.T) {
	st := s.fresh(t)
	first := leaseOf(t, acquire(t, st, "n1", leaseLong, "queue/a"), "queue/a")
	again := leaseOf(t, acquire(t, st, "n1", 2*leaseLong, "queue/a"), "queue/a")
	if again.Token != first.Token || again.Holder != "n1" || again.Expires.Before(first.Expires) {
		t.Fatalf("renewed by acquire: %+v, want %+v's token and a later expiry", again, first)
	}
}

func (s *leaseSuite) testRenew(t *testing.T) {
	st := s.fresh(t)
	a := leaseOf(t, acquire(t, st, "n1", leaseLong/2, "queue/a"), "queue/a")
	acquire(t, st, "n1", time.Millisecond, "queue/b")
	acquire(t, st, "n2", leaseLong, "queue/c")
	waitExpired(t, st, "queue/b")
	ls, err := st.RenewLeases(ctxT(t), "n1", leaseLong)
	if err != nil {
		t.Fatalf("RenewLeases: %v", err)
	}
	wantLeaseNames(t, "renewed", ls, "queue/a")
	if r := ls[0]; r.Token != a.Token || r.Holder != "n1" || !r.Expires.After(a.Expires) {
		t.Fatalf("renewed %+v, want %+v's token and a later expiry", r, a)
	}
	ls, err = st.RenewLeases(ctxT(t), "n3", leaseLong)
	if err != nil || len(ls) != 0 {
		t.Fatalf("RenewLeases of a holder of nothing: %v, %v", ls, err)
	}
}

func (s *leaseSuite) testRelease(t *testing.T) {
	st := s.fresh(t)
	held := acquire(t, st, "n1", leaseLong, "queue/a", "queue/b", "sender/s")
	acquire(t, st, "n2", leaseLong, "queue/c")
	if err := st.ReleaseLeases(ctxT(t), "n1", []string{"queue/a", "queue/c"}); err != nil {
		t.Fatalf("ReleaseLeases: %v", err)
	}
	wantLeaseNames(t, "after releasing queue/a", leasesOf(t, st, ""), "queue/b", "queue/c", "sender/s")
	taken := leaseOf(t, acquire(t, st, "n2", leaseLong, "queue/a"), "queue/a")
	if taken.Token <= leaseOf(t, held, "queue/a").Token {
		t.Fatalf("released queue/a taken by n2 with token %d, want above %d", taken.Token, leaseOf(t, held, "queue/a").Token)
	}
	if err := st.ReleaseLeases(ctxT(t), "n1", []string{}); err != nil {
		t.Fatalf("ReleaseLeases of no names: %v", err)
	}
	wantLeaseNames(t, "after releasing no names", leasesOf(t, st, ""), "queue/a", "queue/b", "queue/c", "sender/s")
	if err := st.ReleaseLeases(ctxT(t), "n1", nil); err != nil {
		t.Fatalf("ReleaseLeases(nil): %v", err)
	}
	wantLeaseNames(t, "after releasing all of n1's", leasesOf(t, st, ""), "queue/a", "queue/c")
	again := leaseOf(t, acquire(t, st, "n1", leaseLong, "queue/b"), "queue/b")
	if again.Token <= leaseOf(t, held, "queue/b").Token {
		t.Fatalf("queue/b taken again by n1 after its release: token %d, want above %d", again.Token, leaseOf(t, held, "queue/b").Token)
	}
}

func (s *leaseSuite) testLeasesPrefix(t *testing.T) {
	st := s.fresh(t)
	acquire(t, st, "n1", leaseLong, "queue/a", "queue/b", "queuex", "sender/x", store.LeaseNode+"n1")
	acquire(t, st, "n2", time.Millisecond, "queue/gone")
	waitExpired(t, st, "queue/gone")
	for _, tc := range []struct {
		prefix string
		want   []string
	}{
		{store.LeaseQueue, []string{"queue/a", "queue/b"}},
		{store.LeaseSender, []string{"sender/x"}},
		{store.LeaseNode, []string{"node/n1"}},
		{"queue", []string{"queue/a", "queue/b", "queuex"}},
		{"", []string{"node/n1", "queue/a", "queue/b", "queuex", "sender/x"}},
		{"queue/b", []string{"queue/b"}},
		{"zzz", nil},
		{"\u00ff", nil},
	} {
		wantLeaseNames(t, fmt.Sprintf("prefix %q", tc.prefix), leasesOf(t, st, tc.prefix), tc.want...)
	}
}

func (s *leaseSuite) testActiveQueues(t *testing.T) {
	st := s.fresh(t)
	enqueue(t, st, ntx("a1", "qa"), ntx("b1", "qb"), ntx("b2", "qb"), ntx("c1", "qc"), ntx("d1", "qd"),
		ntx("d2", "qd"), ntx("e1", "qe"), ntx("f1", "qf"))
	apply(t, st, store.Batch{
		Txs: []store.TxUpdate{
			update("b1", store.Done, nil, 1), update("b2", store.Failed, nil, 1), // qb: all final
			update("d1", store.Done, nil, 1), // qd: d2 still WAITING
			update("e1", store.Retry, nil, 1),
			update("f1", store.Revision, nil, 1),
		},
		Queues: []store.Queue{{Name: "qz", State: store.Free, UpdatedAt: at(1)}}, // a binding only
	})
	active := func(after string, limit int) []string {
		t.Helper()
		qs, err := st.ActiveQueues(ctxT(t), after, limit)
		if err != nil {
			t.Fatalf("ActiveQueues(%q, %d): %v", after, limit, err)
		}
		return qs
	}
	for _, tc := range []struct {
		after string
		limit int
		want  []string
	}{
		{"", 0, []string{"qa", "qc", "qd", "qe", "qf"}},
		{"", 2, []string{"qa", "qc"}},
		{"qc", 2, []string{"qd", "qe"}},
		{"qe", 2, []string{"qf"}},
		{"qb", 1, []string{"qc"}},
		{"qf", 10, []string{}},
	} {
		if got := active(tc.after, tc.limit); !reflect.DeepEqual(got, tc.want) {
			t.Fatalf("ActiveQueues(%q, %d) = %v, want %v", tc.after, tc.limit, got, tc.want)
		}
	}
}

// fencedBatch moves uid to REVISION and binds queue to it.
func fencedBatch(uid, queue string, f *store.Fence) store.Batch {
	return store.Batch{
		Txs:     []store.TxUpdate{update(uid, store.Revision, nil, 5)},
		Queues:  []store.Queue{{Name: queue, State: store.Blocked, TxUID: uid, UpdatedAt: at(5)}},
		History: []store.HistoryEntry{{UID: uid, At: at(5), From: store.Waiting, To: store.Revision}},
		Fence:   f,
	}
}

// wantUnfenced checks that uid is still WAITING and queue has no binding.
func wantUnfenced(t *testing.T, st store.Store, uid, queue string) {
	t.Helper()
	if tx := get(t, st, uid); tx.State != store.Waiting {
		t.Fatalf("%s is %s after a fenced Apply, want WAITING", uid, tx.State)
	}
	qs, err := st.Queues(ctxT(t))
	if err != nil {
		t.Fatalf("Queues: %v", err)
	}
	for _, q := range qs {
		if q.Name == queue && q.State != store.Free {
			t.Fatalf("queue %s after a fenced Apply: %+v, want FREE", queue, q)
		}
	}
	h, err := st.History(ctxT(t), uid)
	if err != nil || len(h) != 1 {
		t.Fatalf("History(%s) after a fenced Apply: %v, %v, want its enqueue only", uid, h, err)
	}
}

func (s *leaseSuite) testFence(t *testing.T) {
	st := s.fresh(t)
	enqueue(t, st, ntx("ok", "qok"), ntx("u", "q"))
	ok := leaseOf(t, acquire(t, st, "n1", leaseLong, "queue/qok", "sender/s"), "queue/qok")
	snd := leaseOf(t, leasesOf(t, st, "sender/s"), "sender/s")
	apply(t, st, fencedBatch("ok", "qok", &store.Fence{Holder: "n1", Leases: map[string]int64{ok.Name: ok.Token, snd.Name: snd.Token}}))
	if tx := get(t, st, "ok"); tx.State != store.Revision {
		t.Fatalf("fenced Apply of held leases: ok is %s, want REVISION", tx.State)
	}

	// Leases for the refused cases: n2 holds queue/other; queue/old expired.
	other := leaseOf(t, acquire(t, st, "n2", leaseLong, "queue/other"), "queue/other")
	old := leaseOf(t, acquire(t, st, "n1", time.Millisecond, "queue/old"), "queue/old")
	waitExpired(t, st, "queue/old")
	for _, tc := range []struct {
		name  string
		fence store.Fence
	}{
		{"another holder's lease", store.Fence{Holder: "n1", Leases: map[string]int64{other.Name: other.Token}}},
		{"another holder", store.Fence{Holder: "n3", Leases: map[string]int64{ok.Name: ok.Token}}},
		{"stale token", store.Fence{Holder: "n1", Leases: map[string]int64{ok.Name: ok.Token - 1}}},
		{"future token", store.Fence{Holder: "n1", Leases: map[string]int64{ok.Name: ok.Token + 1}}},
		{"expired", store.Fence{Holder: "n1", Leases: map[string]int64{old.Name: old.Token}}},
		{"one of two expired", store.Fence{Holder: "n1", Leases: map[string]int64{ok.Name: ok.Token, old.Name: old.Token}}},
		{"never taken", store.Fence{Holder: "n1", Leases: map[string]int64{"queue/none": 1}}},
	} {
		err := st.Apply(ctxT(t), fencedBatch("u", "q", &tc.fence))
		if !errors.Is(err, store.ErrFenced) {
			t.Fatalf("%s: Apply: %v, want one wrapping store.ErrFenced", tc.name, err)
		}
		wantUnfenced(t, st, "u", "q")
	}

	// The expired lease taken by another holder: the old token stays refused.
	taken := leaseOf(t, acquire(t, st, "n2", leaseLong, "queue/old"), "queue/old")
	for _, f := range []store.Fence{
		{Holder: "n1", Leases: map[string]int64{old.Name: old.Token}},
		{Holder: "n1", Leases: map[string]int64{old.Name: taken.Token}},
	} {
		if err := st.Apply(ctxT(t), fencedBatch("u", "q", &f)); !errors.Is(err, store.ErrFenced) {
			t.Fatalf("fence %+v after a takeover: Apply: %v, want ErrFenced", f, err)
		}
	}
	wantUnfenced(t, st, "u", "q")
	apply(t, st, fencedBatch("u", "q", &store.Fence{Holder: "n2", Leases: map[string]int64{old.Name: taken.Token}}))
	if tx := get(t, st, "u"); tx.State != store.Revision {
		t.Fatalf("the new holder's fenced Apply: u is %s, want REVISION", tx.State)
	}
}

// testFenceInGroup runs fenced Apply calls alongside Enqueue and Apply
// calls of the same store, so that they share group commits: each fenced
// one fails alone.
func (s *leaseSuite) testFenceInGroup(t *testing.T) {
	dir := t.TempDir()
	st := s.openAt(t, dir)
	const rounds = 8
	var seed []store.NewTransaction
	for i := range rounds {
		seed = append(seed, ntx(fmt.Sprintf("f%d", i), fmt.Sprintf("qf%d", i)), ntx(fmt.Sprintf("g%d", i), fmt.Sprintf("qg%d", i)))
	}
	enqueue(t, st, seed...)
	good := leaseOf(t, acquire(t, st, "n1", leaseLong, "queue/good"), "queue/good")
	stale := &store.Fence{Holder: "n1", Leases: map[string]int64{good.Name: good.Token + 1}}
	ok := &store.Fence{Holder: "n1", Leases: map[string]int64{good.Name: good.Token}}
	release := func() {}
	if s.cfg.blocker != nil {
		release = s.cfg.blocker(t, dir)
	}
	ctx := ctxT(t)
	var wg sync.WaitGroup
	errs := make(chan error, 3*rounds)
	for i := range rounds {
		wg.Add(3)
		go func() {
			defer wg.Done()
			if _, err := st.Enqueue(ctx, []store.NewTransaction{ntx(fmt.Sprintf("n%d", i), "qn")}); err != nil {
				errs <- fmt.Errorf("enqueue n%d: %w", i, err)
			}
		}()
		go func() {
			defer wg.Done()
			err := st.Apply(ctx, fencedBatch(fmt.Sprintf("f%d", i), fmt.Sprintf("qf%d", i), stale))
			if !errors.Is(err, store.ErrFenced) {
				errs <- fmt.Errorf("fenced apply f%d: %w, want ErrFenced", i, err)
			}
		}()
		go func() {
			defer wg.Done()
			if err := st.Apply(ctx, fencedBatch(fmt.Sprintf("g%d", i), fmt.Sprintf("qg%d", i), ok)); err != nil {
				errs <- fmt.Errorf("apply g%d: %w", i, err)
			}
		}()
	}
	release()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}
	for i := range rounds {
		wantUnfenced(t, st, fmt.Sprintf("f%d", i), fmt.Sprintf("qf%d", i))
		if tx := get(t, st, fmt.Sprintf("g%d", i)); tx.State != store.Revision {
			t.Fatalf("g%d is %s, want REVISION", i, tx.State)
		}
		get(t, st, fmt.Sprintf("n%d", i))
	}
}
