package noderegistry

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
)

// Entry is a registered node a Binding vouches for: its id derives from
// PublicKey, and the chain's contract or the Binding checked that the
// key's holder signed the entry.
type Entry struct {
	ID          string
	PublicKey   ed25519.PublicKey
	Fingerprint string
	Endpoint    string
}

// Binding is how one chain's nodes registry is read and written: devchain's
// `nodes` contract (Devchain) or the NodeRegistry contract on an EVM chain
// (EVM).
type Binding interface {
	// Entries reads every registered node and returns the ones it trusts.
	Entries(ctx context.Context, c chain.Chain) ([]Entry, error)
	// Seq reads the id's current seq (0 if it never registered).
	Seq(ctx context.Context, c chain.Chain, id string) (uint64, error)
	// Register returns the call that registers key's node with its
	// certificate's fingerprint and endpoint at seq.
	Register(key ed25519.PrivateKey, fingerprint, endpoint string, seq uint64) (dispatch.Call, error)
}

// Devchain is the Binding of devchain's `nodes` contract, which verifies
// each entry's signature itself.
type Devchain struct{}

var _ Binding = Devchain{}

// Entries reads nodes {} and keeps the entries whose id derives from their
// key.
func (Devchain) Entries(ctx context.Context, c chain.Chain) ([]Entry, error) {
	raw, err := c.Call(ctx, devchain.NodesContract, "nodes", json.RawMessage(`{}`))
	if err != nil {
		return nil, fmt.Errorf("read nodes: %w", err)
	}
	var out struct {
		Nodes []devchain.NodeEntry `json:"nodes"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("decode nodes: %w", err)
	}
	es := make([]Entry, 0, len(out.Nodes))
	for _, e := range out.Nodes {
		pub, err := hex.DecodeString(e.PublicKey)
		if err != nil || len(pub) != ed25519.PublicKeySize || devchain.NodeIDOf(pub) != e.ID {
			continue // the contract refuses these; a chain that serves one is not trusted with it
		}
		es = append(es, Entry{ID: e.ID, PublicKey: pub, Fingerprint: e.Fingerprint, Endpoint: e.Endpoint})
	}
	return es, nil
}

// Seq reads seq {id}.
func (Devchain) Seq(ctx context.Context, c chain.Chain, id string) (uint64, error) {
	args, _ := json.Marshal(map[string]string{"id": id})
	raw, err := c.Call(ctx, devchain.NodesContract, "seq", args)
	if err != nil {
		return 0, fmt.Errorf("read seq: %w", err)
	}
	var cur devchain.NodeSeq
	if err := json.Unmarshal(raw, &cur); err != nil {
		return 0, fmt.Errorf("read seq: %w", err)
	}
	return cur.Seq, nil
}

// Register returns nodes.register with devchain's signed registration.
func (Devchain) Register(key ed25519.PrivateKey, fingerprint, endpoint string, seq uint64) (dispatch.Call, error) {
	id := devchain.NodeIDOf(key.Public().(ed25519.PublicKey))
	body, err := json.Marshal(devchain.SignNodeRegistration(key, id, fingerprint, endpoint, seq))
	if err != nil {
		return dispatch.Call{}, fmt.Errorf("nodes: register args: %w", err)
	}
	return dispatch.Call{Contract: devchain.NodesContract, Method: devchain.NodesRegister, Args: body}, nil
}
