package bench

import (
	"context"
	"errors"
	"os"
	"regexp"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/testkit/pgtest"
)

// TestRecovery runs a small recovery on each store: the restarted process
// (this test binary again, as TestRecoveryChildProcess) dispatched, every
// queue dispatched once, and the line has its shape.
func TestRecovery(t *testing.T) {
	shape := regexp.MustCompile(`^recovery: store=(sqlite|postgres) N=2000 Q=200 S=20: first dispatch \S+ after exec \(open \S+, load \S+, first SendTx \S+ in the process\) ≤ 2s (pass|FAIL); ` +
		`peak RSS [0-9.]+ MiB \(VmHWM once all 200 queues had dispatched, \S+ in; [0-9.]+ MiB at the first dispatch, Go heap in use [0-9.]+ MiB\) ≤ 512.0 MiB (pass|FAIL); fill \S+ \(not measured\)$`)
	for _, st := range []string{StoreSQLite, StorePostgres} {
		t.Run(st, func(t *testing.T) {
			o := RecoveryOptions{Store: st, Intents: 2000, Queues: 200, Senders: 20, Batch: 500, Dir: t.TempDir(),
				Child: []string{os.Args[0], "-test.run=^TestRecoveryChildProcess$"}, Timeout: time.Minute}
			if st == StorePostgres {
				o.Postgres = pgtest.URL(t)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			r, err := Recovery(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			line := r.String()
			if !shape.MatchString(line) || r.Opts.Store != st {
				t.Fatalf("line %q: not the recovery line's shape", line)
			}
			if r.FirstDispatch <= 0 || r.Child.FirstSend <= 0 || r.Child.Queues != 200 || r.Child.PeakRSS == 0 {
				t.Fatalf("no dispatch, or not every queue: %+v", r)
			}
		})
	}
}

// TestRecoveryOptions refuses an unknown store.
func TestRecoveryOptions(t *testing.T) {
	if _, err := Recovery(context.Background(), RecoveryOptions{Store: "mysql"}); err == nil {
		t.Fatal("want an error for an unknown store")
	}
}

// TestRecoveryChildProcess is the restarted process of TestRecovery; run
// alone, it does nothing.
func TestRecoveryChildProcess(t *testing.T) {
	err := RecoveryChild(t.Context(), os.Stdout, os.Stderr)
	if errors.Is(err, ErrNotRecoveryChild) {
		t.Skip("run by TestRecovery")
	}
	if err != nil {
		t.Fatal(err)
	}
}
