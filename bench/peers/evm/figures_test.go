package main

import (
	"math"
	"math/big"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	t.Parallel()
	hundred := make([]uint64, 100)
	for i := range hundred {
		hundred[i] = uint64(i + 1)
	}
	for _, c := range []struct {
		name   string
		sorted []uint64
		p      int
		want   uint64
	}{
		{"empty", nil, 50, 0},
		{"one", []uint64{7}, 99, 7},
		{"p50 of 1..100", hundred, 50, 50},
		{"p99 of 1..100", hundred, 99, 99},
		{"p100 of 1..100", hundred, 100, 100},
		{"p50 of an even count takes the lower middle", []uint64{1, 2, 3, 4}, 50, 2},
		{"p50 of an odd count takes the middle", []uint64{1, 2, 3, 4, 5}, 50, 3},
		{"p99 of 10 is the largest", []uint64{0, 0, 0, 0, 0, 0, 0, 0, 1, 9}, 99, 9},
		{"p1 is the smallest", []uint64{3, 4, 5}, 1, 3},
	} {
		if got := percentile(c.sorted, c.p); got != c.want {
			t.Errorf("%s: percentile(%v, %d) = %d, want %d", c.name, c.sorted, c.p, got, c.want)
		}
	}
}

func gwei(f float64) *big.Int { return big.NewInt(int64(f * 1e9)) }

func TestFeeShare(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name      string
		txs       []onChain
		share     float64
		tip, base float64 // per gas, in wei
	}{
		{"none", nil, 0, 0, 0},
		{"tip equal to the base fee", []onChain{{gasUsed: 100, price: gwei(2), baseFee: gwei(1)}}, 1, 1e9, 1e9},
		{"weighted by gas used", []onChain{
			{gasUsed: 300, price: gwei(1.5), baseFee: gwei(1)}, // tip 0.5 gwei × 300
			{gasUsed: 100, price: gwei(4), baseFee: gwei(2)},   // tip 2 gwei × 100
		}, (0.5*300 + 2*100) / (1*300 + 2*100), (0.5*300 + 2*100) / 400 * 1e9, (1.0*300 + 2*100) / 400 * 1e9},
		{"no tip", []onChain{{gasUsed: 50, price: gwei(1), baseFee: gwei(1)}}, 0, 0, 1e9},
	} {
		share, tip, base := feeShare(c.txs)
		tf, _ := tip.Float64()
		bf, _ := base.Float64()
		if math.Abs(share-c.share) > 1e-9 || math.Abs(tf-c.tip) > 1e-3 || math.Abs(bf-c.base) > 1e-3 {
			t.Errorf("%s: feeShare = %v, tip %v, base %v; want %v, %v, %v", c.name, share, tf, bf, c.share, c.tip, c.base)
		}
	}
}

func TestCompute(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC)
	tx := func(block uint64, reverted bool, failed string) onChain {
		return onChain{block: block, gasUsed: 100, price: gwei(3), baseFee: gwei(1), fullness: float64(block) / 100, reverted: reverted, failed: failed}
	}
	samples := []sample{
		{head: 10, tx: tx(11, false, "")},
		{head: 10, tx: tx(12, false, "")},
		{head: 11, tx: tx(14, true, "")},              // reverted: counted once, as reverted
		{head: 12, tx: tx(12, false, "IntentFailed")}, // same block as the head: 0 blocks
		{head: 15, tx: tx(14, false, "")},             // a head read after the receipt: 0, not negative
	}
	f, err := compute(samples, start, start.Add(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if f.txs != 5 || f.perSecond != 2.5 {
		t.Errorf("txs %d, %v tx/s; want 5, 2.5", f.txs, f.perSecond)
	}
	// Latencies sorted: 0 0 1 2 3.
	if f.p50 != 1 || f.p99 != 3 {
		t.Errorf("p50 %d p99 %d; want 1 and 3", f.p50, f.p99)
	}
	if f.reverted != 1 || f.failed != 1 {
		t.Errorf("reverted %d failed %d; want 1 and 1", f.reverted, f.failed)
	}
	if math.Abs(f.feeShare-2) > 1e-9 || math.Abs(f.tipGwei-2) > 1e-9 || math.Abs(f.baseGwei-1) > 1e-9 {
		t.Errorf("fee share %v, tip %v gwei, base %v gwei; want 2, 2, 1", f.feeShare, f.tipGwei, f.baseGwei)
	}
	if f.blocks != 4 || f.fullest != 0.14 {
		t.Errorf("%d blocks, fullest %v; want 4 (11 to 14) and 0.14", f.blocks, f.fullest)
	}
	if got := lastBlock(samples); got != 14 {
		t.Errorf("lastBlock = %d, want 14", got)
	}
	if _, err := compute(samples, start, start); err == nil {
		t.Error("compute with an empty span: no error")
	}
	if _, err := compute(nil, start, start.Add(time.Second)); err == nil {
		t.Error("compute of no samples: no error")
	}
}

func TestPlan(t *testing.T) {
	t.Parallel()
	setup, votes := plan(7, 3)
	if len(setup) != 3 || len(votes) != 7 {
		t.Fatalf("plan(7, 3): %d creates, %d votes; want 3 and 7", len(setup), len(votes))
	}
	for q, in := range setup {
		if want := "claim-" + string(rune('0'+q)); in.Queue != want || in.Type != "call" {
			t.Errorf("create %d on %s (%s), want %s (call)", q, in.Queue, in.Type, want)
		}
	}
	keys := map[string]bool{}
	for i, in := range votes {
		if want := "claim-" + string(rune('0'+queueOf(i, 3))); in.Queue != want {
			t.Errorf("vote %d on %s, want %s", i, in.Queue, want)
		}
		keys[in.IdempotencyKey] = true
	}
	for _, in := range setup {
		keys[in.IdempotencyKey] = true
	}
	if len(keys) != 10 {
		t.Errorf("%d distinct idempotency keys for 10 intents", len(keys))
	}
}
