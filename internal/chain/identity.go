package chain

import (
	"context"
	"errors"
	"fmt"
)

// Identity names a ledger: two chains with the same Identity are one
// ledger. A node records its chain's Identity in its store at its first
// contact with the chain (store.ChainStore), so that a store shared by
// several nodes belongs to one ledger.
//
// An EVM backend answers it with eth_chainId and the hash of block 0;
// devchain with "devchain/<seed>" and the hash of its genesis block, which
// covers the genesis time, so two devchains started apart differ.
type Identity struct {
	// ChainID names the network ("devchain/1", an EVM chain id in decimal).
	ChainID string `json:"chainId"`
	// Genesis is the hash of the chain's first block (height 0).
	Genesis Hash `json:"genesis"`
}

// String is the identity in one word, for logs and messages:
// chainId@genesis.
func (id Identity) String() string { return id.ChainID + "@" + string(id.Genesis) }

// Validate checks that both fields are set: an identity with an empty
// field names no ledger.
func (id Identity) Validate() error {
	if id.ChainID == "" || id.Genesis == "" {
		return fmt.Errorf("chain identity %q: chain id and genesis hash are both required", id.String())
	}
	return nil
}

// Identifier is implemented by chains that can name themselves.
type Identifier interface {
	// Identity returns the chain's identity; it never changes while the
	// chain lives.
	Identity(ctx context.Context) (Identity, error)
}

// ErrNoIdentity is returned by IdentityOf for a chain that cannot name
// itself.
var ErrNoIdentity = errors.New("the chain does not report its identity")

// IdentityOf asks c, or the chain it wraps (Unwrap, as Metered does), for
// its identity.
func IdentityOf(ctx context.Context, c Chain) (Identity, error) {
	if id, ok := unwrapTo[Identifier](c); ok {
		return id.Identity(ctx)
	}
	return Identity{}, ErrNoIdentity
}
