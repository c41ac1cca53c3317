package node

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/distseq/evmledger"
	"github.com/ordolabs/ordo/internal/distseq/token"
	"github.com/ordolabs/ordo/internal/identity"
)

// distseqLedger is what the distributed sequencer signs, confirms and
// reads on the node's chain: devchain's privacygroup (ed25519 over its
// PrivacyDigest, its JSON events), or on an EVM chain the PrivacyGroup
// contract named "privacygroup" in evm.contracts (secp256k1 endorsements
// over its EIP-712 digest, with a key derived from the identity key).
type distseqLedger struct {
	scheme distseq.Scheme
	domain token.Domain
	decode func(chain.Event) (distseq.ChainEvent, bool)
}

func (n *Node) distseqLedger(key identity.Key) (distseqLedger, error) {
	if !n.Config.EVM.enabled() {
		return distseqLedger{scheme: distseq.Ed25519Scheme{Key: key.Private}, decode: distseq.DecodeEvent}, nil
	}
	k, ok := n.Config.EVM.Contracts[evmledger.Contract]
	if !ok {
		return distseqLedger{}, fmt.Errorf("distseq on an EVM chain needs evm.contracts.%s: the PrivacyGroup contract (ordo evmdev deploys one)", evmledger.Contract)
	}
	ider, ok := n.Chain.(interface{ ChainID() *big.Int })
	if !ok {
		return distseqLedger{}, fmt.Errorf("distseq: the EVM chain does not report its id")
	}
	ek, err := evmledger.EndorsingKey(key.Private)
	if err != nil {
		return distseqLedger{}, err
	}
	return distseqLedger{
		scheme: evmledger.Scheme{Key: ek},
		domain: token.Domain{Ledger: evmledger.Ledger{ChainID: ider.ChainID(), Contract: common.HexToAddress(strings.ToLower(k.Address))}},
		decode: evmledger.DecodeEvent,
	}, nil
}
