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
	// Owners maps a principal's name to the owners (names local to this
	// node, without "@node") it may spend states for, as ptx_ `from`. A
	// principal always acts for the owner of its own name; "*" lets it act
	// for every owner of this node. Defaults to none beyond its own name
	// (in dev mode the principal "dev" acts for every owner).
	Owners map[string][]string `yaml:"owners"`
}

// validate refuses negative budgets and empty owner names.
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
	for p, owners := range c.Owners {
		for _, o := range owners {
			if err := ptx.CheckOwnerName(o); err != nil && o != "*" {
				bad("ptx.owners."+p, "%v", err)
			}
		}
	}
}

// handler is the ptx_ API with this config's budgets and owners.
func (c PTXConfig) handler(devMode bool) ptx.Handler {
	owners := map[string][]string{}
	for p, os := range c.Owners {
		owners[p] = append([]string(nil), os...)
	}
	if devMode {
		owners["dev"] = append(owners["dev"], "*")
	}
	return ptx.Handler{MaxAnswerBytes: c.MaxAnswerBytes, Budget: ptx.NewBudget(c.MaxBuildingBytes), Owners: owners}
}
