package sqlite

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

// TestApplyChunks checks Apply across the multi-row statements' chunk
// boundaries: a key written twice keeps its last value, history keeps batch
// order, and a refused row anywhere fails the whole batch with its own
// error.
func TestApplyChunks(t *testing.T) {
	ctx := context.Background()
	var clock int64
	s := openIn(t, t.TempDir(), Options{Now: func() time.Time {
		clock++
		return time.Unix(1000, clock)
	}})
	defer s.Close()
	const n = 3*maxChunk + 7
	uid := func(i int) string { return fmt.Sprintf("tx-%d", i) }
	var txs []store.NewTransaction
	for i := range n {
		txs = append(txs, store.NewTransaction{UID: uid(i), Queue: fmt.Sprintf("q-%d", i), Type: "T", At: time.Unix(1, 0)})
	}
	if _, err := s.Enqueue(ctx, txs); err != nil {
		t.Fatal(err)
	}

	base := clock // Open reads the clock too
	var b store.Batch
	for i := range n {
		b.Txs = append(b.Txs, store.TxUpdate{UID: uid(i), State: store.Retry, Retries: 1,
			Attempt: &store.Attempt{N: 1, Hash: "first"}})
		b.Queues = append(b.Queues, store.Queue{Name: fmt.Sprintf("q-%d", i), State: store.Inclusion, TxUID: uid(i)})
		b.Senders = append(b.Senders, store.Sender{ID: fmt.Sprintf("s-%d", i), NextNonce: 1})
		b.History = append(b.History, store.HistoryEntry{UID: uid(i % 3), To: store.Retry, Note: fmt.Sprint(i)})
	}
	// Second writes of keys from the first chunk, late in the batch.
	b.Txs = append(b.Txs,
		store.TxUpdate{UID: uid(0), State: store.Done, Retries: 2, Result: []byte(`{"ok":true}`),
			Attempt: &store.Attempt{N: 1, Hash: "second"}},
		store.TxUpdate{UID: uid(1), State: store.Failed, Error: "boom", At: time.Unix(5, 0),
			Attempt: &store.Attempt{N: 2, Hash: "other"}})
	b.Queues = append(b.Queues, store.Queue{Name: "q-0", State: store.Delay, DelayUntil: time.Unix(9, 0)})
	b.Senders = append(b.Senders, store.Sender{ID: "s-0", NextNonce: 42})
	if err := s.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}

	t0, err := s.Get(ctx, uid(0))
	if err != nil {
		t.Fatal(err)
	}
	if t0.State != store.Done || t0.Retries != 2 || string(t0.Result) != `{"ok":true}` ||
		len(t0.Attempts) != 1 || t0.Attempts[0].Hash != "second" {
		t.Errorf("tx-0 = %+v, want the last update", t0)
	}
	// The clock is read once per update without At, in batch order: tx-0's
	// last update is the (n+1)th.
	if want := time.Unix(1000, base+n+1).UTC(); !t0.UpdatedAt.Equal(want) {
		t.Errorf("tx-0 updated at %v, want %v", t0.UpdatedAt, want)
	}
	t1, _ := s.Get(ctx, uid(1))
	if t1.State != store.Failed || t1.Error != "boom" || !t1.UpdatedAt.Equal(time.Unix(5, 0)) ||
		len(t1.Attempts) != 2 || t1.Attempts[0].Hash != "first" || t1.Attempts[1].Hash != "other" {
		t.Errorf("tx-1 = %+v, want the last update and both attempts", t1)
	}
	last, _ := s.Get(ctx, uid(n-1))
	if last.State != store.Retry || last.Retries != 1 || len(last.Attempts) != 1 {
		t.Errorf("tx-%d = %+v", n-1, last)
	}
	qs, err := s.Queues(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		if q.Name == "q-0" && (q.State != store.Delay || q.TxUID != "") {
			t.Errorf("q-0 = %+v, want the last upsert", q)
		}
	}
	sds, _ := s.Senders(ctx)
	if len(sds) != n {
		t.Errorf("%d senders, want %d", len(sds), n)
	}
	for _, sd := range sds {
		if want := uint64(1); sd.ID == "s-0" {
			if sd.NextNonce != 42 {
				t.Errorf("s-0 = %+v, want the last upsert", sd)
			}
		} else if sd.NextNonce != want {
			t.Errorf("%s = %+v", sd.ID, sd)
		}
	}
	h, err := s.History(ctx, uid(2))
	if err != nil {
		t.Fatal(err)
	}
	if len(h) > 0 && h[0].Note == "enqueued" {
		h = h[1:]
	}
	for i, e := range h {
		if want := fmt.Sprint(3*i + 2); e.Note != want {
			t.Fatalf("history of tx-2: entry %d is %q, want %q (batch order)", i, e.Note, want)
		}
	}
	if len(h) != (n+1)/3 {
		t.Errorf("history of tx-2: %d entries, want %d", len(h), (n+1)/3)
	}

	// A refused row anywhere fails the batch, with the row's own error.
	for _, c := range []struct {
		name, want string
		edit       func(b *store.Batch)
	}{
		{"unknown tx", "tx nope", func(b *store.Batch) { b.Txs[2*maxChunk+3].UID = "nope" }},
		{"unknown tx, duplicates", "tx nope", func(b *store.Batch) {
			b.Txs = append(b.Txs, b.Txs[0], store.TxUpdate{UID: "nope", State: store.Done})
		}},
		{"queue of unknown tx", "queue q-70: tx nope", func(b *store.Batch) { b.Queues[70].TxUID = "nope" }},
		{"history of unknown tx", "history of nope", func(b *store.Batch) { b.History[n-1].UID = "nope" }},
	} {
		t.Run(c.name, func(t *testing.T) {
			var bad store.Batch
			for i := range n {
				bad.Txs = append(bad.Txs, store.TxUpdate{UID: uid(i), State: store.Waiting,
					Attempt: &store.Attempt{N: 3}})
				bad.Queues = append(bad.Queues, store.Queue{Name: fmt.Sprintf("q-%d", i), State: store.Blocked, TxUID: uid(i)})
				bad.History = append(bad.History, store.HistoryEntry{UID: uid(i), To: store.Waiting})
			}
			c.edit(&bad)
			err := s.Apply(ctx, bad)
			if !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Apply: %v, want ErrNotFound about %q", err, c.want)
			}
			got, _ := s.Get(ctx, uid(5))
			if got.State != store.Retry || len(got.Attempts) != 1 {
				t.Errorf("tx-5 = %+v: the refused batch was partly applied", got)
			}
		})
	}
}

// TestApplyStateHint checks that the history entries of a batch are only a
// hint for the updates that keep their state: an update changing the state
// without an entry, one keeping it with a new result, and an unknown uid
// are all written (or refused) as without the hint.
func TestApplyStateHint(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name      string
		txs       []store.TxUpdate
		history   []store.HistoryEntry
		wantState map[string]store.TxState
		wantErr   string // an ErrNotFound naming it
	}{
		{name: "state changes without history",
			txs:       []store.TxUpdate{{UID: "a", State: store.Revision}, {UID: "b", State: store.Waiting, Retries: 3}},
			wantState: map[string]store.TxState{"a": store.Revision, "b": store.Waiting}},
		{name: "state kept, result set",
			txs:       []store.TxUpdate{{UID: "a", State: store.Waiting, Result: []byte(`{"r":1}`)}, {UID: "b", State: store.Done}},
			history:   []store.HistoryEntry{{UID: "b", From: store.Waiting, To: store.Done}},
			wantState: map[string]store.TxState{"a": store.Waiting, "b": store.Done}},
		{name: "unknown uid without history",
			txs:     []store.TxUpdate{{UID: "a", State: store.Waiting}, {UID: "nope", State: store.Waiting}},
			wantErr: "tx nope"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := openIn(t, t.TempDir(), Options{})
			defer s.Close()
			if _, err := s.Enqueue(ctx, []store.NewTransaction{{UID: "a", Queue: "q", Type: "T"}, {UID: "b", Queue: "q", Type: "T"}}); err != nil {
				t.Fatal(err)
			}
			err := s.Apply(ctx, store.Batch{Txs: c.txs, History: c.history})
			if c.wantErr != "" {
				if !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("Apply: %v, want ErrNotFound about %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range c.txs {
				got, err := s.Get(ctx, u.UID)
				if err != nil {
					t.Fatal(err)
				}
				if got.State != c.wantState[u.UID] || got.Retries != u.Retries || !sameResult(got.Result, u.Result) {
					t.Errorf("%s: state %s retries %d result %s, want %s %d %s", u.UID, got.State, got.Retries, got.Result, c.wantState[u.UID], u.Retries, u.Result)
				}
			}
			// The state indexes agree with the rows.
			w, err := s.Waiting(ctx, "q", 0, 10)
			if err != nil {
				t.Fatal(err)
			}
			for _, tx := range w {
				if c.wantState[tx.UID] != store.Waiting {
					t.Errorf("Waiting lists %s, in %s", tx.UID, c.wantState[tx.UID])
				}
			}
		})
	}
}

// sameResult compares two results, nil and empty alike.
func sameResult(a, b []byte) bool { return string(a) == string(b) }
