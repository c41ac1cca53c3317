package pgtest

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

func TestURL(t *testing.T) {
	for _, tc := range []struct {
		name string
		url  func(t *testing.T) string
	}{
		{"URL", func(t *testing.T) string { return URL(t) }},
		{"URLFor", func(t *testing.T) string { return URLFor(t, t.TempDir()) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := tc.url(t)
			ctx := context.Background()
			conn, err := pgx.Connect(ctx, u)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			var n int
			if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = 'public'`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != 0 {
				t.Fatalf("fresh database has %d tables", n)
			}
			if os.Getenv(EnvURL) == "" { // the throwaway cluster: not durable
				var fsync string
				if err := conn.QueryRow(ctx, `SHOW fsync`).Scan(&fsync); err != nil || fsync != "off" {
					t.Fatalf("fsync = %q (%v), want off", fsync, err)
				}
			}
		})
	}
}

func TestURLForSameKey(t *testing.T) {
	dir := t.TempDir()
	a, b := URLFor(t, dir), URLFor(t, dir)
	if a != b {
		t.Fatalf("URLFor(%s) = %s then %s", dir, a, b)
	}
	if c := URLFor(t, t.TempDir()); c == a {
		t.Fatalf("two keys share %s", c)
	}
}
