package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit/pgtest"
)

// BenchmarkEnqueueParallel measures Enqueue throughput with one transaction
// per call from many concurrent callers (the HTTP API's shape: 64 clients),
// with durable commits (synchronous_commit=on, fsync=on), as SQLite's
// benchmark of the same name.
//
//	go test ./internal/store/postgres -run '^$' -bench EnqueueParallel -cpu 2
func BenchmarkEnqueueParallel(b *testing.B) {
	s, err := Open(context.Background(), pgtest.URL(b), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	data := json.RawMessage(`{"to":"B62qexample","amount":1000000,"memo":"benchmark payload"}`)
	var next atomic.Int64
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
}

// BenchmarkEnqueueBatch measures one caller enqueueing 100 transactions per
// call (the array form of the intake), durable commits.
//
//	go test ./internal/store/postgres -run '^$' -bench EnqueueBatch
func BenchmarkEnqueueBatch(b *testing.B) {
	const per = 100
	s, err := Open(context.Background(), pgtest.URL(b), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	data := json.RawMessage(`{"to":"B62qexample","amount":1000000,"memo":"benchmark payload"}`)
	ctx := context.Background()
	n := 0
	for b.Loop() {
		txs := make([]store.NewTransaction, per)
		for i := range txs {
			n++
			txs[i] = store.NewTransaction{UID: fmt.Sprintf("tx-%d", n), Queue: fmt.Sprintf("queue-%d", n%64),
				Type: "SEND_CLAIM_VOTE", Data: data, IdempotencyKey: fmt.Sprintf("key-%d", n), At: time.Unix(0, int64(n))}
		}
		if _, err := s.Enqueue(ctx, txs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*per)/b.Elapsed().Seconds(), "tx/s")
}

// BenchmarkApplyBatch measures one Apply of a batch shaped like the
// sequencer's: 500 transaction updates each with an attempt, 500 queue
// bindings, 500 senders and 500 history entries, as SQLite's benchmark of
// the same name (but with durable commits: PostgreSQL's are not lowered
// here).
//
//	go test ./internal/store/postgres -run '^$' -bench ApplyBatch -benchtime=50x
func BenchmarkApplyBatch(b *testing.B) {
	const n = 500
	ctx := context.Background()
	s, err := Open(ctx, pgtest.URL(b), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	data := json.RawMessage(`{"to":"B62qexample","amount":1000000,"memo":"benchmark payload"}`)
	txs := make([]store.NewTransaction, n)
	for i := range txs {
		txs[i] = store.NewTransaction{UID: fmt.Sprintf("tx-%d", i), Queue: fmt.Sprintf("queue-%d", i),
			Type: "SEND_CLAIM_VOTE", Data: data, At: time.Unix(1, int64(i))}
	}
	if _, err := s.Enqueue(ctx, txs); err != nil {
		b.Fatal(err)
	}
	batch := func(it int) store.Batch {
		at := time.Unix(100+int64(it), 0)
		var bt store.Batch
		for i := range n {
			uid, queue, sender := fmt.Sprintf("tx-%d", i), fmt.Sprintf("queue-%d", i), fmt.Sprintf("B62qsender%d", i)
			bt.Txs = append(bt.Txs, store.TxUpdate{
				UID: uid, State: store.Revision, Retries: it,
				Attempt: &store.Attempt{N: 1 + it%4, Sender: sender, Nonce: uint64(it), Fee: 1e8,
					Hash: fmt.Sprintf("5Ju%d-%d", i, it), At: at, Outcome: "sent"},
				At: at,
			})
			bt.Queues = append(bt.Queues, store.Queue{Name: queue, State: store.Inclusion, Sender: sender, TxUID: uid,
				Deadline: uint64(it + 10), UpdatedAt: at})
			bt.Senders = append(bt.Senders, store.Sender{ID: sender, Queue: queue, NextNonce: uint64(it + 1), UpdatedAt: at})
			bt.History = append(bt.History, store.HistoryEntry{UID: uid, At: at, From: store.Waiting, To: store.Revision,
				Binding: store.Inclusion, Note: "sent"})
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

// BenchmarkCountByState measures CountByState on 100,000 intents: the
// store's part of each sample of GET /v1/stats/history (issue 29).
//
//	go test ./internal/store/postgres -run '^$' -bench CountByState -benchtime=20x
func BenchmarkCountByState(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, pgtest.URL(b), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for lo := 0; lo < 100_000; lo += 1000 {
		txs := make([]store.NewTransaction, 1000)
		for i := range txs {
			txs[i] = store.NewTransaction{UID: fmt.Sprintf("tx-%d", lo+i), Queue: fmt.Sprintf("queue-%d", (lo+i)%1000),
				Type: "SEND_CLAIM_VOTE", Data: json.RawMessage(`{}`), At: time.Unix(1, int64(lo+i))}
		}
		if _, err := s.Enqueue(ctx, txs); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.CountByState(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
