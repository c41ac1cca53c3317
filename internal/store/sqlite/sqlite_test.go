package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/storetest"
)

const dbFile = "ordo.db"

func openIn(t testing.TB, dir string, opts Options) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(dir, dbFile), opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
}

// block holds the database's write lock from a second connection, as another
// process would, until release is called.
func block(t testing.TB, dir string) (release func()) {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, dbFile)+"?_busy_timeout=10000")
	if err != nil {
		t.Fatalf("blocker: %v", err)
	}
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatalf("blocker: %v", err)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatalf("blocker: %v", err)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
				t.Errorf("blocker: rollback: %v", err)
			}
			conn.Close()
			db.Close()
		})
	}
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T, dir string) store.Store {
		return openIn(t, dir, Options{BusyTimeout: 10 * time.Second})
	}, storetest.WithBlocker(func(t *testing.T, dir string) func() { return block(t, dir) }))
}

func TestPragmasAndMigrations(t *testing.T) {
	dir := t.TempDir()
	for i := range 3 {
		s := openIn(t, dir, Options{})
		ctx := context.Background()
		var mode string
		var sync, fk, busy int
		c := s.wconn
		for _, q := range []struct {
			sql  string
			dest any
		}{
			{"PRAGMA journal_mode", &mode},
			{"PRAGMA synchronous", &sync},
			{"PRAGMA foreign_keys", &fk},
			{"PRAGMA busy_timeout", &busy},
		} {
			if err := c.QueryRowContext(ctx, q.sql).Scan(q.dest); err != nil {
				t.Fatalf("%s: %v", q.sql, err)
			}
		}
		if mode != "wal" || sync != 2 || fk != 1 || busy != 5000 {
			t.Fatalf("writer pragmas: journal_mode=%s synchronous=%d foreign_keys=%d busy_timeout=%d; want wal 2 1 5000",
				mode, sync, fk, busy)
		}
		ms, err := loadMigrations()
		if err != nil {
			t.Fatal(err)
		}
		rows, err := s.rdb.QueryContext(ctx, "SELECT version, name FROM schema_migrations ORDER BY version")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for rows.Next() {
			var v int
			var name string
			if err := rows.Scan(&v, &name); err != nil {
				t.Fatal(err)
			}
			got = append(got, fmt.Sprintf("%d:%s", v, name))
		}
		rows.Close()
		var want []string
		for _, m := range ms {
			want = append(want, fmt.Sprintf("%d:%s", m.version, m.name))
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("open %d: schema_migrations %v, want %v", i, got, want)
		}
		// The read pool refuses writes.
		if _, err := s.rdb.ExecContext(ctx, "DELETE FROM senders"); err == nil {
			t.Fatal("a write through the read pool succeeded")
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
	}
}

func TestRefusesNewerSchema(t *testing.T) {
	dir := t.TempDir()
	s := openIn(t, dir, Options{})
	if _, err := s.wconn.ExecContext(context.Background(),
		"INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, '9999_future.sql', 0)"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), filepath.Join(dir, dbFile), Options{}); err == nil {
		t.Fatal("Open of a database with a newer schema succeeded")
	}
}

func TestOptions(t *testing.T) {
	for _, o := range []Options{{Synchronous: "OFF"}, {BusyTimeout: -1}} {
		if _, err := Open(context.Background(), filepath.Join(t.TempDir(), dbFile), o); err == nil {
			t.Fatalf("Open with %+v succeeded", o)
		}
	}
	if _, err := Open(context.Background(), "file:x.db?mode=memory", Options{}); err == nil {
		t.Fatal("Open of a URI succeeded")
	}
	s := openIn(t, t.TempDir(), Options{Synchronous: "normal"})
	defer s.Close()
	var sync int
	if err := s.wconn.QueryRowContext(context.Background(), "PRAGMA synchronous").Scan(&sync); err != nil || sync != 1 {
		t.Fatalf("synchronous = %d, %v; want 1 (NORMAL)", sync, err)
	}
}

// queued waits until n requests sit in the committer's channel.
func queued(t *testing.T, s *Store, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for s.q.Waiting() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d requests queued, want %d", s.q.Waiting(), n)
		}
		runtime.Gosched()
	}
}

// stall makes the committer wait on an external write lock with one request
// in hand, so that the requests made next queue up behind it. It returns the
// commits count after that first request and a function that releases the
// lock and waits for the first request.
func stall(t *testing.T, s *Store, dir string) (base int64, release func()) {
	t.Helper()
	unlock := block(t, dir)
	before := s.commits.Load()
	errc := make(chan error, 1)
	go func() {
		_, err := s.Enqueue(context.Background(), []store.NewTransaction{{UID: "stall", Queue: "stall", At: time.Unix(1, 0)}})
		errc <- err
	}()
	// The committer has taken the request once commits moves.
	deadline := time.Now().Add(10 * time.Second)
	for s.commits.Load() == before {
		if time.Now().After(deadline) {
			t.Fatal("committer did not take the stalling request")
		}
		runtime.Gosched()
	}
	return before + 1, func() {
		unlock()
		if err := <-errc; err != nil {
			t.Fatalf("stalling request: %v", err)
		}
	}
}

func TestGroupCommit(t *testing.T) {
	dir := t.TempDir()
	s := openIn(t, dir, Options{MaxGroup: 10})
	defer s.Close()
	ctx := context.Background()
	existing, err := s.Enqueue(ctx, []store.NewTransaction{{UID: "old", Queue: "q"}})
	if err != nil {
		t.Fatal(err)
	}

	base, release := stall(t, s, dir)
	type result struct {
		i   int
		res []store.EnqueueResult
		err error
	}
	results := make(chan result, 32)
	// 8 single Enqueues over 3 keys, one refused (uid taken), one Apply
	// refused (unknown uid): one group of 10 records.
	for i := range 8 {
		uid := fmt.Sprintf("u%d", i)
		if i == 5 {
			uid = "old"
		}
		nt := store.NewTransaction{UID: uid, Queue: "q", IdempotencyKey: fmt.Sprintf("k%d", i%3)}
		if i == 5 {
			nt.IdempotencyKey = ""
		}
		go func() {
			res, err := s.Enqueue(ctx, []store.NewTransaction{nt})
			results <- result{i, res, err}
		}()
		queued(t, s, i+1)
	}
	go func() {
		err := s.Apply(ctx, store.Batch{Txs: []store.TxUpdate{{UID: "ghost", State: store.Done}}})
		results <- result{8, nil, err}
	}()
	queued(t, s, 9)
	go func() {
		err := s.Apply(ctx, store.Batch{Txs: []store.TxUpdate{{UID: existing[0].Transaction.UID, State: store.Done}}})
		results <- result{9, nil, err}
	}()
	queued(t, s, 10)
	// One more request: it does not fit in the group of 10.
	go func() {
		res, err := s.Enqueue(ctx, []store.NewTransaction{{UID: "next", Queue: "q"}})
		results <- result{10, res, err}
	}()
	queued(t, s, 11)
	release()

	uidOfKey := map[string]string{}
	for range 11 {
		r := <-results
		switch r.i {
		case 5:
			if r.err == nil {
				t.Fatal("Enqueue of a taken uid succeeded")
			}
		case 8:
			if !errors.Is(r.err, store.ErrNotFound) {
				t.Fatalf("Apply of an unknown uid: %v", r.err)
			}
		case 9:
			if r.err != nil {
				t.Fatalf("Apply: %v", r.err)
			}
		case 10:
			if r.err != nil {
				t.Fatalf("Enqueue after the group: %v", r.err)
			}
		default:
			if r.err != nil {
				t.Fatalf("Enqueue %d: %v", r.i, r.err)
			}
			tx := r.res[0].Transaction
			key := fmt.Sprintf("k%d", r.i%3)
			if u, ok := uidOfKey[key]; ok && u != tx.UID {
				t.Fatalf("key %s: uids %s and %s", key, u, tx.UID)
			}
			uidOfKey[key] = tx.UID
			// Requests are served in order: the first of each key creates.
			if want := r.i < 3; r.res[0].Created != want || tx.UID != fmt.Sprintf("u%d", r.i%3) {
				t.Fatalf("Enqueue %d: Created %v uid %s", r.i, r.res[0].Created, tx.UID)
			}
		}
	}
	if got := s.commits.Load() - base; got != 2 {
		t.Fatalf("%d groups after the stall, want 2 (a group of 10, then 1)", got)
	}
	if got := s.reruns.Load(); got != 2 {
		t.Fatalf("%d reruns, want 2 (one per refused request)", got)
	}
	all, err := s.List(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	// old, stall, u0, u1, u2, next
	if len(all) != 6 {
		t.Fatalf("%d records, want 6", len(all))
	}
	if tx, _ := s.Get(ctx, "old"); tx.State != store.Done {
		t.Fatalf("old: %s, want DONE", tx.State)
	}
}

func TestCancelledWhileQueued(t *testing.T) {
	dir := t.TempDir()
	s := openIn(t, dir, Options{})
	defer s.Close()
	_, release := stall(t, s, dir)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := s.Enqueue(ctx, []store.NewTransaction{{UID: "dropped", Queue: "q"}})
		errc <- err
	}()
	queued(t, s, 1)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Enqueue: %v, want context.Canceled", err)
	}
	release()
	// Its group starts after its ctx ended: it is dropped.
	if _, err := s.Enqueue(context.Background(), []store.NewTransaction{{UID: "after", Queue: "q"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(context.Background(), "dropped"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get(dropped): %v, want ErrNotFound", err)
	}
}
