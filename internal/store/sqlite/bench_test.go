package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

// BenchmarkEnqueueParallel measures Enqueue throughput with one transaction
// per call from many concurrent callers (the HTTP API's shape: 64 clients),
// with durable commits (synchronous=FULL) and, for comparison, NORMAL.
//
//	go test ./internal/store/sqlite -run '^$' -bench EnqueueParallel -cpu 2
func BenchmarkEnqueueParallel(b *testing.B) {
	for _, sync := range []string{SyncFull, SyncNormal} {
		b.Run("sync="+sync, func(b *testing.B) {
			s, err := Open(context.Background(), b.TempDir()+"/bench.db", Options{Synchronous: sync})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			data := json.RawMessage(`{"to":"B62qexample","amount":1000000,"memo":"benchmark payload"}`)
			var next atomic.Int64
			// RunParallel starts parallelism*GOMAXPROCS goroutines: 64 callers
			// with -cpu 2.
			b.SetParallelism(32)
			commits := s.commits.Load()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				ctx := context.Background()
				for pb.Next() {
					i := next.Add(1)
					_, err := s.Enqueue(ctx, []store.NewTransaction{{
						UID:            fmt.Sprintf("tx-%d", i),
						Queue:          fmt.Sprintf("queue-%d", i%64),
						Type:           "SEND_CLAIM_VOTE",
						Data:           data,
						IdempotencyKey: fmt.Sprintf("key-%d", i),
						At:             time.Unix(0, i),
					}})
					if err != nil {
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

// BenchmarkApplyBatch measures one Apply of a batch shaped like the
// sequencer's: 500 transaction updates each with an attempt, 500 queue
// bindings, 500 senders and 500 history entries. synchronous=NORMAL keeps
// the fsync out of the measurement: it is the statements' CPU.
//
//	go test ./internal/store/sqlite -run '^$' -bench ApplyBatch -benchtime=50x -count=3
func BenchmarkApplyBatch(b *testing.B) {
	const n = 500
	ctx := context.Background()
	s, err := Open(ctx, b.TempDir()+"/bench.db", Options{Synchronous: SyncNormal})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	data := json.RawMessage(`{"to":"B62qexample","amount":1000000,"memo":"benchmark payload"}`)
	txs := make([]store.NewTransaction, n)
	for i := range txs {
		txs[i] = store.NewTransaction{
			UID:   fmt.Sprintf("tx-%d", i),
			Queue: fmt.Sprintf("queue-%d", i),
			Type:  "SEND_CLAIM_VOTE",
			Data:  data,
			At:    time.Unix(1, int64(i)),
		}
	}
	if _, err := s.Enqueue(ctx, txs); err != nil {
		b.Fatal(err)
	}
	batch := func(it int) store.Batch {
		at := time.Unix(100+int64(it), 0)
		var bt store.Batch
		for i := range n {
			uid := fmt.Sprintf("tx-%d", i)
			queue := fmt.Sprintf("queue-%d", i)
			sender := fmt.Sprintf("B62qsender%d", i)
			bt.Txs = append(bt.Txs, store.TxUpdate{
				UID: uid, State: store.Revision, Retries: it,
				Attempt: &store.Attempt{
					N: 1 + it%4, Sender: sender, Nonce: uint64(it), Fee: 1e8,
					Hash: fmt.Sprintf("5Ju%d-%d", i, it), At: at, Outcome: "sent",
				},
				At: at,
			})
			bt.Queues = append(bt.Queues, store.Queue{
				Name: queue, State: store.Inclusion, Sender: sender, TxUID: uid,
				Deadline: uint64(it + 10), UpdatedAt: at,
			})
			bt.Senders = append(bt.Senders, store.Sender{
				ID: sender, Queue: queue, NextNonce: uint64(it + 1), UpdatedAt: at,
			})
			bt.History = append(bt.History, store.HistoryEntry{
				UID: uid, At: at, From: store.Waiting, To: store.Revision,
				Binding: store.Inclusion, Note: "sent",
			})
		}
		return bt
	}
	batches := make([]store.Batch, b.N)
	for i := range batches {
		batches[i] = batch(i)
	}
	b.ResetTimer()
	for i := range b.N {
		if err := s.Apply(ctx, batches[i]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkApplyDistseq measures ApplyDistseq of a batch shaped like a
// confirmed-and-dispatched distributed-sequencer transaction: one intent,
// one dispatch and two states, one call at a time, with durable commits
// (synchronous=FULL) and, for comparison, NORMAL. Each call commits alone
// (see distseq.go's write path).
//
//	go test ./internal/store/sqlite -run '^$' -bench ApplyDistseq -benchtime=2000x
func BenchmarkApplyDistseq(b *testing.B) {
	for _, sync := range []string{SyncFull, SyncNormal} {
		b.Run("sync="+sync, func(b *testing.B) {
			ctx := context.Background()
			s, err := Open(ctx, b.TempDir()+"/bench.db", Options{Synchronous: sync})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			payload := []byte(`{"inputs":["s-a","s-b"],"outputs":[{"owner":"node-b","amount":1000000}]}`)
			i := 0
			for b.Loop() {
				i++
				tx := fmt.Sprintf("tx-%d", i)
				at := time.Unix(0, int64(i))
				if err := s.ApplyDistseq(ctx, store.DistseqBatch{
					Intents: []store.DistseqIntent{{TxID: tx, Contract: "c1", IdempotencyKey: "key-" + tx,
						Payload: payload, Status: store.DistseqPending, Attempts: 1, CreatedAt: at, UpdatedAt: at}},
					Dispatches: []store.DistseqDispatch{{TxID: tx, Contract: "c1", Sender: "node-a",
						DelegationID: "del-" + tx, Payload: payload, Height: uint64(i), Status: store.DistseqDispatched,
						CreatedAt: at, UpdatedAt: at}},
					States: []store.DistseqState{
						{Contract: "c1", ID: tx + "-0", Data: payload, CreatedBy: tx, Height: uint64(i)},
						{Contract: "c1", ID: tx + "-1", Data: payload, CreatedBy: tx, Height: uint64(i)},
					},
				}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
		})
	}
}
