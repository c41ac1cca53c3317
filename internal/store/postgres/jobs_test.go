package postgres

import (
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/storetest"
)

func TestJobsConformance(t *testing.T) {
	storetest.RunJobs(t, func(t *testing.T) store.JobStore {
		return openIn(t, t.TempDir(), Options{})
	})
}

// FuzzDecodeJobErrors: the errors column's decoder never panics, and what
// it accepts encodes back to a column it reads the same.
func FuzzDecodeJobErrors(f *testing.F) {
	for _, seed := range []string{``, `[]`, `null`, `[{"attempt":1,"at":"2025-03-01T12:00:00.123456789+03:00","error":"boom"}]`,
		`[{"attempt":-1}]`, `{`, `[{"at":"x"}]`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		es, err := decodeJobErrors(b)
		if err != nil {
			return
		}
		for _, e := range es {
			if !e.At.IsZero() && e.At.Location() != time.UTC {
				t.Fatalf("time %v not in UTC", e.At)
			}
		}
		enc, err := encodeJobErrors(es)
		if err != nil {
			return // a time outside JSON's years
		}
		again, err := decodeJobErrors(enc)
		if err != nil || len(again) != len(es) {
			t.Fatalf("re-decode of %s: %v, %d entries, want %d", enc, err, len(again), len(es))
		}
		for i := range es {
			if again[i].Attempt != es[i].Attempt || again[i].Error != es[i].Error || !again[i].At.Equal(es[i].At) {
				t.Fatalf("entry %d: %+v, want %+v", i, again[i], es[i])
			}
		}
	})
}
