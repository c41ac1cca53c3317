package evm

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/ordolabs/ordo/internal/chain"
)

// SendTx rebuilds tx's signed EIP-1559 transaction from its fields and
// signature, checks that it recovers to tx.From (else ErrBadSignature) and
// sends it raw. A node's refusal is one of the seam's errors (sendErrors);
// "already known" is accepted.
func (b *Backend) SendTx(ctx context.Context, tx chain.Tx) (chain.Hash, error) {
	tx.Args = chain.CanonicalArgs(tx.Args)
	signed, err := b.signer.signed(tx)
	if err != nil {
		return "", err
	}
	err = b.do(ctx, func(ctx context.Context, c RPC) error { return c.SendTransaction(ctx, signed) })
	if err := sendError(err); err != nil {
		return "", err
	}
	from, _ := types.Sender(b.signer.signer, signed) // checked by signed
	b.remember(signed.Hash(), sentTx{from: from, nonce: signed.Nonce()})
	return hashOf(signed.Hash()), nil
}

// remember keeps what was sent at h, forgetting the oldest past maxSent.
func (b *Backend) remember(h common.Hash, s sentTx) {
	b.sentMu.Lock()
	defer b.sentMu.Unlock()
	if _, ok := b.sent[h]; ok {
		return
	}
	b.sent[h] = s
	b.sentOrder = append(b.sentOrder, h)
	if len(b.sentOrder) > maxSent {
		delete(b.sent, b.sentOrder[0])
		b.sentOrder = b.sentOrder[1:]
	}
}

func (b *Backend) recall(h common.Hash) (sentTx, bool) {
	b.sentMu.Lock()
	defer b.sentMu.Unlock()
	s, ok := b.sent[h]
	return s, ok
}

// TxStatus reports a transaction by hash: included with its outcome (the
// router's event in the receipt: see outcome), pending in a pool, dropped
// when this backend sent it and its sender's nonce has passed it, unknown
// otherwise.
func (b *Backend) TxStatus(ctx context.Context, h chain.Hash) (chain.TxStatus, error) {
	hash, ok := parseHash(h)
	if !ok {
		return chain.TxStatus{Hash: h, State: chain.TxUnknown}, nil
	}
	r, err := call(ctx, b, func(ctx context.Context, c RPC) (*types.Receipt, error) { return c.TransactionReceipt(ctx, hash) })
	switch {
	case err == nil:
		var txErr error
		txOf := func() *types.Transaction { // only a failed intent needs its calls
			tx, _, err := call2(ctx, b, func(ctx context.Context, c RPC) (*types.Transaction, bool, error) {
				return c.TransactionByHash(ctx, hash)
			})
			if err != nil && !errors.Is(err, ethereum.NotFound) {
				txErr = err
			}
			return tx
		}
		st := chain.TxStatus{Hash: h, State: chain.TxIncluded, Height: r.BlockNumber.Uint64(), Index: int(r.TransactionIndex)}
		st.Success, st.Reason = b.outcome(r, txOf)
		if txErr != nil {
			return chain.TxStatus{}, txErr
		}
		return st, nil
	case !errors.Is(err, ethereum.NotFound):
		return chain.TxStatus{}, err
	}
	_, pending, err := call2(ctx, b, func(ctx context.Context, c RPC) (*types.Transaction, bool, error) {
		return c.TransactionByHash(ctx, hash)
	})
	switch {
	case err == nil && pending:
		return chain.TxStatus{Hash: h, State: chain.TxPending}, nil
	case err == nil:
		// Known and not pending, but no receipt yet (a node still
		// indexing): as good as pending.
		return chain.TxStatus{Hash: h, State: chain.TxPending}, nil
	case !errors.Is(err, ethereum.NotFound):
		return chain.TxStatus{}, err
	}
	if s, ok := b.recall(hash); ok {
		n, err := call(ctx, b, func(ctx context.Context, c RPC) (uint64, error) { return c.NonceAt(ctx, s.from, nil) })
		if err != nil {
			return chain.TxStatus{}, err
		}
		if n > s.nonce {
			return chain.TxStatus{Hash: h, State: chain.TxDropped,
				Reason: fmt.Sprintf("another transaction took nonce %d of %s (a replacement, or a resend with other fields)", s.nonce, addressOf(s.from))}, nil
		}
	}
	return chain.TxStatus{Hash: h, State: chain.TxUnknown}, nil
}

// call2 is do for a call with two results.
func call2[T, U any](ctx context.Context, b *Backend, fn func(ctx context.Context, c RPC) (T, U, error)) (T, U, error) {
	var t T
	var u U
	err := b.do(ctx, func(ctx context.Context, c RPC) error {
		var err error
		t, u, err = fn(ctx, c)
		return err
	})
	return t, u, err
}

// revertData is the revert data of a JSON-RPC error (an eth_call or
// eth_estimateGas that reverted), and whether it is a revert at all.
func revertData(err error) ([]byte, bool) {
	var de rpc.DataError
	if errors.As(err, &de) {
		if s, ok := de.ErrorData().(string); ok {
			return common.FromHex(s), true
		}
	}
	var re rpc.Error
	if errors.As(err, &re) && (re.ErrorCode() == 3 || strings.Contains(err.Error(), "execution reverted")) {
		return nil, true
	}
	return nil, false
}

// EstimateGas is tx's gas limit: the estimate × GasMarginPercent. An
// intent is estimated on executeStrict, which reverts where execute would
// catch a failure (so the estimate covers the calls' success); when the
// strict path reverts (the intent fails, or is a duplicate), on execute,
// which records the outcome without reverting.
func (b *Backend) EstimateGas(ctx context.Context, tx chain.Tx) (uint64, error) {
	from, err := parseAddress(tx.From)
	if err != nil {
		return 0, err
	}
	tx.Args = chain.CanonicalArgs(tx.Args)
	to, data, err := b.reg.encode(tx, tx.Memo != "")
	if err != nil {
		return 0, err
	}
	est := func(data []byte) (uint64, error) {
		return call(ctx, b, func(ctx context.Context, c RPC) (uint64, error) {
			return c.EstimateGas(ctx, ethereum.CallMsg{From: from, To: &to, Data: data})
		})
	}
	g, err := est(data)
	if _, reverted := revertData(err); reverted && tx.Memo != "" {
		_, data, err = b.reg.encode(tx, false)
		if err != nil {
			return 0, err
		}
		g, err = est(data)
	}
	if err != nil {
		if rd, reverted := revertData(err); reverted {
			return 0, fmt.Errorf("%w: the transaction reverts: %s", chain.ErrCallFailed, b.revertReason(to, rd))
		}
		return 0, err
	}
	m := new(big.Int).Mul(new(big.Int).SetUint64(g), new(big.Int).SetUint64(b.cfg.GasMarginPercent))
	m.Div(m, big.NewInt(100))
	return saturate(m), nil
}
