package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

// TestMigrationIdempotencyPrincipal: after migration 0014 the keys a
// database held are found again by the principal that submits them now:
// an engine's, by the queue it submits to, and "" for every other; a key
// of before is another principal's new transaction.
func TestMigrationIdempotencyPrincipal(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := sql.Open("sqlite", filepath.Join(dir, dbFile))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, `CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	now := func() time.Time { return time.Unix(0, 1) }
	for _, m := range ms {
		if m.version < 14 {
			if err := applyMigration(ctx, conn, m, now); err != nil {
				t.Fatalf("%s: %v", m.name, err)
			}
		}
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
		if _, err := conn.ExecContext(ctx, `INSERT INTO transactions (uid, queue, type, state, idempotency_key, created_at, updated_at)
			VALUES (?, ?, 'call', 'WAITING', 'key-' || ?, 1, 1)`, r.uid, r.queue, r.uid); err != nil {
			t.Fatal(err)
		}
	}
	_ = conn.Close()
	_ = db.Close()
	s := openIn(t, dir, Options{})
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
