package devchain

import (
	"context"
	"fmt"
	"time"
)

// FeeSpike makes the minimum fee jump by Factor for Blocks blocks; pending
// transactions under the raised fee stay pending.
type FeeSpike struct {
	Factor uint64 `json:"factor"`
	Blocks uint64 `json:"blocks"`
}

// FaultUpdate changes the fault knobs: fields left nil keep their value.
// FeeSpike, Stall and Reorg are one-shot actions taken when the update is
// applied.
type FaultUpdate struct {
	// RejectProb is the probability that a submit is rejected.
	RejectProb *float64 `json:"rejectProb,omitempty"`
	// DropProb is the probability that an accepted transaction is silently
	// dropped from the mempool before the next block (its status becomes
	// unknown).
	DropProb *float64 `json:"dropProb,omitempty"`
	// RevertProb is the probability that a transaction fails at inclusion with
	// reason "reverted" (it still consumes its nonce and fee).
	RevertProb *float64 `json:"revertProb,omitempty"`
	// ReorgEvery, if non-zero, reorgs the chain by ReorgDepth every that many
	// blocks.
	ReorgEvery *uint64 `json:"reorgEvery,omitempty"`
	// ReorgDepth is the depth of periodic reorgs. Defaults to 1.
	ReorgDepth *uint64 `json:"reorgDepth,omitempty"`
	// FeeSpike starts a fee spike now.
	FeeSpike *FeeSpike `json:"feeSpike,omitempty"`
	// Stall stops block production for this long from now.
	Stall *Duration `json:"stall,omitempty"`
	// Reorg replaces the last Reorg blocks now.
	Reorg *uint64 `json:"reorg,omitempty"`
}

// FaultState is the fault knobs in force (GET /v1/faults).
type FaultState struct {
	// RejectProb, DropProb and RevertProb are as in FaultUpdate.
	RejectProb float64 `json:"rejectProb"`
	DropProb   float64 `json:"dropProb"`
	RevertProb float64 `json:"revertProb"`
	// ReorgEvery and ReorgDepth set the periodic reorg (0: none).
	ReorgEvery uint64 `json:"reorgEvery"`
	ReorgDepth uint64 `json:"reorgDepth"`
	// FeeSpikeFactor multiplies the minimum fee for FeeSpikeBlocks more blocks.
	FeeSpikeFactor uint64 `json:"feeSpikeFactor"`
	FeeSpikeBlocks uint64 `json:"feeSpikeBlocks"`
	// StallUntil is when a stall ends (absent when none).
	StallUntil time.Time `json:"stallUntil,omitzero"`
	// MinFee is the minimum fee in force now, spike included.
	MinFee uint64 `json:"minFee"`
	// Reorgs counts the reorgs since the chain started.
	Reorgs uint64 `json:"reorgs"`
}

// MaxReorgDepth bounds a reorg.
const MaxReorgDepth = 64

// Validate checks ranges; it changes nothing.
func (u FaultUpdate) Validate() error {
	if err := u.check(); err != nil {
		return &InvalidFaultsError{err: err}
	}
	return nil
}

// InvalidFaultsError is the error of a fault update with a knob out of
// range; SetFaults returns it and changes nothing.
type InvalidFaultsError struct{ err error }

// Error is the reason, naming the knob.
func (e *InvalidFaultsError) Error() string { return e.err.Error() }

// Unwrap returns the reason.
func (e *InvalidFaultsError) Unwrap() error { return e.err }

func (u FaultUpdate) check() error {
	for name, p := range map[string]*float64{"rejectProb": u.RejectProb, "dropProb": u.DropProb, "revertProb": u.RevertProb} {
		if p != nil && !(*p >= 0 && *p <= 1) {
			return fmt.Errorf("%s must be between 0 and 1", name)
		}
	}
	if u.ReorgDepth != nil && (*u.ReorgDepth < 1 || *u.ReorgDepth > MaxReorgDepth) {
		return fmt.Errorf("reorgDepth must be between 1 and %d", MaxReorgDepth)
	}
	if u.FeeSpike != nil && (u.FeeSpike.Factor < 1 || u.FeeSpike.Factor > 1_000_000 || u.FeeSpike.Blocks > 1_000_000) {
		return fmt.Errorf("feeSpike needs a factor of 1-1000000 and at most 1000000 blocks")
	}
	if u.Stall != nil && (*u.Stall < 0 || time.Duration(*u.Stall) > 24*time.Hour) {
		return fmt.Errorf("stall must be between 0s and 24h")
	}
	if u.Reorg != nil && (*u.Reorg < 1 || *u.Reorg > MaxReorgDepth) {
		return fmt.Errorf("reorg must be between 1 and %d", MaxReorgDepth)
	}
	return nil
}

// Faults returns the fault knobs in force.
func (c *Chain) Faults(ctx context.Context) (FaultState, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.faultState(), nil
}

// faultState is the knobs with the minimum fee in force; the caller holds
// the lock.
func (c *Chain) faultState() FaultState {
	fs := c.faults
	fs.MinFee = c.currentMinFee()
	return fs
}

// SetFaults applies a fault update; an invalid update changes nothing.
func (c *Chain) SetFaults(ctx context.Context, u FaultUpdate) (FaultState, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.applyFaults(u); err != nil {
		return FaultState{}, err
	}
	return c.faultState(), nil
}

func (c *Chain) applyFaults(u FaultUpdate) error {
	if err := u.Validate(); err != nil {
		return err
	}
	set := func(dst *float64, src *float64) {
		if src != nil {
			*dst = *src
		}
	}
	set(&c.faults.RejectProb, u.RejectProb)
	set(&c.faults.DropProb, u.DropProb)
	set(&c.faults.RevertProb, u.RevertProb)
	if u.ReorgEvery != nil {
		c.faults.ReorgEvery = *u.ReorgEvery
	}
	if u.ReorgDepth != nil {
		c.faults.ReorgDepth = *u.ReorgDepth
	}
	if u.FeeSpike != nil {
		c.faults.FeeSpikeFactor, c.faults.FeeSpikeBlocks = u.FeeSpike.Factor, u.FeeSpike.Blocks
	}
	if u.Stall != nil {
		c.faults.StallUntil = c.cfg.Clock.Now().Add(time.Duration(*u.Stall))
	}
	if u.Reorg != nil && c.blocks != nil {
		return c.reorgLocked(*u.Reorg, c.cfg.Clock.Now())
	}
	return nil
}
