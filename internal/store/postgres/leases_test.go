package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/storetest"
	"github.com/ordolabs/ordo/internal/testkit"
	"github.com/ordolabs/ordo/internal/testkit/pgtest"
)

func TestLeasesConformance(t *testing.T) {
	storetest.RunLeases(t, func(t *testing.T, dir string) storetest.Leased {
		return openIn(t, dir, Options{})
	}, storetest.WithBlocker(func(t *testing.T, dir string) func() { return block(t, dir) }))
}

// TestLeaseFenceAloneInGroup: a fenced Apply that shares its group commit
// with an Enqueue is refused alone (the group runs again without it) and
// the Enqueue commits, also when the group's transaction was begun by the
// last group's COMMIT.
func TestLeaseFenceAloneInGroup(t *testing.T) {
	dir := t.TempDir()
	s := openIn(t, dir, Options{})
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
	commits, reruns, chained := s.commits.Load(), s.reruns.Load(), s.chained.Load()
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
	if c, r := s.commits.Load()-commits, s.reruns.Load()-reruns; c != 2 || r != 1 {
		t.Fatalf("%d groups, %d reruns; want 2 groups (the fenced Apply shared the second), 1 rerun", c, r)
	}
	// The second group was begun with the first's COMMIT (both requests
	// were waiting); its rerun, after the ROLLBACK, on a connection of its
	// own.
	if c := s.chained.Load() - chained; c != 1 {
		t.Fatalf("%d groups begun with the last one's COMMIT, want 1", c)
	}
	for _, uid := range []string{"u", "a", "b"} {
		tx, err := s.Get(ctx, uid)
		if err != nil || tx.State != store.Waiting {
			t.Fatalf("Get(%s): %v, %v; want WAITING", uid, tx.State, err)
		}
	}
}

// TestWatchEnqueued: two stores on one database (two nodes); what one
// enqueues, the other's watcher hears, once per queue of a call.
func TestWatchEnqueued(t *testing.T) {
	dir := t.TempDir()
	s1, s2 := openIn(t, dir, Options{}), openIn(t, dir, Options{})
	defer s1.Close()
	defer s2.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	heard := make(chan string, 1024)
	done := make(chan error, 1)
	go func() { done <- s2.WatchEnqueued(ctx, func(q string) { heard <- q }) }()

	// The watcher LISTENs at some point: enqueue until it hears.
	deadline := time.After(10 * time.Second)
	for i := 0; ; i++ {
		if _, err := s1.Enqueue(ctx, []store.NewTransaction{{UID: fmt.Sprintf("p%d", i), Queue: "probe"}}); err != nil {
			t.Fatal(err)
		}
		select {
		case q := <-heard:
			if q != "probe" {
				t.Fatalf("heard %q, want probe", q)
			}
		case <-time.After(20 * time.Millisecond):
			continue
		case <-deadline:
			t.Fatal("the watcher heard nothing in 10s")
		}
		break
	}
	for len(heard) > 0 { // the probes sent before the first was heard
		<-heard
	}
	if _, err := s1.Enqueue(ctx, []store.NewTransaction{
		{UID: "x1", Queue: "qx"}, {UID: "y1", Queue: "qy"}, {UID: "x2", Queue: "qx"},
	}); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for len(got) < 2 {
		select {
		case q := <-heard:
			if q != "probe" {
				got[q]++
			}
		case <-deadline:
			t.Fatalf("heard %v in 10s, want qx and qy", got)
		}
	}
	if got["qx"] != 1 || got["qy"] != 1 {
		t.Fatalf("heard %v, want qx and qy once each", got)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("WatchEnqueued after cancel: %v, want context.Canceled", err)
	}
}

// TestLeaseQueryPlans: ActiveQueues seeks (state, queue, seq) over 100,000
// transactions in 1,000 queues (one in ten active), scanning no table.
func TestLeaseQueryPlans(t *testing.T) {
	dir := t.TempDir()
	s := openIn(t, dir, Options{})
	defer s.Close()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgtest.URLFor(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(ctx) }()
	if _, err := conn.Exec(ctx, `INSERT INTO transactions (uid, queue, type, state, created_at, updated_at)
		SELECT 'u' || g, 'q' || lpad((g % 1000)::text, 4, '0'), 't',
			CASE WHEN g % 1000 < 100 AND g > 99000 THEN 'WAITING' ELSE 'DONE' END, 0, 0
		FROM generate_series(1, 100000) AS g`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `ANALYZE transactions`); err != nil {
		t.Fatal(err)
	}
	qs, err := s.ActiveQueues(ctx, "", 0)
	if err != nil || len(qs) != 100 || qs[0] != "q0000" || qs[99] != "q0099" {
		t.Fatalf("ActiveQueues: %d queues (%v), %v; want q0000…q0099", len(qs), qs, err)
	}
	rows, err := conn.Query(ctx, `EXPLAIN `+activeQueuesSQL, "", int64(1000))
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	plan := strings.Join(lines, "\n")
	if strings.Contains(plan, "Seq Scan on transactions") || !strings.Contains(plan, "transactions_state_queue_seq") {
		t.Fatalf("ActiveQueues plan scans transactions or misses transactions_state_queue_seq:\n%s", plan)
	}
	t.Logf("plan:\n%s", plan)
}

// TestLeaseTakeoverWaitsForFencedWrite: a write whose fence passed holds
// its leases until it commits: the holder's renewal does not wait for it,
// and another holder's takeover after the expiry waits for its commit.
func TestLeaseTakeoverWaitsForFencedWrite(t *testing.T) {
	dir := t.TempDir()
	s := openIn(t, dir, Options{})
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ls, err := s.AcquireLeases(ctx, "n1", []string{"queue/a"}, 2*time.Second)
	if err != nil || len(ls) != 1 {
		t.Fatalf("AcquireLeases: %v, %v", ls, err)
	}
	conn, err := pgx.Connect(ctx, pgtest.URLFor(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(context.Background()) }()
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	if err := checkFence(ctx, tx, &store.Fence{Holder: "n1", Leases: map[string]int64{"queue/a": ls[0].Token}}); err != nil {
		t.Fatalf("checkFence of a held lease: %v", err)
	}
	// The holder's renewal does not wait for its own write.
	if r, err := s.RenewLeases(ctx, "n1", 100*time.Millisecond); err != nil || len(r) != 1 {
		t.Fatalf("RenewLeases while a fenced write is open: %v, %v", r, err)
	}
	testkit.WaitFor(t, 10*time.Second, time.Millisecond, "queue/a expired", func() bool {
		l, err := s.Leases(ctx, "queue/a")
		return err == nil && len(l) == 0
	})
	taken := make(chan []store.Lease, 1)
	go func() {
		l, err := s.AcquireLeases(ctx, "n2", []string{"queue/a"}, time.Minute)
		if err != nil {
			t.Errorf("AcquireLeases(n2): %v", err)
		}
		taken <- l
	}()
	testkit.WaitFor(t, 10*time.Second, time.Millisecond, "the takeover waits for a lock", func() bool {
		var n int
		err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n)
		return err == nil && n > 0
	})
	select {
	case l := <-taken:
		t.Fatalf("the takeover returned %v before the fenced write committed", l)
	default:
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	l := <-taken
	if len(l) != 1 || l[0].Holder != "n2" || l[0].Token <= ls[0].Token {
		t.Fatalf("takeover: %v, want n2's with a token above %d", l, ls[0].Token)
	}
}
