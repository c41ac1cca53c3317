package sqlite

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/storetest"
)

func TestDistseqConformance(t *testing.T) {
	storetest.RunDistseq(t, func(t *testing.T) store.DistseqStore {
		s := openIn(t, t.TempDir(), Options{BusyTimeout: 10 * time.Second})
		t.Cleanup(func() { _ = s.Close() })
		return s
	})
}

// TestDistseqQueryPlans checks that the distributed sequencer's reads use
// the indexes 0005 made for them, and never scan a table.
func TestDistseqQueryPlans(t *testing.T) {
	s := openIn(t, t.TempDir(), Options{})
	defer s.Close()
	for _, tc := range []struct {
		query, index string
	}{
		{distseqGroupSQLRead, "PRIMARY KEY"},
		{distseqIntentByKey, "distseq_intents_key"},
		{distseqIntentsAll, "distseq_intents_created"},
		{distseqIntentsStatus, "distseq_intents_status"},
		{distseqIntentsContr, "distseq_intents_contract"},
		{distseqIntentsBoth, "distseq_intents_contract"},
		{distseqOpenSQL, "distseq_dispatches_open"},
		{distseqPendingSQL, "distseq_outbox_pending"},
		{distseqStatesSQL, "distseq_states_height"},
		{distseqUnspentSQL, "distseq_states_unspent"},
	} {
		rows, err := s.rdb.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+tc.query,
			make([]any, strings.Count(tc.query, "?"))...)
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
		all := strings.Join(plan, "; ")
		scan := false
		for _, p := range plan {
			scan = scan || strings.HasPrefix(p, "SCAN") && !strings.Contains(p, "USING")
		}
		if !strings.Contains(all, tc.index) || scan {
			t.Errorf("%s\nplan: %s\nwant index %s", tc.query, all, tc.index)
		}
	}
}
