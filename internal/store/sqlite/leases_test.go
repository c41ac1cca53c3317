package sqlite

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/storetest"
	"github.com/ordolabs/ordo/internal/testkit"
)

func TestLeasesConformance(t *testing.T) {
	storetest.RunLeases(t, func(t *testing.T, dir string) storetest.Leased {
		return openIn(t, dir, Options{BusyTimeout: 10 * time.Second})
	}, storetest.WithBlocker(func(t *testing.T, dir string) func() { return block(t, dir) }))
}

// TestLeaseFenceAloneInGroup: a fenced Apply that shares its group commit
// with an Enqueue is refused alone (it wrote nothing: no rerun) and the
// Enqueue commits.
func TestLeaseFenceAloneInGroup(t *testing.T) {
	dir := t.TempDir()
	s := openIn(t, dir, Options{BusyTimeout: 10 * time.Second})
	defer s.Close()
	ctx := context.Background()
	if _, err := s.Enqueue(ctx, []store.NewTransaction{{UID: "u", Queue: "q"}}); err != nil {
		t.Fatal(err)
	}
	ls, err := s.AcquireLeases(ctx, "n1", []string{"queue/q"}, time.Minute)
	if err != nil || len(ls) != 1 {
		t.Fatalf("AcquireLeases: %v, %v", ls, err)
	}
	release := block(t, dir)
	defer release()
	commits, reruns := s.commits.Load(), s.reruns.Load()
	first := make(chan error, 1)
	go func() {
		_, err := s.Enqueue(ctx, []store.NewTransaction{{UID: "a", Queue: "qa"}})
		first <- err
	}()
	testkit.WaitFor(t, 10*time.Second, time.Millisecond, "the first group started", func() bool { return s.commits.Load() == commits+1 })
	fenced, enq := make(chan error, 1), make(chan error, 1)
	go func() {
		fenced <- s.Apply(ctx, store.Batch{
			Txs:   []store.TxUpdate{{UID: "u", State: store.Revision}},
			Fence: &store.Fence{Holder: "n1", Leases: map[string]int64{"queue/q": ls[0].Token + 1}},
		})
	}()
	go func() {
		_, err := s.Enqueue(ctx, []store.NewTransaction{{UID: "b", Queue: "qb"}})
		enq <- err
	}()
	testkit.WaitFor(t, 10*time.Second, time.Millisecond, "both requests queued", func() bool { return s.q.Waiting() == 2 })
	release()
	if err := <-first; err != nil {
		t.Fatalf("first Enqueue: %v", err)
	}
	if err := <-fenced; !errors.Is(err, store.ErrFenced) {
		t.Fatalf("fenced Apply: %v, want ErrFenced", err)
	}
	if err := <-enq; err != nil {
		t.Fatalf("Enqueue in the fenced Apply's group: %v", err)
	}
	if c, r := s.commits.Load()-commits, s.reruns.Load()-reruns; c != 2 || r != 0 {
		t.Fatalf("%d groups, %d reruns; want 2 groups (the fenced Apply shared the second), no rerun", c, r)
	}
	for uid, want := range map[string]store.TxState{"u": store.Waiting, "a": store.Waiting, "b": store.Waiting} {
		tx, err := s.Get(ctx, uid)
		if err != nil || tx.State != want {
			t.Fatalf("Get(%s): %v, %v; want %s", uid, tx.State, err, want)
		}
	}
}

// TestLeaseQueryPlans: ActiveQueues seeks (state, queue, seq) and the
// lease reads use their indexes; none scans a table.
func TestLeaseQueryPlans(t *testing.T) {
	s := openIn(t, t.TempDir(), Options{})
	defer s.Close()
	for _, tc := range []struct {
		query string
		args  []any
		want  []string
	}{
		{activeQueuesSQL, []any{"", 10}, []string{"transactions_state_queue_seq"}},
		{`SELECT COALESCE(MAX(token), 0) FROM leases`, nil, []string{"leases_token"}},
		{`UPDATE leases SET expires_at = 0 WHERE holder = ?1 AND expires_at > 0`, []any{"n"}, []string{"leases_holder"}},
	} {
		rows, err := s.rdb.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+tc.query, tc.args...)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		_ = rows.Close()
		p := strings.Join(plan, "; ")
		for _, w := range tc.want {
			if !strings.Contains(p, w) {
				t.Errorf("%s:\n plan %q, want %s", tc.query, p, w)
			}
		}
		if strings.Contains(p, "SCAN transactions") || strings.Contains(p, "SCAN leases") && !strings.Contains(p, "USING") {
			t.Errorf("%s:\n plan %q scans a table", tc.query, p)
		}
	}
}
