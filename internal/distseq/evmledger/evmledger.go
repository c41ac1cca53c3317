package evmledger

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/evm"
	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/distseq/token"
	"github.com/ordolabs/ordo/internal/store"
)

// Contract is the name the node's evm.contracts gives PrivacyGroup: the
// name devchain's contract has, so events and calls keep it.
const Contract = "privacygroup"

// endorsingDomain opens the hash an endorsing key is derived from.
const endorsingDomain = "ordo/distseq/endorsing-key/v1"

// EndorsingKey is the secp256k1 key a node endorses with on an EVM chain:
// keccak256(domain ‖ the ed25519 seed). Whoever holds the identity key
// holds this one; nobody else can derive it.
func EndorsingKey(id ed25519.PrivateKey) (*ecdsa.PrivateKey, error) {
	if len(id) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("evmledger: an ed25519 identity key is required")
	}
	k, err := crypto.ToECDSA(crypto.Keccak256([]byte(endorsingDomain), id.Seed()))
	if err != nil {
		return nil, fmt.Errorf("evmledger: deriving the endorsing key: %w", err)
	}
	return k, nil
}

// EndorsingAddress is the address of EndorsingKey(id), lowercase hex: the
// member's signer at deploy.
func EndorsingAddress(id ed25519.PrivateKey) (string, error) {
	k, err := EndorsingKey(id)
	if err != nil {
		return "", err
	}
	return strings.ToLower(crypto.PubkeyToAddress(k.PublicKey).Hex()), nil
}

// Ledger is PrivacyGroup at Contract on the chain ChainID.
type Ledger struct {
	ChainID  *big.Int
	Contract common.Address
}

var _ token.Ledger = Ledger{}

func states(refs []distseq.StateRef) []evm.PrivacyState {
	out := make([]evm.PrivacyState, len(refs))
	for i, s := range refs {
		out[i] = evm.PrivacyState{ID: s.ID, Owner: s.Owner, Data: string(s.Data)}
	}
	return out
}

// Digest is PrivacyGroup.digestOf of the intent.
func (l Ledger) Digest(group, txID string, spends []string, creates []distseq.StateRef) [32]byte {
	return evm.PrivacyDigest(l.ChainID, l.Contract, group, txID, spends, states(creates))
}

type stateArg struct {
	ID    string `json:"id"`
	Owner string `json:"owner"`
	Data  string `json:"data"`
}

type endorsementArg struct {
	Member    string `json:"member"`
	Signature string `json:"signature"`
}

// ConfirmArgs are PrivacyGroup.confirm's args as the evm backend maps JSON
// to the ABI: data as a string, signatures as 0x hex.
func (Ledger) ConfirmArgs(group, txID string, spends []string, creates []distseq.StateRef, ends []distseq.Endorsement) ([]byte, error) {
	args := struct {
		Group        string           `json:"group"`
		TxID         string           `json:"txId"`
		Spends       []string         `json:"spends"`
		Creates      []stateArg       `json:"creates"`
		Endorsements []endorsementArg `json:"endorsements"`
	}{Group: group, TxID: txID, Spends: append([]string{}, spends...), Creates: []stateArg{}, Endorsements: []endorsementArg{}}
	for _, s := range creates {
		args.Creates = append(args.Creates, stateArg{ID: s.ID, Owner: s.Owner, Data: string(s.Data)})
	}
	for _, e := range ends {
		args.Endorsements = append(args.Endorsements, endorsementArg{Member: string(e.Member), Signature: "0x" + common.Bytes2Hex(e.Signature)})
	}
	b, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("evmledger: confirm args: %w", err)
	}
	return b, nil
}

// Scheme signs with a node's endorsing key; a member's key is its
// endorsing address.
type Scheme struct{ Key *ecdsa.PrivateKey }

var _ distseq.Scheme = Scheme{}

// Sign is evm.SignPrivacy: 65 bytes, V 27 or 28.
func (s Scheme) Sign(digest [32]byte) ([]byte, error) {
	if s.Key == nil {
		return nil, fmt.Errorf("%w: an endorsing key is required", distseq.ErrConfig)
	}
	return evm.SignPrivacy(s.Key, digest)
}

// Verify reports whether sig recovers to the address key.
func (Scheme) Verify(key string, digest [32]byte, sig []byte) bool {
	if !common.IsHexAddress(key) {
		return false
	}
	who, err := evm.RecoverPrivacy(digest, sig)
	return err == nil && who == common.HexToAddress(key)
}

// CheckKey refuses anything but a 0x address.
func (Scheme) CheckKey(key string) error {
	if !strings.HasPrefix(key, "0x") || !common.IsHexAddress(key) {
		return fmt.Errorf("%w: a member's endorsing key is a 0x address, got %q", distseq.ErrConfig, key)
	}
	return nil
}

// DecodeEvent reads PrivacyGroup's events (GroupDeployed, StatesMinted,
// IntentConfirmed) as the evm backend gives them (fields by name, integers
// as decimal strings, bytes as 0x hex) as the core's ChainEvent; any other
// event is not one (false).
func DecodeEvent(e chain.Event) (distseq.ChainEvent, bool) {
	if e.Contract != Contract {
		return distseq.ChainEvent{}, false
	}
	switch e.Name {
	case "GroupDeployed":
		var g struct {
			Group   string `json:"group"`
			Members []struct {
				ID     string `json:"id"`
				Signer string `json:"signer"`
			} `json:"members"`
			Threshold string `json:"threshold"`
		}
		if json.Unmarshal(e.Data, &g) != nil {
			return distseq.ChainEvent{}, false
		}
		t, err := strconv.Atoi(g.Threshold)
		if err != nil {
			return distseq.ChainEvent{}, false
		}
		rec := store.DistseqGroup{Contract: g.Group, Threshold: t, Height: e.Height}
		for _, m := range g.Members {
			rec.Members = append(rec.Members, store.DistseqMember{ID: m.ID, PublicKey: strings.ToLower(m.Signer)})
		}
		return distseq.ChainEvent{Kind: distseq.EventGroupDeployed, Contract: g.Group, Height: e.Height, Group: rec}, true
	case "StatesMinted":
		var m struct {
			Group  string     `json:"group"`
			Minted []stateArg `json:"minted"`
		}
		if json.Unmarshal(e.Data, &m) != nil {
			return distseq.ChainEvent{}, false
		}
		ce := distseq.ChainEvent{Kind: distseq.EventStatesMinted, Contract: m.Group, Height: e.Height}
		for _, s := range m.Minted {
			ce.States = append(ce.States, distseq.StateRef{ID: s.ID, Owner: s.Owner, Data: []byte(s.Data)})
		}
		return ce, true
	case "IntentConfirmed":
		var ic struct {
			Group   string   `json:"group"`
			TxID    string   `json:"txId"`
			Spends  []string `json:"spends"`
			Creates []string `json:"creates"`
			Digest  string   `json:"digest"`
		}
		if json.Unmarshal(e.Data, &ic) != nil {
			return distseq.ChainEvent{}, false
		}
		return distseq.ChainEvent{Kind: distseq.EventIntentConfirmed, Contract: ic.Group, Height: e.Height, TxID: ic.TxID,
			Spends: ic.Spends, Creates: ic.Creates, Digest: strings.TrimPrefix(ic.Digest, "0x")}, true
	}
	return distseq.ChainEvent{}, false
}
