package bench

import (
	"context"
	"testing"
	"time"
)

// A small run of the distseq benchmark crosses 2 range boundaries and
// confirms every intent exactly once.
func TestDistseqBenchSmall(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r, err := Distseq(ctx, DistseqOptions{SendersPerNode: 3, RangeSize: 5, Duration: 16 * time.Second, Coins: 500})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(r)
	t.Log(r.Diagnosis())
	if r.Submitted == 0 || r.Refused != 0 || r.Confirmed != r.Submitted || r.Doubles != 0 {
		t.Fatalf("submitted %d, refused %d, confirmed %d, twice %d", r.Submitted, r.Refused, r.Confirmed, r.Doubles)
	}
	if r.Boundaries < 2 || r.PerBlock <= 0 || r.P50 == 0 || r.P99 < r.P50 {
		t.Fatalf("%+v", r)
	}
}

func TestDistseqBenchTooShort(t *testing.T) {
	_, err := Distseq(context.Background(), DistseqOptions{RangeSize: 10, Duration: 5 * time.Second})
	if err == nil {
		t.Fatal("a run crossing no boundary was accepted")
	}
}

// BenchmarkDistseq submits b.N intents to one cluster (4 nodes x 50
// senders at 1 intent/s each, open loop, on the virtual clock) and waits
// for all of them to be confirmed; it reports intents/s of wall time.
func BenchmarkDistseq(b *testing.B) {
	ctx := context.Background()
	o := DistseqOptions{}
	if err := o.defaults(); err != nil {
		b.Fatal(err)
	}
	r, err := newDistseqRun(ctx, o)
	if err != nil {
		b.Fatal(err)
	}
	c := r.c
	if err := c.RunFor(ctx, 2*o.BlockTime); err != nil {
		b.Fatal(err)
	}
	interval := time.Duration(float64(time.Second) / (float64(o.Nodes*o.SendersPerNode) * o.Rate))
	b.ResetTimer()
	t0 := wall.Now()
	for k := range b.N {
		if err := c.RunFor(ctx, interval); err != nil {
			b.Fatal(err)
		}
		if err := r.submit(ctx, k); err != nil {
			b.Fatal(err)
		}
	}
	ok, err := c.RunUntil(ctx, time.Duration(b.N)*interval+time.Hour, func() bool { return len(r.doneH) >= len(r.submitH) })
	if err != nil || !ok {
		b.Fatalf("%d of %d confirmed: %v", len(r.doneH), len(r.submitH), err)
	}
	b.ReportMetric(float64(b.N)/wall.Now().Sub(t0).Seconds(), "intents/s")
}
