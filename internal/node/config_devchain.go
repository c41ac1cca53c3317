package node

import (
	"github.com/ordolabs/ordo/internal/chain/devchain"
)

// DevchainConfig configures the in-process devchain.
type DevchainConfig struct {
	// BlockTime is the interval between blocks. Defaults to 1s.
	BlockTime Duration `yaml:"blockTime"`
	// Seed drives every random choice of the devchain (fault rolls, dev
	// account keys). Defaults to 1.
	Seed uint64 `yaml:"seed"`
	// MaxBlockTxs is the most transactions one block includes. Defaults to
	// 1000.
	MaxBlockTxs int `yaml:"maxBlockTxs"`
	// Faults are the fault knobs in force each time the node starts (see GET
	// /v1/faults). Defaults to no faults.
	Faults FaultConfig `yaml:"faults"`
}

// FaultConfig is the devchain's fault knobs, set each time the node starts.
// All default to off.
type FaultConfig struct {
	// RejectProb is the probability that a submit is rejected. Between 0
	// and 1. Defaults to 0.
	RejectProb float64 `yaml:"rejectProb"`
	// DropProb is the probability that an accepted transaction is silently
	// dropped from the mempool before the next block (its status becomes
	// unknown). Between 0 and 1. Defaults to 0.
	DropProb float64 `yaml:"dropProb"`
	// RevertProb is the probability that a transaction fails at inclusion
	// with reason "reverted" (it still consumes its nonce and fee). Between 0
	// and 1. Defaults to 0.
	RevertProb float64 `yaml:"revertProb"`
	// ReorgEvery, if non-zero, reorgs the chain by ReorgDepth blocks every
	// that many blocks. Defaults to 0 (never).
	ReorgEvery uint64 `yaml:"reorgEvery"`
	// ReorgDepth is the depth of the periodic reorgs, from 1 to 64. Defaults
	// to 1.
	ReorgDepth uint64 `yaml:"reorgDepth"`
	// FeeSpike multiplies the chain's minimum fee by Factor for Blocks blocks
	// from the start; pending transactions under the raised fee stay pending.
	// Defaults to none (factor 0).
	FeeSpike FeeSpikeConfig `yaml:"feeSpike"`
	// Stall stops block production for this long from the start. Defaults to
	// 0s (none).
	Stall Duration `yaml:"stall"`
}

// FeeSpikeConfig is a fee spike at start.
type FeeSpikeConfig struct {
	// Factor multiplies the minimum fee, from 1 to 1000000. Defaults to 0
	// (no spike).
	Factor uint64 `yaml:"factor"`
	// Blocks is how many blocks the spike lasts, at most 1000000. Defaults
	// to 0.
	Blocks uint64 `yaml:"blocks"`
}

// Update is the devchain fault update that sets these knobs at start.
func (f FaultConfig) Update() devchain.FaultUpdate {
	u := devchain.FaultUpdate{RejectProb: &f.RejectProb, DropProb: &f.DropProb, RevertProb: &f.RevertProb, ReorgEvery: &f.ReorgEvery}
	if f.ReorgDepth > 0 {
		u.ReorgDepth = &f.ReorgDepth
	}
	if f.FeeSpike.Factor > 0 {
		u.FeeSpike = &devchain.FeeSpike{Factor: f.FeeSpike.Factor, Blocks: f.FeeSpike.Blocks}
	}
	if f.Stall > 0 {
		d := devchain.Duration(f.Stall)
		u.Stall = &d
	}
	return u
}
