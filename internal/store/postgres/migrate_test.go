package postgres

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit/pgtest"
)

// TestMigrations: several stores opening one empty database at once apply
// each migration once; reopening applies nothing; a database whose schema
// is newer than the binary is refused.
func TestMigrations(t *testing.T) {
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) == 0 || ms[0].version != 1 {
		t.Fatalf("migrations: %+v", ms)
	}
	// Versions rise; a gap is allowed, as numbers are handed out to
	// changes made side by side (issue 24: 0013 and 0014 to others, 0015
	// to retention), and migrate applies each version not yet applied,
	// whatever its neighbours.
	for i := 1; i < len(ms); i++ {
		if ms[i].version <= ms[i-1].version {
			t.Fatalf("migration %s follows %s: versions must rise", ms[i].name, ms[i-1].name)
		}
	}
	url := pgtest.URL(t)
	ctx := context.Background()
	const nodes = 5
	var wg sync.WaitGroup
	errs := make([]error, nodes)
	for i := range nodes {
		wg.Go(func() {
			s, err := Open(ctx, url, Options{MaxConns: 2})
			if err == nil {
				err = s.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Open %d: %v", i, err)
		}
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, tc := range []struct {
		name, sql string
		want      int
	}{
		{"rows", `SELECT count(*) FROM schema_migrations`, len(ms)},
		{"versions", `SELECT count(DISTINCT version) FROM schema_migrations`, len(ms)},
		{"tables", `SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename IN
			('transactions', 'attempts', 'queues', 'senders', 'jobs', 'processors', 'leader_events', 'distseq_intents')`, 8},
	} {
		var n int
		if err := conn.QueryRow(ctx, tc.sql).Scan(&n); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if n != tc.want {
			t.Fatalf("%s: %d, want %d", tc.name, n, tc.want)
		}
	}

	s, err := Open(ctx, url, Options{})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	_ = s.Close()

	if _, err := conn.Exec(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, 'future', 0)`); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, url, Options{}); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("Open of a newer schema: err = %v, want refused", err)
	}
}

// TestMigrationHistoryInline: the history rows a database held before
// migration 0012 are its transactions' history after it, in order, with
// their times, bindings and notes.
func TestMigrationHistoryInline(t *testing.T) {
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	url := pgtest.URL(t)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	now := func() time.Time { return time.Unix(0, 1) }
	if err := migrateTo(ctx, conn, now, ms[:11]); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO transactions (uid, queue, type, state, created_at, updated_at) VALUES
			('a', 'q', 'k', 'DONE', 100, 300), ('b', 'q', 'k', 'WAITING', 150, 150)`,
		`INSERT INTO history (uid, at, from_state, to_state, binding, note) VALUES
			('a', 200, 'WAITING', 'REVISION', 'INCLUSION', 'sent "x"'),
			('a', 300, 'REVISION', 'DONE', '', '')`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Open(ctx, url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tc := range []struct {
		uid  string
		want []store.HistoryEntry
	}{
		{"a", []store.HistoryEntry{
			{UID: "a", At: time.Unix(0, 100).UTC(), To: store.Waiting, Note: "enqueued"},
			{UID: "a", At: time.Unix(0, 200).UTC(), From: store.Waiting, To: store.Revision, Binding: store.Inclusion, Note: `sent "x"`},
			{UID: "a", At: time.Unix(0, 300).UTC(), From: store.Revision, To: store.Done},
		}},
		{"b", []store.HistoryEntry{{UID: "b", At: time.Unix(0, 150).UTC(), To: store.Waiting, Note: "enqueued"}}},
	} {
		got, err := s.History(ctx, tc.uid)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Fatalf("history of %s:\n got %+v\nwant %+v", tc.uid, got, tc.want)
		}
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename = 'history'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("history table after 0012: %d (%v)", n, err)
	}
}

// TestMigrationIdempotencyPrincipal: after migration 0014 the keys a
// database held are found again by the principal that submits them now:
// an engine's, by the queue it submits to, and "" for every other; a key
// of before is another principal's new transaction.
func TestMigrationIdempotencyPrincipal(t *testing.T) {
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	before := 0
	for before < len(ms) && ms[before].version < 14 {
		before++
	}
	ctx := context.Background()
	url := pgtest.URL(t)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	now := func() time.Time { return time.Unix(0, 1) }
	if err := migrateTo(ctx, conn, now, ms[:before]); err != nil {
		t.Fatal(err)
	}
	rows := []struct{ uid, queue, principal string }{
		{"l", "leader/0", "engine:leader"},
		{"p", "processor/p1/1", "engine:processor"},
		{"d", "distseq/c1", "engine:distseq"},
		{"n", "nodes/n1", "engine:distseq"},
		{"s", "smm/replicasets", "engine:smm"},
		{"u", "payments", ""},
		{"v", "leaderboard", ""},
	}
	for _, r := range rows {
		if _, err := conn.Exec(ctx, `INSERT INTO transactions (uid, queue, type, state, idempotency_key, created_at, updated_at)
			VALUES ($1, $2, 'call', 'WAITING', 'key-' || $1, 1, 1)`, r.uid, r.queue); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Open(ctx, url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i, r := range rows {
		for _, p := range []string{r.principal, "alice"} {
			uid := fmt.Sprintf("new-%d-%s", i, p)
			res, err := s.Enqueue(ctx, []store.NewTransaction{{UID: uid, Queue: r.queue, Type: "call", Principal: p,
				IdempotencyKey: "key-" + r.uid, At: time.Unix(0, 2)}})
			if err != nil {
				t.Fatal(err)
			}
			if found := p == r.principal; res[0].Created == found || (found && res[0].Transaction.UID != r.uid) {
				t.Fatalf("queue %s, key of %s, principal %q: created %v, uid %s; want the record %s found: %v",
					r.queue, r.uid, p, res[0].Created, res[0].Transaction.UID, r.uid, found)
			}
		}
	}
}
