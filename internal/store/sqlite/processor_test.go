package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/storetest"
)

func TestProcessorConformance(t *testing.T) {
	storetest.RunProcessor(t, func(t *testing.T, dir string) store.ProcessorStore {
		return openIn(t, dir, Options{BusyTimeout: 10 * time.Second})
	})
}

// BenchmarkApplyProcessorParallel measures ApplyProcessor throughput with
// the processor driver's shape of write: one batch upsert and one callback
// per call, from 64 concurrent callers (-cpu 2), with durable commits
// (synchronous=FULL) and, for comparison, NORMAL. Calls share group commits.
//
//	go test ./internal/store/sqlite -run '^$' -bench ApplyProcessorParallel -cpu 2
func BenchmarkApplyProcessorParallel(b *testing.B) {
	body := json.RawMessage(`{"spec":{"messages":[{"to":"B62qexample","amount":1000000,"memo":"benchmark payload"}]},"progress":{"executionId":"0xabc","attempt":1}}`)
	outcome := json.RawMessage(`{"batchId":"b","success":true,"executionId":"0xabc"}`)
	states := []store.BatchState{store.BatchQueued, store.BatchExecuting, store.BatchPending, store.BatchDone}
	for _, sync := range []string{SyncFull, SyncNormal} {
		b.Run("sync="+sync, func(b *testing.B) {
			s, err := Open(context.Background(), b.TempDir()+"/bench.db", Options{Synchronous: sync})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			var next atomic.Int64
			b.SetParallelism(32)
			commits := s.commits.Load()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				ctx := context.Background()
				for pb.Next() {
					i := next.Add(1)
					p := fmt.Sprintf("proc-%d", i%8)
					at := time.Unix(0, i)
					// A batch is written four times over its life: each call
					// moves one batch of 1/4 of the ids on by one state.
					err := s.ApplyProcessor(ctx, store.ProcChanges{
						Batches: []store.ProcBatch{{
							Processor: p, ID: fmt.Sprintf("b-%d", i/4), Priority: "high",
							State: states[i%4], Key: i / 4, Body: body, CreatedAt: at, UpdatedAt: at,
						}},
						Callbacks: []store.Callback{{
							Processor: p, Seq: i, BatchID: fmt.Sprintf("b-%d", i/4),
							Key: fmt.Sprintf("%s/b-%d/%d", p, i/4, i), Body: outcome,
							State: store.CallbackPending, NextAt: at, CreatedAt: at,
						}},
					})
					if err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
			if c := s.commits.Load() - commits; c > 0 {
				b.ReportMetric(float64(b.N)/float64(c), "ops/commit")
			}
		})
	}
}
