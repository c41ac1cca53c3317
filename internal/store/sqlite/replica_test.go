package sqlite

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/replog"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/storetest"
)

func TestReplicaConformance(t *testing.T) {
	storetest.RunReplica(t, func(t *testing.T, dir string) storetest.ReplicatedStore {
		return openIn(t, dir, Options{BusyTimeout: 10 * time.Second})
	})
}

// TestReplicaGroupRollback puts a refused Enqueue in the middle of one
// group between two logged ones: the group is rolled back and run again
// without it, and the heads cache must not keep the first run's entries.
func TestReplicaGroupRollback(t *testing.T) {
	dir := t.TempDir()
	s := openIn(t, dir, Options{BusyTimeout: 10 * time.Second})
	defer s.Close()
	ctx := context.Background()
	if err := s.PutReplicaSets(ctx, []store.ReplicaSet{{Queue: "q", Primary: "n1", Version: 1}}); err != nil {
		t.Fatal(err)
	}
	s.SetReplicaSelf("n1")
	nt := func(uid string) []store.NewTransaction {
		return []store.NewTransaction{{UID: uid, Queue: "q", Type: "T", At: time.Unix(0, 1)}}
	}
	if _, err := s.Enqueue(ctx, nt("taken")); err != nil {
		t.Fatal(err)
	}
	release := block(t, dir)
	// The first request waits in BEGIN for the lock; the next three queue
	// up behind it and form the next group.
	type out struct {
		uid string
		err error
	}
	outs := make(chan out, 4)
	send := func(uid string, txs []store.NewTransaction) {
		go func() {
			_, err := s.Enqueue(ctx, txs)
			outs <- out{uid, err}
		}()
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	commits := s.commits.Load()
	send("first", nt("first"))
	waitFor("the first request in the committer", func() bool { return s.q.Waiting() == 0 && s.commits.Load() > commits })
	for i, r := range []struct {
		name string
		txs  []store.NewTransaction
	}{{"g1", nt("g1")}, {"bad", append(nt("r1"), nt("taken")...)}, {"g2", nt("g2")}} {
		send(r.name, r.txs)
		waitFor(r.name+" queued", func() bool { return s.q.Waiting() == i+1 })
	}
	reruns := s.reruns.Load()
	release()
	for range 4 {
		o := <-outs
		if (o.err != nil) != (o.uid == "bad") {
			t.Fatalf("Enqueue %s: %v", o.uid, o.err)
		}
	}
	if s.reruns.Load() == reruns {
		t.Fatal("the group was not run again: the test did not test the rollback")
	}
	if _, err := s.Enqueue(ctx, nt("last")); err != nil {
		t.Fatal(err)
	}
	es, err := s.LogAfter(ctx, "q", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := replog.Extend("q", replog.Head{}, 1, 1, es); err != nil {
		t.Fatalf("log after a rollback: %v", err)
	}
	var uids []string
	for _, e := range es {
		c, err := store.DecodeChange(e.Payload)
		if err != nil {
			t.Fatal(err)
		}
		uids = append(uids, c.UID)
	}
	if got := fmt.Sprint(uids); got != "[taken first g1 g2 last]" {
		t.Fatalf("log of %s, want [taken first g1 g2 last]", got)
	}
}

// BenchmarkEnqueueReplicated is BenchmarkEnqueueParallel with every queue
// logged (this node their primary): the cost of the replication log on the
// write path.
//
//	go test ./internal/store/sqlite -run '^$' -bench EnqueueReplicated -cpu 2
func BenchmarkEnqueueReplicated(b *testing.B) {
	for _, sync := range []string{SyncFull, SyncNormal} {
		b.Run("sync="+sync, func(b *testing.B) {
			s, err := Open(context.Background(), b.TempDir()+"/bench.db", Options{Synchronous: sync})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			sets := make([]store.ReplicaSet, 64)
			for i := range sets {
				sets[i] = store.ReplicaSet{Queue: fmt.Sprintf("queue-%d", i), Primary: "n1", Secondaries: []string{"n2", "n3"}, Version: 1}
			}
			if err := s.PutReplicaSets(context.Background(), sets); err != nil {
				b.Fatal(err)
			}
			s.SetReplicaSelf("n1")
			data := []byte(`{"to":"B62qexample","amount":1000000,"memo":"benchmark payload"}`)
			var next atomic.Int64
			b.SetParallelism(32)
			commits := s.commits.Load()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				ctx := context.Background()
				for pb.Next() {
					i := next.Add(1)
					if _, err := s.Enqueue(ctx, []store.NewTransaction{{UID: fmt.Sprintf("tx-%d", i), Queue: fmt.Sprintf("queue-%d", i%64),
						Type: "SEND_CLAIM_VOTE", Data: data, IdempotencyKey: fmt.Sprintf("key-%d", i), At: time.Unix(0, i)}}); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tx/s")
			if c := s.commits.Load() - commits; c > 0 {
				b.ReportMetric(float64(b.N)/float64(c), "tx/commit")
			}
		})
	}
}
