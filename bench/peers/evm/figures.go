package main

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"time"
)

// sample is one transaction of a run: the head when it was handed over
// (ordo's intake, txmgr's send) and what the chain holds of it.
type sample struct {
	head uint64 // the chain head at intake or send
	tx   onChain
}

// figures are one contender's results.
type figures struct {
	txs       int
	perSecond float64 // txs over first intake/send → the last receipt's block first seen
	p50, p99  uint64  // receipt block − head at intake/send, in blocks
	feeShare  float64 // Σ tip × gasUsed / Σ baseFee × gasUsed
	tipGwei   float64 // the mean tip per gas paid, in gwei
	baseGwei  float64 // the mean base fee per gas paid, in gwei
	blocks    uint64  // from the first receipt's block to the last
	fullest   float64 // the fullest of those blocks: gas used over the gas limit
	reverted  int
	failed    int // a router outcome other than IntentApplied
}

// String is the contender's part of the line.
func (f figures) String() string {
	return fmt.Sprintf("%.1f tx/s, confirm p50 %d p99 %d blocks, fees over the base fee %.1f%% (tip %.3g gwei, base fee %.3g gwei per gas), %d blocks (fullest %.0f%% of its gas limit), failed %d, reverted %d",
		f.perSecond, f.p50, f.p99, 100*f.feeShare, f.tipGwei, f.baseGwei, f.blocks, 100*f.fullest, f.failed, f.reverted)
}

// percentile is the nearest-rank p-th percentile (0 < p ≤ 100) of sorted
// values: the value at rank ⌈p × n / 100⌉, the smallest that at least p
// percent of them do not exceed.
func percentile(sorted []uint64, p int) uint64 {
	if len(sorted) == 0 {
		return 0
	}
	rank := (len(sorted)*p + 99) / 100
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// feeShare is Σ (price − baseFee) × gasUsed over Σ baseFee × gasUsed: the
// tips paid as a share of the base fee paid, and the mean tip and base fee
// per gas in wei.
func feeShare(txs []onChain) (share float64, tipPerGas, basePerGas *big.Float) {
	tips, base, gas := new(big.Int), new(big.Int), new(big.Int)
	for _, t := range txs {
		g := new(big.Int).SetUint64(t.gasUsed)
		gas.Add(gas, g)
		base.Add(base, new(big.Int).Mul(g, t.baseFee))
		tips.Add(tips, new(big.Int).Mul(g, new(big.Int).Sub(t.price, t.baseFee)))
	}
	if gas.Sign() == 0 {
		return 0, new(big.Float), new(big.Float)
	}
	g := new(big.Float).SetInt(gas)
	tipPerGas = new(big.Float).Quo(new(big.Float).SetInt(tips), g)
	basePerGas = new(big.Float).Quo(new(big.Float).SetInt(base), g)
	if base.Sign() == 0 {
		return 0, tipPerGas, basePerGas
	}
	share, _ = new(big.Float).Quo(new(big.Float).SetInt(tips), new(big.Float).SetInt(base)).Float64()
	return share, tipPerGas, basePerGas
}

// compute turns a run's samples into its figures: start is the first
// intake or send, end when the last receipt's block was first seen.
func compute(samples []sample, start, end time.Time) (figures, error) {
	if len(samples) == 0 {
		return figures{}, errors.New("no transactions")
	}
	if !end.After(start) {
		return figures{}, fmt.Errorf("the last receipt (%s) is not after the first intake (%s)", end, start)
	}
	f := figures{txs: len(samples)}
	first := samples[0].tx.block
	lat := make([]uint64, 0, len(samples))
	txs := make([]onChain, 0, len(samples))
	for _, s := range samples {
		lat = append(lat, s.tx.block-min(s.tx.block, s.head))
		txs = append(txs, s.tx)
		first = min(first, s.tx.block)
		f.fullest = max(f.fullest, s.tx.fullness)
		if s.tx.reverted {
			f.reverted++
		} else if s.tx.failed != "" {
			f.failed++
		}
	}
	f.blocks = lastBlock(samples) - first + 1
	slices.Sort(lat)
	f.p50, f.p99 = percentile(lat, 50), percentile(lat, 99)
	f.perSecond = float64(len(samples)) / end.Sub(start).Seconds()
	var tip, base *big.Float
	f.feeShare, tip, base = feeShare(txs)
	f.tipGwei, _ = new(big.Float).Quo(tip, big.NewFloat(1e9)).Float64()
	f.baseGwei, _ = new(big.Float).Quo(base, big.NewFloat(1e9)).Float64()
	return f, nil
}

// lastBlock is the highest receipt block of samples.
func lastBlock(samples []sample) uint64 {
	var b uint64
	for _, s := range samples {
		b = max(b, s.tx.block)
	}
	return b
}
