package node

import (
	"strings"

	"github.com/ordolabs/ordo/internal/chain/evm/evmdev"
)

// UseEVMDev points c at a running evmdev chain: its dev accounts 1 to
// senders are the node's senders (accounts its router lets submit; dev
// account 0 owns the router), its Voting contract is "voting", its Library
// "library", and its other contracts by the names evmdev.Deployment.Extra
// gives them ("workflow", "registry", "nodes", "replicasets",
// "privacygroup"); no dev senders are made. For the demo, benchmarks and tests.
func (c *Config) UseEVMDev(dev *evmdev.Chain, senders int) {
	c.DevSenders, c.Senders = 0, nil
	for _, f := range dev.KeyFiles[1:min(senders+1, len(dev.KeyFiles))] {
		c.Senders = append(c.Senders, SenderFile{KeyFile: f})
	}
	c.EVM = EVMConfig{URLs: []string{dev.WSURL, dev.HTTPURL}, ChainID: dev.ChainID, Router: strings.ToLower(dev.Router.Hex()),
		Contracts: map[string]EVMContract{"voting": {Address: strings.ToLower(dev.Voting.Hex()), ABI: "Voting"},
			"library": {Address: strings.ToLower(dev.Library.Hex()), ABI: "Library"}}}
	for _, k := range dev.Deployment().Extra() {
		c.EVM.Contracts[k.Name] = EVMContract{Address: strings.ToLower(k.Address.Hex()), ABI: k.ABI}
	}
}
