package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/ordolabs/ordo/internal/replog"
	"github.com/ordolabs/ordo/internal/store"
)

// RunReplica's subtests of the sets, of a secondary's log and of AdoptLog.

// rpSeal seals changes as the entries of queue's log after head, under
// version.
func rpSeal(queue string, version uint64, head replog.Head, changes ...store.Change) []replog.Entry {
	out := make([]replog.Entry, 0, len(changes))
	for _, c := range changes {
		e := replog.Seal(queue, head.Clock+1, version, head.Hash, store.EncodeChange(c))
		out = append(out, e)
		head = e.Head()
	}
	return out
}

func rpIntent(uid string) store.Change {
	n := ntx(uid, "q")
	return store.Change{Op: store.ChangeIntent, UID: uid, Type: n.Type, Data: n.Data, At: t0}
}

func rpIntents(prefix string, n int) []store.Change {
	out := make([]store.Change, n)
	for i := range out {
		out[i] = rpIntent(fmt.Sprintf("%s%d", prefix, i))
	}
	return out
}

func (s *replicaSuite) sets(t *testing.T) {
	h := s.fresh(t)
	if _, err := h.ReplicaSet(ctxT(t), "q1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("ReplicaSet of none: %v, want store.ErrNotFound", err)
	}
	if sets, err := h.ReplicaSets(ctxT(t)); err != nil || len(sets) != 0 {
		t.Fatalf("ReplicaSets of none: %+v, %v", sets, err)
	}
	for _, tc := range []struct {
		name string
		put  []store.ReplicaSet
		want []store.ReplicaSet
	}{
		{"first", []store.ReplicaSet{rpSet("q2", "n2", 1), rpSet("q1", "n1", 2, "n2")},
			[]store.ReplicaSet{rpSet("q1", "n1", 2, "n2"), rpSet("q2", "n2", 1)}},
		{"an older version is ignored", []store.ReplicaSet{rpSet("q1", "n9", 1)},
			[]store.ReplicaSet{rpSet("q1", "n1", 2, "n2"), rpSet("q2", "n2", 1)}},
		{"the same version replaces", []store.ReplicaSet{rpSet("q1", "n3", 2, "n4", "n5")},
			[]store.ReplicaSet{rpSet("q1", "n3", 2, "n4", "n5"), rpSet("q2", "n2", 1)}},
		{"newer, then older in one call", []store.ReplicaSet{rpSet("q2", "n5", 7), rpSet("q2", "n6", 6), rpSet("q0", "n1", 1<<63)},
			[]store.ReplicaSet{rpSet("q0", "n1", 1<<63), rpSet("q1", "n3", 2, "n4", "n5"), rpSet("q2", "n5", 7)}},
	} {
		rpPut(t, h, tc.put...)
		got, err := h.ReplicaSets(ctxT(t))
		if err != nil {
			t.Fatalf("%s: ReplicaSets: %v", tc.name, err)
		}
		rpSame(t, tc.name, got, tc.want)
		for _, w := range tc.want {
			one, err := h.ReplicaSet(ctxT(t), w.Queue)
			if err != nil {
				t.Fatalf("%s: ReplicaSet(%s): %v", tc.name, w.Queue, err)
			}
			rpSame(t, tc.name+": ReplicaSet "+w.Queue, one, w)
		}
	}
	if err := h.PutReplicaSets(ctxT(t), []store.ReplicaSet{{Primary: "n1", Version: 9}}); err == nil {
		t.Fatal("PutReplicaSets of a set without a queue succeeded")
	}
}

func (s *replicaSuite) appendLog(t *testing.T) {
	h := s.fresh(t)
	rpPut(t, h, rpSet("q", "n1", 2, "n2"))
	h.SetReplicaSelf("n2")
	es := rpSeal("q", 2, replog.Head{}, rpIntents("a", 7)...)
	appendOK := func(from uint64, batch []replog.Entry, want replog.Head) {
		t.Helper()
		got, err := h.AppendLog(ctxT(t), "q", from, batch)
		if err != nil || got != want {
			t.Fatalf("AppendLog: %+v, %v; want %+v", got, err, want)
		}
		if hd := rpHead(t, h, "q"); hd != want {
			t.Fatalf("LogHead after AppendLog %+v, want %+v", hd, want)
		}
	}
	appendOK(2, es[:2], es[1].Head())
	appendOK(3, es[1:4], es[3].Head()) // a prefix already held, then more, from a newer primary
	appendOK(2, es[:3], es[3].Head())  // nothing new
	corrupt := es[4]
	corrupt.Payload = append([]byte(nil), corrupt.Payload...)
	corrupt.Payload[0] ^= 1
	for _, tc := range []struct {
		name  string
		from  uint64
		batch []replog.Entry
		want  error
	}{
		{"gap", 2, es[5:], replog.ErrGap},
		{"fork at the head", 2, rpSeal("q", 2, es[2].Head(), rpIntent("other")), replog.ErrFork},
		{"fork after the head", 2, []replog.Entry{replog.Seal("q", 5, 2, replog.Hash{1}, es[4].Payload)}, replog.ErrFork},
		{"stale version", 1, es[4:], replog.ErrStaleVersion},
		{"corrupt", 2, []replog.Entry{corrupt}, replog.ErrCorrupt},
		{"another queue", 2, rpSeal("q2", 2, es[3].Head(), rpIntent("x")), replog.ErrCorrupt},
	} {
		got, err := h.AppendLog(ctxT(t), "q", tc.from, tc.batch)
		if !errors.Is(err, tc.want) {
			t.Fatalf("%s: AppendLog = %+v, %v; want %v", tc.name, got, err, tc.want)
		}
		if hd := rpHead(t, h, "q"); hd != es[3].Head() {
			t.Fatalf("%s: refused AppendLog moved the head to %+v", tc.name, hd)
		}
		if n := len(rpLog(t, h, "q")); n != 4 {
			t.Fatalf("%s: refused AppendLog left %d entries, want 4", tc.name, n)
		}
	}
	appendOK(2, es[4:], es[6].Head())
	rpSame(t, "log", rpLog(t, h, "q"), es)
	// A queue without a held set knows version 0.
	other := rpSeal("q2", 1, replog.Head{}, rpIntent("z"))
	if got, err := h.AppendLog(ctxT(t), "q2", 1, other); err != nil || got != other[0].Head() {
		t.Fatalf("AppendLog of a queue without a set: %+v, %v", got, err)
	}
	rpSame(t, "LogHeads", rpHeads(t, h), map[string]replog.Head{"q": es[6].Head(), "q2": other[0].Head()})
}

func (s *replicaSuite) resetLog(t *testing.T) {
	h := s.fresh(t)
	rpPut(t, h, rpSet("q", "n1", 2, "n2"))
	mine := rpSeal("q", 2, replog.Head{}, rpIntents("x", 3)...)
	if _, err := h.AppendLog(ctxT(t), "q", 2, mine); err != nil {
		t.Fatalf("AppendLog: %v", err)
	}
	theirs := rpSeal("q", 2, replog.Head{}, rpIntents("y", 4)...)
	for _, tc := range []struct {
		name  string
		from  uint64
		batch []replog.Entry
		want  error
	}{
		{"stale version", 1, theirs, replog.ErrStaleVersion},
		{"not from clock 1", 2, theirs[1:], replog.ErrGap},
		{"a broken chain", 2, append(theirs[:2:2], mine[2]), replog.ErrFork},
	} {
		if _, err := h.ResetLog(ctxT(t), "q", tc.from, tc.batch); !errors.Is(err, tc.want) {
			t.Fatalf("%s: ResetLog: %v, want %v", tc.name, err, tc.want)
		}
		rpSame(t, tc.name+": log after a refused ResetLog", rpLog(t, h, "q"), mine)
	}
	got, err := h.ResetLog(ctxT(t), "q", 3, theirs)
	if err != nil || got != theirs[3].Head() {
		t.Fatalf("ResetLog: %+v, %v; want %+v", got, err, theirs[3].Head())
	}
	rpSame(t, "log after ResetLog", rpLog(t, h, "q"), theirs)
	// The log goes on from the new head.
	more := rpSeal("q", 2, theirs[3].Head(), rpIntent("y4"))
	if got, err := h.AppendLog(ctxT(t), "q", 2, more); err != nil || got != more[0].Head() {
		t.Fatalf("AppendLog after ResetLog: %+v, %v", got, err)
	}
}

// rpNotified collects what the store reports to the Notifier.
type rpNotified struct {
	mu   sync.Mutex
	uids []string
}

func (n *rpNotified) add(txs []store.Transaction) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, tx := range txs {
		n.uids = append(n.uids, tx.UID)
	}
}

func (n *rpNotified) get() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string{}, n.uids...)
}

func (s *replicaSuite) adoptLog(t *testing.T) {
	h := s.fresh(t)
	rpPut(t, h, rpSet("q", "n1", 4, "n2"))
	h.SetReplicaSelf("n2")
	keyedA := rpIntent("a")
	keyedA.IdempotencyKey = "ka"
	changes := []store.Change{keyedA, rpIntent("b"), rpIntent("c"), rpIntent("d"), rpIntent("e"), rpIntent("w"),
		{Op: store.ChangeFinal, UID: "b", State: store.Done, Result: json.RawMessage(`{"b":1}`), At: at(7)},
		{Op: store.ChangeFinal, UID: "c", State: store.Failed, Error: "boom", At: at(8)},
	}
	log := rpSeal("q", 4, replog.Head{}, changes...)
	if _, err := h.AppendLog(ctxT(t), "q", 4, log); err != nil {
		t.Fatalf("AppendLog: %v", err)
	}
	// e is held already (with other data): left as it is.
	mine := ntx("e", "q")
	mine.Type = "MINE"
	enqueue(t, h, mine)
	// This node becomes the primary.
	rpPut(t, h, rpSet("q", "n2", 5, "n1"))
	var seen rpNotified
	h.SetOnEnqueued(seen.add)
	applied := map[string]json.RawMessage{"d": json.RawMessage(`{"d":2}`), "b": json.RawMessage(`{"not":"used"}`)}
	got, err := h.AdoptLog(ctxT(t), "q", applied)
	if err != nil {
		t.Fatalf("AdoptLog: %v", err)
	}
	rpSame(t, "AdoptLog's WAITING uids", got, []string{"a", "w"})
	rpSame(t, "notified", seen.get(), []string{"a", "w"})

	a := get(t, h, "a")
	if a.State != store.Waiting || a.IdempotencyKey != "ka" || a.Type != keyedA.Type || !jsonEqual(a.Data, keyedA.Data) || timeEqual(a.CreatedAt, t0) != nil {
		t.Fatalf("adopted a: %+v", a)
	}
	if b := get(t, h, "b"); b.State != store.Done || !jsonEqual(b.Result, json.RawMessage(`{"b":1}`)) || timeEqual(b.UpdatedAt, at(7)) != nil {
		t.Fatalf("adopted b: %+v, want DONE with the log's result", b)
	}
	if c := get(t, h, "c"); c.State != store.Failed || c.Error != "boom" {
		t.Fatalf("adopted c: %+v, want FAILED boom", c)
	}
	if d := get(t, h, "d"); d.State != store.Done || !jsonEqual(d.Result, json.RawMessage(`{"d":2}`)) {
		t.Fatalf("adopted d: %+v, want DONE with the applied result", d)
	}
	if e := get(t, h, "e"); e.Type != "MINE" {
		t.Fatalf("e held before AdoptLog was changed: %+v", e)
	}
	var seqs []int64
	for _, uid := range []string{"a", "b", "c", "d", "w"} {
		seqs = append(seqs, get(t, h, uid).Seq)
	}
	for i := 1; i < len(seqs); i++ {
		if seqs[i] <= seqs[i-1] {
			t.Fatalf("adopted records out of log order: seqs %v", seqs)
		}
	}
	hist, err := h.History(ctxT(t), "b")
	if err != nil {
		t.Fatalf("History(b): %v", err)
	}
	checkHistory(t, hist, []store.HistoryEntry{
		withNote(store.HistoryEntry{UID: "b", At: t0, To: store.Waiting}, hist),
		{UID: "b", At: at(7), From: store.Waiting, To: store.Done, Note: "adopted from the replication log"},
	})
	// The applied one's final change, under the new version.
	cs := rpChain(t, h, "q", 5)
	rpSame(t, "log after AdoptLog", rpOps(cs)[len(changes):], []string{"final d DONE"})
	if last := rpLog(t, h, "q")[len(changes)]; last.Version != 5 || !jsonEqual(cs[len(changes)].Result, applied["d"]) {
		t.Fatalf("ChangeFinal of d: %+v", last)
	}
	// Again: nothing.
	head := rpHead(t, h, "q")
	got, err = h.AdoptLog(ctxT(t), "q", applied)
	if err != nil || len(got) != 0 {
		t.Fatalf("second AdoptLog: %v, %v; want nothing", got, err)
	}
	if hd := rpHead(t, h, "q"); hd != head {
		t.Fatalf("second AdoptLog moved the head to %+v", hd)
	}
	rpSame(t, "notified after a second AdoptLog", seen.get(), []string{"a", "w"})
	// As primary it now logs on.
	enqueue(t, h, ntx("f", "q"))
	if cs := rpChain(t, h, "q", 5); cs[len(cs)-1].UID != "f" {
		t.Fatalf("after AdoptLog the log ends with %+v", cs[len(cs)-1])
	}
}

func (s *replicaSuite) adoptNotPrimary(t *testing.T) {
	h := s.fresh(t)
	rpPut(t, h, rpSet("q", "n1", 4, "n2"))
	if _, err := h.AppendLog(ctxT(t), "q", 4, rpSeal("q", 4, replog.Head{}, rpIntent("a"))); err != nil {
		t.Fatalf("AppendLog: %v", err)
	}
	for _, self := range []string{"", "n2"} {
		h.SetReplicaSelf(self)
		if got, err := h.AdoptLog(ctxT(t), "q", nil); err == nil {
			t.Fatalf("AdoptLog by %q, not the primary: %v, no error", self, got)
		}
		if _, err := h.Get(ctxT(t), "a"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a refused AdoptLog created a: %v", err)
		}
	}
	h.SetReplicaSelf("n1")
	if _, err := h.AdoptLog(ctxT(t), "nope", nil); err == nil {
		t.Fatal("AdoptLog of a queue without a set succeeded")
	}
}
