package bench

import (
	"context"
	"strings"
	"testing"
	"time"
)

// Small runs of the processor benchmark on each chain: both kinds of batch
// execute, every callback is delivered, and the line names the chain; an
// unknown chain is refused.
func TestProcessorBenchSmall(t *testing.T) {
	for _, tc := range []struct {
		chain, line, err string
	}{
		{"devchain", "block 50ms: atomic", ""},
		{"evm", "block 50ms (simulated EVM chain): atomic", ""},
		{"mina", "", `chain "mina": devchain or evm`},
	} {
		t.Run(tc.chain, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			r, err := Processor(ctx, ProcessorOptions{Batches: 10, Lanes: 4, Senders: 4, Tickers: 2, BlockTime: 50 * time.Millisecond, Chain: tc.chain, Dir: t.TempDir()})
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Atomic <= 0 || r.NonAtomic <= 0 || r.Callbacks <= 0 || !strings.Contains(r.String(), tc.line) {
				t.Fatalf("%+v: %s", r, r)
			}
			t.Log(r)
		})
	}
}
