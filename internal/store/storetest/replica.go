package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/ordolabs/ordo/internal/replog"
	"github.com/ordolabs/ordo/internal/store"
)

// ReplicatedStore is what RunReplica tests: a sequencer store that keeps
// the replication log of its queues.
type ReplicatedStore interface {
	store.Store
	store.ReplicaStore
}

// ReplicaOpenFunc opens the store kept in dir (an empty directory the first
// time); the suite calls it again with the same dir to reopen the store.
// The suite closes every store it opens.
type ReplicaOpenFunc func(t *testing.T, dir string) ReplicatedStore

// replicaHandle is an opened store with an idempotent close.
type replicaHandle struct {
	ReplicatedStore
	closeOnce
}

func (h *replicaHandle) close() error { return h.closeStore(h.ReplicatedStore) }

type replicaSuite struct {
	opener[ReplicatedStore, *replicaHandle]
}

// RunReplica runs the conformance suite of store.ReplicaStore against the
// stores that open returns. Subtests run in parallel, each with its own
// directory.
//
// Beyond the interface's comments, it pins down:
//   - nothing is logged without a self, without a held set, or for a queue
//     whose set names another primary;
//   - a primary's entries chain from clock 1 (replog.Extend from an empty
//     head accepts LogAfter's output), each under the held set's Version at
//     the time; an intent carries uid, type, data, idempotency key and At;
//     a final one the state, result, error and the update's At;
//   - a known idempotency key logs nothing; a DONE update of a DONE record
//     (a hook's result) logs nothing; two updates of one record in a batch,
//     into DONE then DONE again, log one ChangeFinal;
//   - a refused Enqueue or Apply logs nothing and the next entries still
//     chain, however the calls were grouped;
//   - the log and the sets survive a close and a reopen, and logging goes
//     on from the persisted head;
//   - AdoptLog creates records in log order (ascending Seq), reports only
//     the WAITING ones to the Notifier, in order, writes a history entry
//     WAITING → DONE/FAILED for the final ones, and a second call creates
//     nothing;
//   - ReplicaSets come by queue name; an empty Secondaries comes back nil.
func RunReplica(t *testing.T, open ReplicaOpenFunc) {
	s := &replicaSuite{opener: opener[ReplicatedStore, *replicaHandle]{open: open,
		wrap: func(st ReplicatedStore) *replicaHandle { return &replicaHandle{ReplicatedStore: st} }}}
	runParallel(t, []subtest{
		{"NoLogging", s.noLogging},
		{"PrimaryLogsIntents", s.primaryLogsIntents},
		{"IdempotencyKeyLogsNothing", s.idempotencyKey},
		{"Finals", s.finals},
		{"OtherPrimary", s.otherPrimary},
		{"LogAfterLimits", s.logAfterLimits},
		{"RefusedCallsLogNothing", s.refusedCalls},
		{"Reopen", s.reopen},
		{"Sets", s.sets},
		{"AppendLog", s.appendLog},
		{"ResetLog", s.resetLog},
		{"AdoptLog", s.adoptLog},
		{"AdoptLogNotPrimary", s.adoptNotPrimary},
	})
}

// Fixtures and checks.

func rpSet(queue, primary string, version uint64, secondaries ...string) store.ReplicaSet {
	return store.ReplicaSet{Queue: queue, Primary: primary, Secondaries: secondaries, Version: version}
}

func rpPut(t *testing.T, st ReplicatedStore, sets ...store.ReplicaSet) {
	t.Helper()
	if err := st.PutReplicaSets(ctxT(t), sets); err != nil {
		t.Fatalf("PutReplicaSets: %v", err)
	}
}

// rpPrimary is a store that logs queue q as primary n1, set version 3.
func (s *replicaSuite) rpPrimary(t *testing.T) *replicaHandle {
	h := s.fresh(t)
	rpPut(t, h, rpSet("q", "n1", 3, "n2", "n3"))
	h.SetReplicaSelf("n1")
	return h
}

func rpLog(t *testing.T, st ReplicatedStore, queue string) []replog.Entry {
	t.Helper()
	es := []replog.Entry{}
	for {
		page, err := st.LogAfter(ctxT(t), queue, uint64(len(es)), 1000)
		if err != nil {
			t.Fatalf("LogAfter(%s): %v", queue, err)
		}
		es = append(es, page...)
		if len(page) < 1000 {
			return es
		}
	}
}

func rpHead(t *testing.T, st ReplicatedStore, queue string) replog.Head {
	t.Helper()
	h, err := st.LogHead(ctxT(t), queue)
	if err != nil {
		t.Fatalf("LogHead(%s): %v", queue, err)
	}
	return h
}

func rpHeads(t *testing.T, st ReplicatedStore) map[string]replog.Head {
	t.Helper()
	hs, err := st.LogHeads(ctxT(t))
	if err != nil {
		t.Fatalf("LogHeads: %v", err)
	}
	return hs
}

// rpChain checks that queue's log is a valid chain from clock 1 whose
// entries are written under versions up to from, ending at the store's
// head, and returns its changes.
func rpChain(t *testing.T, st ReplicatedStore, queue string, from uint64) []store.Change {
	t.Helper()
	es := rpLog(t, st, queue)
	apply, next, err := replog.Extend(queue, replog.Head{}, from, 0, es)
	if err != nil {
		t.Fatalf("log of %s is not a chain: %v", queue, err)
	}
	if len(apply) != len(es) {
		t.Fatalf("log of %s: Extend applies %d of %d entries", queue, len(apply), len(es))
	}
	if h := rpHead(t, st, queue); h != next {
		t.Fatalf("LogHead(%s) = %+v, the log ends at %+v", queue, h, next)
	}
	cs := make([]store.Change, len(es))
	for i, e := range es {
		if cs[i], err = store.DecodeChange(e.Payload); err != nil {
			t.Fatalf("log of %s at %d: %v", queue, e.Clock, err)
		}
	}
	return cs
}

// rpOps is the log's changes as "op uid" strings.
func rpOps(cs []store.Change) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Op + " " + c.UID
		if c.Op == store.ChangeFinal {
			out[i] += " " + string(c.State)
		}
	}
	return out
}

func rpSame(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(want)
		t.Fatalf("%s:\n got %s\nwant %s", what, gb, wb)
	}
}

// The subtests of the primary's logging.

func (s *replicaSuite) noLogging(t *testing.T) {
	h := s.fresh(t)
	// A held set, no self.
	rpPut(t, h, rpSet("q", "n1", 1))
	enqueue(t, h, ntx("a", "q"))
	apply(t, h, store.Batch{Txs: []store.TxUpdate{update("a", store.Done, nil, 1)}})
	if hs := rpHeads(t, h); len(hs) != 0 {
		t.Fatalf("without a self: heads %+v, want none", hs)
	}
	// A self, a queue without a set.
	h.SetReplicaSelf("n1")
	enqueue(t, h, ntx("b", "other"))
	apply(t, h, store.Batch{Txs: []store.TxUpdate{update("b", store.Failed, nil, 2)}})
	if hs := rpHeads(t, h); len(hs) != 0 {
		t.Fatalf("queue without a set: heads %+v, want none", hs)
	}
	if es := rpLog(t, h, "other"); len(es) != 0 {
		t.Fatalf("queue without a set: log %+v", es)
	}
	// Cleared self: nothing again.
	h.SetReplicaSelf("")
	enqueue(t, h, ntx("c", "q"))
	if hs := rpHeads(t, h); len(hs) != 0 {
		t.Fatalf("self cleared: heads %+v, want none", hs)
	}
}

func (s *replicaSuite) primaryLogsIntents(t *testing.T) {
	h := s.rpPrimary(t)
	a, b, c := keyed("a", "q", "ka"), ntx("b", "q"), ntx("c", "q")
	b.At, c.At = at(5), at(9)
	enqueue(t, h, a, b, ntx("x", "other"))
	enqueue(t, h, c)
	es := rpLog(t, h, "q")
	if len(es) != 3 {
		t.Fatalf("log holds %d entries, want 3", len(es))
	}
	for i, n := range []store.NewTransaction{a, b, c} {
		e := es[i]
		if e.Queue != "q" || e.Clock != uint64(i+1) || e.Version != 3 {
			t.Fatalf("entry %d: queue %s clock %d version %d", i, e.Queue, e.Clock, e.Version)
		}
		got, err := store.DecodeChange(e.Payload)
		if err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
		if err := timeEqual(got.At, n.At); err != nil {
			t.Fatalf("entry %d: At %v", i, err)
		}
		if got.Op != store.ChangeIntent || got.UID != n.UID || got.Type != n.Type || got.IdempotencyKey != n.IdempotencyKey ||
			!jsonEqual(got.Data, n.Data) {
			t.Fatalf("entry %d: %+v, want the intent of %+v", i, got, n)
		}
	}
	rpChain(t, h, "q", 3)
	head := rpHead(t, h, "q")
	rpSame(t, "LogHeads", rpHeads(t, h), map[string]replog.Head{"q": head})
	if es, err := h.LogAfter(ctxT(t), "q", 1, 1); err != nil || len(es) != 1 || es[0].Clock != 2 {
		t.Fatalf("LogAfter(q, 1, 1) = %+v, %v; want the entry at 2", es, err)
	}
	// A new version: the next entries are written under it, chained on.
	rpPut(t, h, rpSet("q", "n1", 4, "n2"))
	enqueue(t, h, ntx("d", "q"))
	es = rpLog(t, h, "q")
	if last := es[len(es)-1]; last.Clock != 4 || last.Version != 4 || last.Prev != head.Hash {
		t.Fatalf("entry after a version change: %+v, want clock 4 version 4 after %x", last, head.Hash)
	}
	rpChain(t, h, "q", 4)
}

func (s *replicaSuite) idempotencyKey(t *testing.T) {
	h := s.rpPrimary(t)
	enqueue(t, h, keyed("a", "q", "k1"))
	if res := enqueue(t, h, keyed("a2", "q", "k1")); res[0].Created {
		t.Fatal("a known key created a record")
	}
	enqueue(t, h, keyed("b", "q", "k2"), keyed("b2", "q", "k2"))
	rpSame(t, "log", rpOps(rpChain(t, h, "q", 3)), []string{"intent a", "intent b"})
}

func (s *replicaSuite) finals(t *testing.T) {
	h := s.rpPrimary(t)
	enqueue(t, h, ntx("a", "q"), ntx("b", "q"), ntx("c", "q"), ntx("d", "q"), ntx("e", "q"))
	res := json.RawMessage(`{"ok":1}`)
	done := update("a", store.Done, nil, 20)
	done.Result = res
	apply(t, h, store.Batch{Txs: []store.TxUpdate{update("a", store.Revision, nil, 10)}})
	apply(t, h, store.Batch{Txs: []store.TxUpdate{done}})
	failed := update("b", store.Failed, nil, 30)
	failed.Error = "boom"
	apply(t, h, store.Batch{Txs: []store.TxUpdate{failed}})
	// A hook's result on a DONE record: nothing more.
	again := update("a", store.Done, nil, 40)
	again.Result = json.RawMessage(`{"ok":2}`)
	apply(t, h, store.Batch{Txs: []store.TxUpdate{again}})
	// Into DONE and DONE again in one batch: one entry; into RETRY then
	// FAILED in one batch: one.
	apply(t, h, store.Batch{Txs: []store.TxUpdate{update("c", store.Done, nil, 50), again2("c")}})
	apply(t, h, store.Batch{Txs: []store.TxUpdate{update("d", store.Retry, nil, 60), update("d", store.Failed, nil, 61)}})
	// An unknown uid: refused, nothing logged.
	if err := h.Apply(ctxT(t), store.Batch{Txs: []store.TxUpdate{update("e", store.Done, nil, 70), update("nope", store.Done, nil, 70)}}); err == nil {
		t.Fatal("Apply of an unknown uid succeeded")
	}
	cs := rpChain(t, h, "q", 3)
	rpSame(t, "log", rpOps(cs), []string{"intent a", "intent b", "intent c", "intent d", "intent e",
		"final a DONE", "final b FAILED", "final c DONE", "final d FAILED"})
	if a := cs[5]; !jsonEqual(a.Result, res) || a.Error != "" || timeEqual(a.At, at(20)) != nil {
		t.Fatalf("final of a: %+v, want result %s at %v", a, res, at(20))
	}
	if b := cs[6]; b.Error != "boom" || len(b.Result) != 0 || timeEqual(b.At, at(30)) != nil {
		t.Fatalf("final of b: %+v", b)
	}
}

func again2(uid string) store.TxUpdate {
	u := update(uid, store.Done, nil, 51)
	u.Result = json.RawMessage(`"r"`)
	return u
}

func (s *replicaSuite) otherPrimary(t *testing.T) {
	h := s.fresh(t)
	rpPut(t, h, rpSet("q", "n2", 1, "n1"))
	h.SetReplicaSelf("n1")
	enqueue(t, h, ntx("a", "q"))
	apply(t, h, store.Batch{Txs: []store.TxUpdate{update("a", store.Done, nil, 1)}})
	if hs := rpHeads(t, h); len(hs) != 0 {
		t.Fatalf("a queue whose primary is another node: heads %+v", hs)
	}
}

func (s *replicaSuite) logAfterLimits(t *testing.T) {
	h := s.rpPrimary(t)
	txs := make([]store.NewTransaction, 1001)
	for i := range txs {
		txs[i] = ntx(fmt.Sprintf("t%04d", i), "q")
	}
	enqueue(t, h, txs...)
	for _, tc := range []struct {
		after      uint64
		limit, len int
	}{{0, 0, 100}, {0, -1, 100}, {0, 5, 5}, {0, 5000, 1000}, {1000, 0, 1}, {1001, 0, 0}} {
		es, err := h.LogAfter(ctxT(t), "q", tc.after, tc.limit)
		if err != nil || len(es) != tc.len {
			t.Fatalf("LogAfter(q, %d, %d): %d entries, %v; want %d", tc.after, tc.limit, len(es), err, tc.len)
		}
		if len(es) > 0 && es[0].Clock != tc.after+1 {
			t.Fatalf("LogAfter(q, %d, %d) starts at %d", tc.after, tc.limit, es[0].Clock)
		}
	}
	rpChain(t, h, "q", 3)
}

// refusedCalls: Enqueue and Apply calls the store refuses, racing valid
// ones (so that some share their group), leave no entry, and every entry
// of the valid ones chains.
func (s *replicaSuite) refusedCalls(t *testing.T) {
	h := s.rpPrimary(t)
	enqueue(t, h, ntx("taken", "q"))
	const n = 12
	var wg sync.WaitGroup
	errs := make(chan error, 4*n)
	for i := range n {
		wg.Go(func() {
			if _, err := h.Enqueue(ctxT(t), []store.NewTransaction{ntx(fmt.Sprintf("g%02d", i), "q")}); err != nil {
				errs <- err
			}
		})
		wg.Go(func() {
			// A new uid, then a taken one: the whole call is refused.
			if _, err := h.Enqueue(ctxT(t), []store.NewTransaction{ntx(fmt.Sprintf("r%02d", i), "q"), ntx("taken", "q")}); err == nil {
				errs <- errors.New("an Enqueue of a taken uid succeeded")
			}
		})
		wg.Go(func() {
			b := store.Batch{Txs: []store.TxUpdate{update("taken", store.Done, nil, i), update("nope", store.Done, nil, i)}}
			if err := h.Apply(ctxT(t), b); err == nil {
				errs <- errors.New("an Apply of an unknown uid succeeded")
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	enqueue(t, h, ntx("last", "q"))
	cs := rpChain(t, h, "q", 3)
	if len(cs) != n+2 {
		t.Fatalf("log holds %d entries %v, want %d", len(cs), rpOps(cs), n+2)
	}
	for _, c := range cs {
		if c.Op != store.ChangeIntent || c.UID[0] == 'r' {
			t.Fatalf("log holds %s of %s, from a refused call", c.Op, c.UID)
		}
	}
	if _, err := h.Get(ctxT(t), "r00"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("refused Enqueue left r00: %v", err)
	}
}

func (s *replicaSuite) reopen(t *testing.T) {
	dir := t.TempDir()
	h := s.openAt(t, dir)
	rpPut(t, h, rpSet("q", "n1", 3, "n2"))
	h.SetReplicaSelf("n1")
	enqueue(t, h, ntx("a", "q"), ntx("b", "q"))
	head := rpHead(t, h, "q")
	if err := h.close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	h2 := s.openAt(t, dir)
	if got := rpHead(t, h2, "q"); got != head {
		t.Fatalf("head after reopen %+v, want %+v", got, head)
	}
	set, err := h2.ReplicaSet(ctxT(t), "q")
	if err != nil {
		t.Fatalf("ReplicaSet after reopen: %v", err)
	}
	rpSame(t, "set after reopen", set, rpSet("q", "n1", 3, "n2"))
	h2.SetReplicaSelf("n1")
	enqueue(t, h2, ntx("c", "q"))
	es := rpLog(t, h2, "q")
	if len(es) != 3 || es[2].Clock != 3 || es[2].Prev != head.Hash {
		t.Fatalf("after reopen the log is %+v, want a third entry after %x", es, head.Hash)
	}
	rpChain(t, h2, "q", 3)
}
