package smm

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
	"github.com/ordolabs/ordo/internal/store"
)

// SetsBinding is how one chain's replica-set contract is read and
// written: devchain's `replicasets` (DevchainSets, the default) or the
// ReplicaSets contract on an EVM chain (EVMSets). A refused update's
// reason names devchain's word for it (devchain.ReasonStaleReplicaSet…)
// on both.
type SetsBinding interface {
	// Set reads one queue's set (found false: none).
	Set(ctx context.Context, c chain.Chain, queue string) (s store.ReplicaSet, found bool, err error)
	// Page reads the sets after the queue `after` ("": from the first)
	// and the queue to read the next page after ("": the last page).
	Page(ctx context.Context, c chain.Chain, after string) (sets []store.ReplicaSet, next string, err error)
	// Update is the call that writes next as the update of version
	// replaces, from this node (signer, key).
	Update(key ed25519.PrivateKey, signer string, next store.ReplicaSet, replaces uint64) (dispatch.Call, error)
	// UpdateMany is the calls that write ups, each several updates.
	UpdateMany(key ed25519.PrivateKey, signer string, ups []SetUpdate) ([]dispatch.Call, error)
}

// DevchainSets is the SetsBinding of devchain's replicasets contract:
// each update is signed by the node's ed25519 key.
type DevchainSets struct{}

var _ SetsBinding = DevchainSets{}

// Set reads set {queue}.
func (DevchainSets) Set(ctx context.Context, c chain.Chain, queue string) (store.ReplicaSet, bool, error) {
	args, _ := json.Marshal(map[string]string{"queue": queue})
	raw, err := c.Call(ctx, devchain.ReplicaSetsContract, "set", args)
	if errors.Is(err, chain.ErrNotFound) {
		return store.ReplicaSet{}, false, nil
	}
	if err != nil {
		return store.ReplicaSet{}, false, err
	}
	var s devchain.ReplicaSet
	if err := json.Unmarshal(raw, &s); err != nil {
		return store.ReplicaSet{}, false, fmt.Errorf("decode: %w", err)
	}
	return store.ReplicaSet{Queue: s.Queue, Primary: s.Primary, Secondaries: s.Secondaries, Version: s.Version}, true, nil
}

// Page reads sets {after, limit}.
func (DevchainSets) Page(ctx context.Context, c chain.Chain, after string) ([]store.ReplicaSet, string, error) {
	args, _ := json.Marshal(map[string]any{"after": after, "limit": devchain.MaxReplicaSetPage})
	raw, err := c.Call(ctx, devchain.ReplicaSetsContract, "sets", args)
	if err != nil {
		return nil, "", err
	}
	var page devchain.ReplicaSetsPage
	if err := json.Unmarshal(raw, &page); err != nil {
		return nil, "", fmt.Errorf("decode: %w", err)
	}
	out := make([]store.ReplicaSet, len(page.Sets))
	for i, s := range page.Sets {
		out[i] = store.ReplicaSet{Queue: s.Queue, Primary: s.Primary, Secondaries: s.Secondaries, Version: s.Version}
	}
	return out, page.Next, nil
}

// Update returns replicasets.update, signed by key.
func (DevchainSets) Update(key ed25519.PrivateKey, signer string, next store.ReplicaSet, replaces uint64) (dispatch.Call, error) {
	body, err := json.Marshal(devchain.SignReplicaSetUpdate(key, signer, next.Queue, next.Primary, next.Secondaries, replaces))
	if err != nil {
		return dispatch.Call{}, err
	}
	return dispatch.Call{Contract: devchain.ReplicaSetsContract, Method: devchain.ReplicaSetsUpdate, Args: body}, nil
}

// UpdateMany returns replicasets.update_many calls of at most
// devchain.MaxReplicaSetBatch updates each, signed by key.
func (DevchainSets) UpdateMany(key ed25519.PrivateKey, signer string, ups []SetUpdate) ([]dispatch.Call, error) {
	var out []dispatch.Call
	for chunk := range slices.Chunk(ups, devchain.MaxReplicaSetBatch) {
		signed := make([]devchain.ReplicaSetUpdate, len(chunk))
		for i, u := range chunk {
			signed[i] = devchain.SignReplicaSetUpdate(key, signer, u.Next.Queue, u.Next.Primary, u.Next.Secondaries, u.Old.Version)
		}
		body, err := devchain.ReplicaSetBatchArgs(signed)
		if err != nil {
			return nil, err
		}
		out = append(out, dispatch.Call{Contract: devchain.ReplicaSetsContract, Method: devchain.ReplicaSetsUpdateMany, Args: body})
	}
	return out, nil
}

// EVMSetsBatch is the most updates one EVMSets updateMany call carries: a
// batch of new queues costs about 183,000 gas each (docs/evm-contracts.md),
// so 16 stay near 3M gas, well inside a block.
const EVMSetsBatch = 16

// EVMSets is the SetsBinding of the ReplicaSets contract
// (contracts/ReplicaSets.sol) named Contract among the EVM backend's
// contracts. Node ids are its bytes20 ("0x" and the id's 40 hex digits);
// an update carries no ed25519 signature: the contract takes it from the
// account the NodeRegistry binds to the signer, which the node's
// registration signed (noderegistry.EVM).
type EVMSets struct {
	Contract string
}

var _ SetsBinding = EVMSets{}

// evmSet is a ReplicaSets set as the chain seam returns it.
type evmSet struct {
	Queue       string   `json:"queue"`
	Primary     string   `json:"primary"`
	Secondaries []string `json:"secondaries"`
	Version     string   `json:"version"`
}

func evmID(id string) (string, error) {
	if !devchain.ValidNodeID(id) {
		return "", fmt.Errorf("smm: node id %q", id)
	}
	return "0x" + id[1:], nil
}

func idOfEVM(s string) (string, error) {
	id := "n" + strings.TrimPrefix(s, "0x")
	if !strings.HasPrefix(s, "0x") || !devchain.ValidNodeID(id) {
		return "", fmt.Errorf("smm: the chain's node id %q", s)
	}
	return id, nil
}

func (s evmSet) set() (store.ReplicaSet, error) {
	v, err := strconv.ParseUint(s.Version, 10, 64)
	if err != nil {
		return store.ReplicaSet{}, fmt.Errorf("smm: the chain's version %q of %q", s.Version, s.Queue)
	}
	p, err := idOfEVM(s.Primary)
	if err != nil {
		return store.ReplicaSet{}, err
	}
	out := store.ReplicaSet{Queue: s.Queue, Primary: p, Secondaries: make([]string, len(s.Secondaries)), Version: v}
	for i, x := range s.Secondaries {
		if out.Secondaries[i], err = idOfEVM(x); err != nil {
			return store.ReplicaSet{}, err
		}
	}
	return out, nil
}

// Set reads set(queue).
func (e EVMSets) Set(ctx context.Context, c chain.Chain, queue string) (store.ReplicaSet, bool, error) {
	args, _ := json.Marshal(map[string]string{"queue": queue})
	raw, err := c.Call(ctx, e.Contract, "set", args)
	if errors.Is(err, chain.ErrNotFound) {
		return store.ReplicaSet{}, false, nil
	}
	if err != nil {
		return store.ReplicaSet{}, false, err
	}
	var s evmSet
	if err := json.Unmarshal(raw, &s); err != nil {
		return store.ReplicaSet{}, false, fmt.Errorf("decode: %w", err)
	}
	set, err := s.set()
	return set, err == nil, err
}

// Page reads sets(after, 0): the contract's largest page.
func (e EVMSets) Page(ctx context.Context, c chain.Chain, after string) ([]store.ReplicaSet, string, error) {
	args, _ := json.Marshal(map[string]any{"after_": after, "limit": 0})
	raw, err := c.Call(ctx, e.Contract, "sets", args)
	if err != nil {
		return nil, "", err
	}
	var page struct {
		Items []evmSet `json:"items"`
		Next  string   `json:"next"`
	}
	if err := json.Unmarshal(raw, &page); err != nil {
		return nil, "", fmt.Errorf("decode: %w", err)
	}
	out := make([]store.ReplicaSet, len(page.Items))
	for i, s := range page.Items {
		if out[i], err = s.set(); err != nil {
			return nil, "", err
		}
	}
	return out, page.Next, nil
}

func evmUpdate(signer string, next store.ReplicaSet, replaces uint64) (map[string]any, error) {
	sg, err := evmID(signer)
	if err != nil {
		return nil, err
	}
	p, err := evmID(next.Primary)
	if err != nil {
		return nil, err
	}
	secs := make([]string, len(next.Secondaries))
	for i, s := range next.Secondaries {
		if secs[i], err = evmID(s); err != nil {
			return nil, err
		}
	}
	return map[string]any{"queue": next.Queue, "primary": p, "secondaries": secs, "replaces": strconv.FormatUint(replaces, 10), "signer": sg}, nil
}

// Update returns update(u) from signer's account.
func (e EVMSets) Update(_ ed25519.PrivateKey, signer string, next store.ReplicaSet, replaces uint64) (dispatch.Call, error) {
	u, err := evmUpdate(signer, next, replaces)
	if err != nil {
		return dispatch.Call{}, err
	}
	body, _ := json.Marshal(map[string]any{"u": u})
	return dispatch.Call{Contract: e.Contract, Method: "update", Args: body}, nil
}

// UpdateMany returns updateMany calls of at most EVMSetsBatch updates.
func (e EVMSets) UpdateMany(_ ed25519.PrivateKey, signer string, ups []SetUpdate) ([]dispatch.Call, error) {
	var out []dispatch.Call
	for chunk := range slices.Chunk(ups, EVMSetsBatch) {
		us := make([]map[string]any, len(chunk))
		for i, up := range chunk {
			u, err := evmUpdate(signer, store.ReplicaSet(up.Next), up.Old.Version)
			if err != nil {
				return nil, err
			}
			us[i] = u
		}
		body, _ := json.Marshal(map[string]any{"us": us})
		out = append(out, dispatch.Call{Contract: e.Contract, Method: "update_many", Args: body})
	}
	return out, nil
}
