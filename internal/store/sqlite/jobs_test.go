package sqlite

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/storetest"
)

func TestJobsConformance(t *testing.T) {
	storetest.RunJobs(t, func(t *testing.T) store.JobStore {
		return openIn(t, t.TempDir(), Options{BusyTimeout: 10 * time.Second})
	})
}

// TestJobsQueryPlans checks that the job reads use the indexes 0007 made
// for them, and never scan the table.
func TestJobsQueryPlans(t *testing.T) {
	s := openIn(t, t.TempDir(), Options{})
	defer s.Close()
	for _, tc := range []struct {
		query string
		args  []any
		index string
	}{
		{jobDueSQL, []any{"q", 5, 10}, "jobs_due"},
		{jobLiveSQL, nil, "jobs_live"},
		{jobLiveByKeySQL, []any{"k"}, "jobs_unique_live"},
		{jobLastByKeySQL, []any{"k"}, "jobs_unique_key"},
		{jobCountsSQL, nil, "jobs_queue_state"},
		{jobListQueueState, []any{"q", "dead", "", "", 0, 10}, "jobs_queue_state"},
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
		if !strings.Contains(p, tc.index) || strings.Contains(p, "SCAN jobs") && !strings.Contains(p, "USING") {
			t.Errorf("%s:\n plan %q, want index %s", tc.query, p, tc.index)
		}
	}
}
