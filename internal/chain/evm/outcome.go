package evm

import (
	"bytes"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/ordolabs/ordo/internal/chain"
)

// ReasonIntentConflict is the failure reason of a router transaction
// whose intent (memo) was applied before with other calls: the router ran
// nothing, and the intent is not taken as applied.
const ReasonIntentConflict = "intent_conflict"

// ReasonReverted is the failure reason of a transaction whose receipt
// says it reverted (status 0): for a router transaction, the router's
// OutOfGas (the gas limit was too small to tell the intent's outcome).
const ReasonReverted = "reverted"

// Router event IDs.
var (
	evApplied   = routerABI.Events["IntentApplied"].ID
	evDuplicate = routerABI.Events["IntentDuplicate"].ID
	evConflict  = routerABI.Events["IntentConflict"].ID
	evFailed    = routerABI.Events["IntentFailed"].ID
)

// outcome reads an included transaction's outcome from its receipt and
// the transaction (txOf, called only for a failed intent; nil when
// unknown): for an intent, the router's event:
// IntentApplied succeeded; IntentDuplicate failed with
// chain.ReasonDuplicateIntent (applied before: the sequencer takes it as
// applied); IntentConflict failed with ReasonIntentConflict;
// IntentFailed(index, reason) failed with "call <index>
// (<contract>.<method>): <decoded revert>". Status 0 failed with
// ReasonReverted. Any other transaction succeeded with status 1.
func (b *Backend) outcome(r *types.Receipt, txOf func() *types.Transaction) (bool, string) {
	if r.Status != types.ReceiptStatusSuccessful {
		return false, ReasonReverted
	}
	if b.reg.router == nil {
		return true, ""
	}
	for _, l := range r.Logs {
		if l.Address != b.reg.router.addr || len(l.Topics) == 0 {
			continue
		}
		switch l.Topics[0] {
		case evApplied:
			return true, ""
		case evDuplicate:
			return false, chain.ReasonDuplicateIntent
		case evConflict:
			return false, ReasonIntentConflict
		case evFailed:
			return false, b.failedReason(l, txOf())
		}
	}
	return true, ""
}

// failedReason renders an IntentFailed event: "call <index>
// (<contract>.<method>): <reason>", the call named from tx's calldata.
func (b *Backend) failedReason(l *types.Log, tx *types.Transaction) string {
	vals, err := routerABI.Events["IntentFailed"].Inputs.NonIndexed().Unpack(l.Data)
	if err != nil || len(vals) != 2 {
		return "call failed (an IntentFailed event that does not decode)"
	}
	index, _ := vals[0].(*big.Int)
	reason, _ := vals[1].([]byte)
	if index == nil || !index.IsUint64() || index.Uint64() > 1<<20 {
		return "router: " + b.revertReason(b.reg.router.addr, reason)
	}
	i := index.Uint64()
	var target common.Address
	name := "?"
	if tx != nil {
		if in, err := b.reg.decodeIntent(tx.To(), tx.Data()); err == nil && i < uint64(len(in.calls)) {
			target, name = in.calls[i].Target, b.reg.callName(in.calls[i])
		}
	}
	return fmt.Sprintf("call %d (%s): %s", i, name, b.revertReason(target, reason))
}

// revertReason decodes revert data: Error(string) as its text,
// Panic(uint256) as "panic 0x11", a custom error of the target's ABI (or
// of the router's) as Name(args), anything else as 0x hex ("" as "no
// reason").
func (b *Backend) revertReason(target common.Address, data []byte) string {
	if len(data) == 0 {
		return "no reason"
	}
	if len(data) >= 4 {
		if bytes.Equal(data[:4], errorSelector) || bytes.Equal(data[:4], panicSelector) {
			if s, err := abi.UnpackRevert(data); err == nil {
				if bytes.Equal(data[:4], panicSelector) {
					return "panic: " + s
				}
				return s
			}
		}
		var id [4]byte
		copy(id[:], data[:4])
		abis := []*abi.ABI{}
		if e, ok := b.reg.byAddr[target]; ok {
			abis = append(abis, &e.abi)
		}
		if b.reg.router != nil {
			abis = append(abis, &b.reg.router.abi)
		}
		for _, a := range abis {
			if e, err := a.ErrorByID(id); err == nil {
				if vals, err := e.Inputs.Unpack(data[4:]); err == nil {
					return e.Name + "(" + renderArgs(e.Inputs, vals) + ")"
				}
			}
		}
	}
	return hexOf(data)
}

var (
	errorSelector = []byte{0x08, 0xc3, 0x79, 0xa0} // Error(string)
	panicSelector = []byte{0x4e, 0x48, 0x7b, 0x71} // Panic(uint256)
)

// customError is the name of the custom error in data, by target's ABI,
// or "".
func (b *Backend) customError(target common.Address, data []byte) string {
	if len(data) < 4 {
		return ""
	}
	e, ok := b.reg.byAddr[target]
	if !ok {
		return ""
	}
	var id [4]byte
	copy(id[:], data[:4])
	if ae, err := e.abi.ErrorByID(id); err == nil {
		return ae.Name
	}
	return ""
}
