package node

import (
	"github.com/ordolabs/ordo/internal/ptx"
)

// PTXConfig tunes the ptx_ JSON-RPC API (POST /rpc, internal/ptx,
// docs/private-transactions.md). Zero fields take their defaults.
type PTXConfig struct {
	// MaxAnswerBytes bounds the results of one answer, a call or a whole
	// batch: the call whose result would pass it answers the error -32005
	// (data.code "answer_budget") instead, and the batch's later calls are
	// not run and answer the same. Defaults to 8 MiB.
	MaxAnswerBytes int64 `yaml:"maxAnswerBytes"`
	// MaxBuildingBytes bounds the bytes of every answer being built on
	// the node at once; a call the rest cannot cover is not run and
	// answers -32005 (data.code "node_budget"). Defaults to 64 MiB.
	MaxBuildingBytes int64 `yaml:"maxBuildingBytes"`
}

// validate refuses negative budgets.
func (c PTXConfig) validate(bad func(field, format string, args ...any)) {
	if c.MaxAnswerBytes < 0 {
		bad("ptx.maxAnswerBytes", "must not be negative, got %d", c.MaxAnswerBytes)
	}
	if c.MaxBuildingBytes < 0 {
		bad("ptx.maxBuildingBytes", "must not be negative, got %d", c.MaxBuildingBytes)
	}
	if c.MaxAnswerBytes > 0 && c.MaxBuildingBytes > 0 && c.MaxAnswerBytes > c.MaxBuildingBytes {
		bad("ptx.maxAnswerBytes", "must not exceed ptx.maxBuildingBytes (%d), got %d", c.MaxBuildingBytes, c.MaxAnswerBytes)
	}
}

// handler is the ptx_ API with this config's budgets.
func (c PTXConfig) handler() ptx.Handler {
	return ptx.Handler{MaxAnswerBytes: c.MaxAnswerBytes, Budget: ptx.NewBudget(c.MaxBuildingBytes)}
}
