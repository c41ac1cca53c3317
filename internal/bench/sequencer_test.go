package bench

import (
	"context"
	"testing"
	"time"
)

// BenchmarkSequencerBatch runs the sequencer bench with the array intake
// (`ordo bench sequencer --batch 100`), for a CPU profile of the whole node:
// go test -run '^$' -bench SequencerBatch -benchtime 1x -cpuprofile cpu.out ./internal/bench/
func BenchmarkSequencerBatch(b *testing.B) {
	for b.Loop() {
		r, err := Sequencer(context.Background(), SequencerOptions{Batch: 100, Txs: 50_000, BlockTime: 250 * time.Millisecond})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(r.Accepted, "intents/s")
	}
}
