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
