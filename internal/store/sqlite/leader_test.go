package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/storetest"
)

func TestLeaderConformance(t *testing.T) {
	storetest.RunLeader(t, func(t *testing.T, dir string) store.LeaderStore {
		return openIn(t, dir, Options{BusyTimeout: 10 * time.Second})
	})
}

// TestLeaderQueryPlans checks that the leader's reads use the indexes
// 0004 made for them, and never scan the table.
func TestLeaderQueryPlans(t *testing.T) {
	s := openIn(t, t.TempDir(), Options{})
	defer s.Close()
	for _, tc := range []struct {
		query, index string
	}{
		{liveEventsSQL, "leader_events_live"},
		{`SELECT ` + leaderEventCols + ` FROM leader_events WHERE status = 'Dead' AND id > 5 ORDER BY id LIMIT 10`, "leader_events_status"},
		{`SELECT status, COUNT(*) FROM leader_events GROUP BY status`, "leader_events_status"},
		{`SELECT ` + leaderEventCols + ` FROM leader_events WHERE walk = 'w'`, "sqlite_autoindex_leader_events_1"},
	} {
		rows, err := s.rdb.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+tc.query)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		joined := strings.Join(plan, "; ")
		if !strings.Contains(joined, tc.index) || strings.Contains(joined, "TEMP B-TREE") {
			t.Errorf("plan of %q: %s; want it to use %s without sorting", tc.query, joined, tc.index)
		}
	}
}

// BenchmarkApplyLeaderParallel measures ApplyLeader throughput with the
// leader driver's shape of write: one event record and its cursor per
// call, from 64 concurrent callers (-cpu 2), with durable commits
// (synchronous=FULL) and, for comparison, NORMAL. Calls share group commits.
//
//	go test ./internal/store/sqlite -run '^$' -bench ApplyLeaderParallel -cpu 2
func BenchmarkApplyLeaderParallel(b *testing.B) {
	ev := json.RawMessage(`{"walkId":"0x5f3a","tool":"summarize","args":{"url":"https://example.test/doc","maxTokens":512}}`)
	output := json.RawMessage(`{"summary":"a benchmark payload of a tool's output","tokens":128}`)
	statuses := []store.EventStatus{store.EventQueued, store.EventActive, store.EventActive, store.EventSuccessful}
	phases := []string{"", "invoke", "sent", ""}
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
					id := i/4 + 1
					at := time.Unix(0, i)
					// An event is written four times over its life: each
					// call moves one event of 1/4 of the ids on by one step.
					err := s.ApplyLeader(ctx, store.LeaderChanges{
						Events: []store.LeaderEvent{{
							ID: id, Walk: fmt.Sprintf("walk-%d", id), Tool: "summarize", Digest: "0xabc",
							JSON: ev, Height: uint64(id), Status: statuses[i%4], Phase: phases[i%4],
							OK: i%4 == 3, Output: output, Channel: int(id % 8), ResultUID: fmt.Sprintf("r-%d", id),
							ActiveAt: at, CreatedAt: at, UpdatedAt: at,
						}},
						Cursors: []store.Cursor{{Name: fmt.Sprintf("leader/events/%d", i%8), Value: uint64(i)}},
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
