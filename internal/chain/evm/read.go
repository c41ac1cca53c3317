package evm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/ordolabs/ordo/internal/chain"
)

// Call runs contract.method with args by eth_call at the latest block and
// returns its output as JSON: the value of a single output, an object by
// name of several, null of none; integers as decimal strings. A revert
// with a custom error NotFound(...) is chain.ErrNotFound, another revert
// chain.ErrCallFailed, both wrapping the decoded reason.
func (b *Backend) Call(ctx context.Context, contract, method string, args json.RawMessage) (json.RawMessage, error) {
	if contract == IntentsContract && b.reg.router != nil {
		return b.intentRecord(ctx, method, args)
	}
	e, err := b.reg.contract(contract)
	if err != nil {
		return nil, err
	}
	m, err := e.method(method)
	if err != nil {
		return nil, err
	}
	enc, err := packArgs(m.Inputs, args)
	if err != nil {
		return nil, err
	}
	data := append(append([]byte{}, m.ID...), enc...)
	out, err := call(ctx, b, func(ctx context.Context, c RPC) ([]byte, error) {
		return c.CallContract(ctx, ethereum.CallMsg{To: &e.addr, Data: data}, nil)
	})
	if err != nil {
		if rd, reverted := revertData(err); reverted {
			reason := b.revertReason(e.addr, rd)
			if b.customError(e.addr, rd) == "NotFound" {
				return nil, fmt.Errorf("%w: %s.%s: %s", chain.ErrNotFound, contract, method, reason)
			}
			return nil, fmt.Errorf("%w: %s.%s: %s", chain.ErrCallFailed, contract, method, reason)
		}
		return nil, err
	}
	vals, err := m.Outputs.Unpack(out)
	if err != nil {
		return nil, fmt.Errorf("%w: %s.%s: output: %w", chain.ErrCallFailed, contract, method, err)
	}
	switch len(m.Outputs) {
	case 0:
		return json.RawMessage("null"), nil
	case 1:
		return marshal(jsonOf(m.Outputs[0].Type, vals[0])), nil
	}
	return argsJSON(m.Outputs, vals), nil
}

// maxBlocksPage bounds the blocks one Blocks call returns.
const maxBlocksPage = 64

// Blocks returns the blocks in [from, to] up to the head, at most
// maxBlocksPage of them: each with its transactions decoded back to ordo's
// form (a router transaction's memo and calls; several calls as
// multicall.all) and their outcome as TxStatus says.
func (b *Backend) Blocks(ctx context.Context, from, to uint64) ([]chain.Block, error) {
	head, err := call(ctx, b, func(ctx context.Context, c RPC) (uint64, error) { return c.BlockNumber(ctx) })
	if err != nil {
		return nil, err
	}
	to = min(to, head)
	if from > to {
		return nil, nil
	}
	to = min(to, from+maxBlocksPage-1)
	var out []chain.Block
	for n := from; n <= to; n++ {
		blk, err := b.block(ctx, n)
		if err != nil {
			return nil, err
		}
		out = append(out, blk)
	}
	return out, nil
}

// block reads block n with its receipts.
func (b *Backend) block(ctx context.Context, n uint64) (chain.Block, error) {
	num := new(big.Int).SetUint64(n)
	blk, err := call(ctx, b, func(ctx context.Context, c RPC) (*types.Block, error) { return c.BlockByNumber(ctx, num) })
	if err != nil {
		return chain.Block{}, fmt.Errorf("block %d: %w", n, err)
	}
	receipts, err := b.receipts(ctx, blk)
	if err != nil {
		return chain.Block{}, fmt.Errorf("block %d receipts: %w", n, err)
	}
	h := blk.Header()
	out := chain.Block{BlockHeader: chain.BlockHeader{
		Height: n, Hash: hashOf(blk.Hash()), Parent: hashOf(h.ParentHash),
		Time: timeOf(h.Time), TxCount: len(blk.Transactions()), MinFee: saturate(h.BaseFee),
	}}
	for i, tx := range blk.Transactions() {
		from, err := types.Sender(types.LatestSignerForChainID(b.chainID), tx)
		if err != nil {
			return chain.Block{}, fmt.Errorf("block %d tx %d: sender: %w", n, i, err)
		}
		bt := chain.BlockTx{Hash: hashOf(tx.Hash()), Index: i}
		bt.From, bt.Nonce, bt.Fee, bt.Gas = addressOf(from), tx.Nonce(), saturate(tx.GasFeeCap()), tx.Gas()
		b.reg.decodeTx(&bt.Tx, tx.To(), tx.Data(), tx.Value().String())
		v, r, s := tx.RawSignatureValues()
		sig := make([]byte, 65)
		r.FillBytes(sig[:32])
		s.FillBytes(sig[32:64])
		sig[64] = byte(v.Uint64())
		bt.Signature = hexOf(sig)
		ok, reason := b.outcome(receipts[i], func() *types.Transaction { return tx })
		bt.Status, bt.Reason = chain.OutcomeFailed, reason
		if ok {
			bt.Status = chain.OutcomeSucceeded
		}
		out.Txs = append(out.Txs, bt)
	}
	return out, nil
}

// receipts are blk's receipts: in one call where the endpoint has
// BlockReceipts, else one per transaction.
func (b *Backend) receipts(ctx context.Context, blk *types.Block) ([]*types.Receipt, error) {
	txs := blk.Transactions()
	if len(txs) == 0 {
		return nil, nil
	}
	rs, err := call(ctx, b, func(ctx context.Context, c RPC) ([]*types.Receipt, error) {
		br, ok := c.(blockReceipter)
		if !ok {
			return nil, errNoBlockReceipts
		}
		return br.BlockReceipts(ctx, rpc.BlockNumberOrHashWithHash(blk.Hash(), true))
	})
	if err == nil && len(rs) == len(txs) {
		return rs, nil
	}
	if err != nil && !errors.Is(err, errNoBlockReceipts) {
		return nil, err
	}
	rs = make([]*types.Receipt, len(txs))
	for i, tx := range txs {
		if rs[i], err = call(ctx, b, func(ctx context.Context, c RPC) (*types.Receipt, error) { return c.TransactionReceipt(ctx, tx.Hash()) }); err != nil {
			return nil, err
		}
	}
	return rs, nil
}

// errNoBlockReceipts is an answer, not a transport failure: the endpoint
// has no BlockReceipts, and the receipts are read one by one.
var errNoBlockReceipts = ethereum.NotFound

// Event cursors: (height<<24 | log index) + 1. Stable because Events
// reads only final blocks, whose logs never change.
const cursorShift = 24

func cursorOf(height uint64, logIndex uint) uint64 {
	return (height<<cursorShift | uint64(logIndex)) + 1
}

// logsSpan bounds the blocks of one eth_getLogs.
const logsSpan = 2000

// Events returns up to limit events with a cursor above after, read from
// final blocks only (head − ReorgDepth, or the finalized tag), of the
// router and the configured contracts. Logs whose event the contract's
// ABI does not have are left out; a removed log is never returned.
func (b *Backend) Events(ctx context.Context, after uint64, limit int) ([]chain.Event, error) {
	if limit <= 0 {
		return nil, nil
	}
	final, ok, err := b.finalHeight(ctx)
	if err != nil || !ok {
		return nil, err
	}
	var from uint64
	if after > 0 {
		from = (after - 1) >> cursorShift
	}
	addrs := make([]common.Address, 0, len(b.reg.byAddr))
	for a := range b.reg.byAddr {
		addrs = append(addrs, a)
	}
	if len(addrs) == 0 {
		return nil, nil
	}
	var out []chain.Event
	for from <= final && len(out) < limit {
		to := min(final, from+logsSpan-1)
		q := ethereum.FilterQuery{FromBlock: new(big.Int).SetUint64(from), ToBlock: new(big.Int).SetUint64(to), Addresses: addrs}
		logs, err := call(ctx, b, func(ctx context.Context, c RPC) ([]types.Log, error) { return c.FilterLogs(ctx, q) })
		if err != nil {
			return nil, err
		}
		for i := range logs {
			l := &logs[i]
			cur := cursorOf(l.BlockNumber, l.Index)
			if l.Removed || cur <= after || l.BlockNumber > final {
				continue
			}
			ev, ok := b.event(l)
			if !ok {
				continue
			}
			ev.Cursor = cur
			out = append(out, ev)
			if len(out) == limit {
				break
			}
		}
		from = to + 1
	}
	return out, nil
}

// event decodes a log by its contract's ABI; ok false for a log it does
// not describe.
func (b *Backend) event(l *types.Log) (chain.Event, bool) {
	e, ok := b.reg.byAddr[l.Address]
	if !ok || len(l.Topics) == 0 {
		return chain.Event{}, false
	}
	ae, err := e.abi.EventByID(l.Topics[0])
	if err != nil {
		return chain.Event{}, false
	}
	fields := make(map[string]any, len(ae.Inputs))
	vals, err := ae.Inputs.NonIndexed().Unpack(l.Data)
	if err != nil {
		return chain.Event{}, false
	}
	topic, v := 1, 0
	for i, in := range ae.Inputs {
		key := argName(in.Name, i)
		if !in.Indexed {
			fields[key] = jsonOf(in.Type, vals[v])
			v++
			continue
		}
		if topic >= len(l.Topics) {
			return chain.Event{}, false
		}
		t := l.Topics[topic]
		topic++
		switch in.Type.T {
		case abi.StringTy, abi.BytesTy, abi.SliceTy, abi.ArrayTy, abi.TupleTy:
			fields[key] = hexOf(t[:]) // the value's keccak: all a topic holds
		default:
			x, err := abi.Arguments{{Type: in.Type}}.Unpack(t[:])
			if err != nil || len(x) != 1 {
				return chain.Event{}, false
			}
			fields[key] = jsonOf(in.Type, x[0])
		}
	}
	return chain.Event{
		Height: l.BlockNumber, TxHash: hashOf(l.TxHash), TxIndex: int(l.TxIndex),
		Contract: e.name, Name: ae.Name, Data: marshal(fields),
	}, true
}
