package evm

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/ordolabs/ordo/internal/chain"
)

// IntentsContract is the name Call answers devchain's intents read under
// when a router is configured: get {uid} is the router's record of the
// intent whose memo is uid (records(keccak256(uid))), as devchain's
// IntentRecord {uid, hash, height}: height the block that applied it,
// hash the transaction whose IntentApplied event recorded it. A uid never
// applied is chain.ErrNotFound. The name is reserved: a configured
// contract of that name is never called.
const IntentsContract = "intents"

// intentRecord answers intents.get from the router.
func (b *Backend) intentRecord(ctx context.Context, method string, args json.RawMessage) (json.RawMessage, error) {
	if method != "get" {
		return nil, fmt.Errorf("%w: %s has no method %s (only get)", chain.ErrUnknownMethod, IntentsContract, method)
	}
	var a struct {
		UID string `json:"uid"`
	}
	if err := json.Unmarshal(args, &a); err != nil || a.UID == "" {
		return nil, fmt.Errorf(`%w: intents.get args are {"uid": "…"}`, chain.ErrInvalidTx)
	}
	uid := crypto.Keccak256Hash([]byte(a.UID))
	raw, err := b.Call(ctx, RouterName, "records", json.RawMessage(`{"uid":"`+uid.Hex()+`"}`))
	if err != nil {
		return nil, err
	}
	var r struct {
		AppliedAt string `json:"appliedAt"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("%w: router.records: %w", chain.ErrCallFailed, err)
	}
	height, err := strconv.ParseUint(r.AppliedAt, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("%w: router.records: appliedAt %q", chain.ErrCallFailed, r.AppliedAt)
	}
	if height == 0 {
		return nil, fmt.Errorf("%w: intents: %q was never applied", chain.ErrNotFound, a.UID)
	}
	at := new(big.Int).SetUint64(height)
	q := ethereum.FilterQuery{FromBlock: at, ToBlock: at, Addresses: []common.Address{b.reg.router.addr},
		Topics: [][]common.Hash{{routerABI.Events["IntentApplied"].ID}, {uid}}}
	logs, err := call(ctx, b, func(ctx context.Context, c RPC) ([]types.Log, error) { return c.FilterLogs(ctx, q) })
	if err != nil {
		return nil, err
	}
	var hash chain.Hash
	for _, l := range logs {
		if !l.Removed {
			hash = chain.Hash(l.TxHash.Hex())
		}
	}
	return marshal(map[string]any{"uid": a.UID, "hash": hash, "height": height}), nil
}
