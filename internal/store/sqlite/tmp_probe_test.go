package sqlite

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

func TestProbeLatency(t *testing.T) {
	for _, sync := range []string{SyncFull, SyncNormal} {
		s := openIn(t, t.TempDir(), Options{Synchronous: sync})
		ctx := context.Background()
		var lat []time.Duration
		for i := range 2000 {
			st := time.Now()
			if _, err := s.Enqueue(ctx, []store.NewTransaction{{UID: fmt.Sprint(i), Queue: "q"}}); err != nil {
				t.Fatal(err)
			}
			lat = append(lat, time.Since(st))
		}
		var sum, mx time.Duration
		for _, l := range lat {
			sum += l
			mx = max(mx, l)
		}
		t.Logf("%s: avg %v max %v", sync, sum/time.Duration(len(lat)), mx)
		s.Close()
	}
}

func TestProbeParallel(t *testing.T) {
	for _, sync := range []string{SyncFull, SyncNormal} {
		for _, n := range []int{1, 2, 8, 64} {
			s := openIn(t, t.TempDir(), Options{Synchronous: sync})
			ctx := context.Background()
			start := time.Now()
			done := make(chan struct{})
			const per = 300
			for g := range n {
				go func() {
					for i := range per {
						if _, err := s.Enqueue(ctx, []store.NewTransaction{{UID: fmt.Sprint(g, "-", i), Queue: "q"}}); err != nil {
							panic(err)
						}
					}
					done <- struct{}{}
				}()
			}
			for range n {
				<-done
			}
			el := time.Since(start)
			t.Logf("%s n=%d: %.0f tx/s, %.1f tx/commit, %v/commit", sync, n, float64(n*per)/el.Seconds(), float64(n*per)/float64(s.commits.Load()), el/time.Duration(s.commits.Load()))
			s.Close()
		}
	}
}
