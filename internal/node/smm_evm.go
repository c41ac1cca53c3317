package node

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/ordolabs/ordo/internal/identity"
	"github.com/ordolabs/ordo/internal/noderegistry"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/smm"
)

// Replicated queues on an EVM chain (seed 004): the nodes registry and the
// replica sets are the NodeRegistry and ReplicaSets contracts named
// evmNodesContract and evmSetsContract in evm.contracts (ordo evmdev and
// ordo evm deploy --replication print them).
const (
	evmNodesContract = "nodes"
	evmSetsContract  = "replicasets"
)

// validateEVMReplication checks that a node on an EVM chain whose
// distributed sequencer reads the nodes registry names its contracts.
func validateEVMReplication(c Config, bad func(field, format string, args ...any)) {
	if !c.EVM.enabled() || !c.Distseq.enabled() || !c.Distseq.Registry {
		return
	}
	want := map[string]string{evmNodesContract: "NodeRegistry"}
	if c.Replication.Enabled {
		want[evmSetsContract] = "ReplicaSets"
	}
	for name, abi := range want {
		k, ok := c.EVM.Contracts[name]
		if !ok {
			bad("evm.contracts."+name, "is required by distseq.registry and replication on an EVM chain: the %s contract (ordo evmdev or ordo evm deploy --replication prints it)", abi)
		} else if k.ABI != abi {
			bad("evm.contracts."+name+".abi", "is %q; replicated queues read it as %s", k.ABI, abi)
		}
	}
}

// pinRegistration pins, on an EVM chain, this node's registration queue
// to the sender of its replica-set updates and returns that sender's
// account: the NodeRegistry binds the node's id to the account its
// registration comes from, the registration's signature covers that
// account, and ReplicaSets takes the node's updates only from it. With
// one sender every queue shares it, and nothing is pinned. With more, the
// registration shares the sender replication reserved, else the last
// sender by id is reserved for it (a pinned sender serves only its
// pinned queues). Off an EVM chain it changes nothing and returns "".
func pinRegistration(c Config, senders []sequencer.SenderConfig, pins map[string]string) (map[string]string, string, error) {
	if !c.EVM.enabled() || !c.Distseq.enabled() || !c.Distseq.Registry {
		return pins, "", nil
	}
	if len(senders) == 0 {
		return nil, "", errors.New("distseq.registry: the node has no sender to register from")
	}
	if len(senders) == 1 {
		return pins, string(senders[0].ID), nil
	}
	key, _, err := identity.Load(c.Distseq.Key, c.Distseq.Cert)
	if err != nil {
		return nil, "", fmt.Errorf("distseq: identity: %w", err)
	}
	acc := pins[smm.SetsQueue]
	if acc == "" {
		held := map[string]bool{}
		for _, s := range pins {
			held[s] = true
		}
		var ids []string
		for _, s := range senders {
			if !held[string(s.ID)] {
				ids = append(ids, string(s.ID))
			}
		}
		if len(ids) == 0 {
			return nil, "", errors.New("distseq.registry: every sender is pinned; none is left to register from")
		}
		slices.Sort(ids)
		acc = ids[len(ids)-1]
	}
	if pins == nil {
		pins = map[string]string{}
	}
	pins[RegisterQueue(string(key.ID()))] = acc
	return pins, acc, nil
}

// registryBinding is how the node reads and writes the nodes registry:
// devchain's nodes contract, or NodeRegistry on an EVM chain (entries
// trusted only with their key's signature for this chain, registry and
// account; n.regAccount registers).
func (n *Node) registryBinding() (noderegistry.Binding, error) {
	if !n.Config.EVM.enabled() {
		return noderegistry.Devchain{}, nil
	}
	b, ok := n.Chain.(interface{ ChainID() *big.Int })
	if !ok || !b.ChainID().IsUint64() {
		return nil, errors.New("distseq.registry: the EVM chain's id is unknown")
	}
	return noderegistry.EVM{Contract: evmNodesContract, ChainID: b.ChainID().Uint64(),
		Registry: strings.ToLower(n.Config.EVM.Contracts[evmNodesContract].Address), Account: n.regAccount}, nil
}

// setsBinding is how replication reads and writes replica sets.
func (n *Node) setsBinding() smm.SetsBinding {
	if n.Config.EVM.enabled() {
		return smm.EVMSets{Contract: evmSetsContract}
	}
	return smm.DevchainSets{}
}
