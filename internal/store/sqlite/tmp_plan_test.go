package sqlite

import (
	"context"
	"testing"
)

func TestProbePlans(t *testing.T) {
	s := openIn(t, t.TempDir(), Options{})
	defer s.Close()
	for _, q := range []string{listQueueSQL(), queuesSQL(),
		`SELECT state, COUNT(*) FROM transactions WHERE state IN ('DONE', 'FAILED', 'RETRY', 'REVISION', 'WAITING') AND queue = ? GROUP BY state`,
		`WITH RECURSIVE w(name) AS (
				SELECT MIN(queue) FROM transactions WHERE state = 'WAITING'
				UNION ALL
				SELECT (SELECT MIN(queue) FROM transactions WHERE state = 'WAITING' AND queue > w.name)
				FROM w WHERE w.name IS NOT NULL
			)
			SELECT name FROM w WHERE name IS NOT NULL`,
		`SELECT * FROM transactions WHERE state IN ('REVISION', 'RETRY') ORDER BY seq`,
		`SELECT * FROM transactions WHERE state = ? AND seq > ? ORDER BY seq LIMIT 5`,
		`SELECT * FROM transactions WHERE state = 'WAITING' AND queue = ? AND seq > ? ORDER BY seq LIMIT 5`,
	} {
		rows, err := s.rdb.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+q, "q", 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		t.Log("----")
		for rows.Next() {
			var a, b, c int
			var d string
			rows.Scan(&a, &b, &c, &d)
			t.Log(a, b, d)
		}
		rows.Close()
	}
}
