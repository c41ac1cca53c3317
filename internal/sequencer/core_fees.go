package sequencer

// FeePolicy sets fees: the first attempt pays max(Initial, the chain's minimum
// fee); each retry pays the previous fee raised by BumpPercent, at least by
// MinStep, capped by Max.
type FeePolicy struct {
	// Initial is the first attempt's fee. Defaults to 1000.
	Initial uint64
	// BumpPercent is the rise per retry. Defaults to 10 (the chain's
	// replacement rule needs at least 10).
	BumpPercent uint64
	// MinStep is the smallest rise per retry. Defaults to 100.
	MinStep uint64
	// Max caps every fee. Defaults to 1,000,000.
	Max uint64
}

// SetDefaults fills every unset field with its default.
func (f *FeePolicy) SetDefaults() {
	if f.Initial == 0 {
		f.Initial = 1000
	}
	if f.BumpPercent == 0 {
		f.BumpPercent = 10
	}
	if f.MinStep == 0 {
		f.MinStep = 100
	}
	if f.Max == 0 {
		f.Max = 1_000_000
	}
}

// next returns the fee of the attempt after one that paid prev, given the
// chain's minimum fee now.
func (f FeePolicy) next(prev, minFee uint64) uint64 {
	fee := max(prev+(prev*f.BumpPercent+99)/100, prev+f.MinStep, minFee)
	if prev == 0 {
		fee = max(f.Initial, minFee)
	}
	return min(fee, f.Max)
}
