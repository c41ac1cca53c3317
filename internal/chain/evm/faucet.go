package evm

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/ordolabs/ordo/internal/chain"
)

// faucetPoll is how often the faucet key's transactions are looked for in
// receipts.
const faucetPoll = 100 * time.Millisecond

// Faucet transfers amount wei to addr from Config.FaucetKey (a funded key
// of a development chain) and waits for the transfer's inclusion; it
// returns addr's account then. Without a faucet key it answers
// chain.ErrNotDevMode.
func (b *Backend) Faucet(ctx context.Context, addr chain.Address, amount uint64) (chain.Account, error) {
	to, err := parseAddress(addr)
	if err != nil {
		return chain.Account{}, err
	}
	if err := b.faucetDo(ctx, "transfer", to, new(big.Int).SetUint64(amount), nil); err != nil {
		return chain.Account{}, err
	}
	return b.Account(ctx, addr)
}

// AuthorizeSubmitter lets addr submit through the router, with
// Config.FaucetKey (a development chain where that key owns the router, as
// ordo evmdev's dev account 0 does): a node authorizes its dev senders so.
// An account the router lets submit already costs nothing. Without a
// faucet key it answers chain.ErrNotDevMode; a faucet key that does not
// own the router fails (the router reverts NotOwner).
func (b *Backend) AuthorizeSubmitter(ctx context.Context, addr chain.Address) error {
	a, err := parseAddress(addr)
	if err != nil {
		return err
	}
	r := b.reg.router
	if r == nil {
		return fmt.Errorf("%w: no router is configured", chain.ErrInvalidTx)
	}
	q, err := r.abi.Pack("isSubmitter", a)
	if err != nil {
		return err
	}
	out, err := call(ctx, b, func(ctx context.Context, c RPC) ([]byte, error) {
		return c.CallContract(ctx, ethereum.CallMsg{To: &r.addr, Data: q}, nil)
	})
	if err != nil {
		return fmt.Errorf("router isSubmitter: %w", err)
	}
	if len(out) == 32 && out[31] == 1 {
		return nil
	}
	data, err := r.abi.Pack("setSubmitter", a, true)
	if err != nil {
		return err
	}
	return b.faucetDo(ctx, "setSubmitter", r.addr, new(big.Int), data)
}

// faucetDo sends one transaction from the faucet key (one at a time) and
// waits for its successful inclusion.
func (b *Backend) faucetDo(ctx context.Context, what string, to common.Address, value *big.Int, data []byte) error {
	if b.cfg.FaucetKey == nil {
		return fmt.Errorf("%w: no faucet key is configured", chain.ErrNotDevMode)
	}
	tx, err := b.faucetTx(ctx, to, value, data)
	if err != nil {
		return fmt.Errorf("faucet %s: %w", what, err)
	}
	for {
		r, err := call(ctx, b, func(ctx context.Context, c RPC) (*types.Receipt, error) { return c.TransactionReceipt(ctx, tx.Hash()) })
		if err == nil {
			if r.Status != types.ReceiptStatusSuccessful {
				return fmt.Errorf("%w: the faucet's %s %s failed", chain.ErrRejected, what, tx.Hash().Hex())
			}
			return nil
		}
		if !errors.Is(err, ethereum.NotFound) {
			return err
		}
		t := b.cfg.Clock.NewTimer(faucetPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("the faucet's %s %s not included: %w", what, tx.Hash().Hex(), ctx.Err())
		case <-t.C():
		}
	}
}

// faucetTx signs and sends a transaction of the faucet key, one at a time.
// Its gas limit is the chain's estimate times GasMarginPercent: a fixed
// limit would not fit every fork (under go-ethereum's Amsterdam rules, which
// geth --dev runs, setSubmitter used 129,760 gas, and 47,740 through Osaka).
func (b *Backend) faucetTx(ctx context.Context, to common.Address, value *big.Int, data []byte) (*types.Transaction, error) {
	b.faucetMu.Lock()
	defer b.faucetMu.Unlock()
	k := b.cfg.FaucetKey
	from := crypto.PubkeyToAddress(k.PublicKey)
	nonce, err := call(ctx, b, func(ctx context.Context, c RPC) (uint64, error) { return c.PendingNonceAt(ctx, from) })
	if err != nil {
		return nil, err
	}
	fee, err := b.MinFee(ctx)
	if err != nil {
		return nil, err
	}
	gas, err := call(ctx, b, func(ctx context.Context, c RPC) (uint64, error) {
		return c.EstimateGas(ctx, ethereum.CallMsg{From: from, To: &to, Value: value, Data: data})
	})
	if err != nil {
		return nil, fmt.Errorf("estimating its gas: %w", err)
	}
	gas = gas * b.cfg.GasMarginPercent / 100
	tx, err := types.SignNewTx(k, b.signer.signer, &types.DynamicFeeTx{
		ChainID: b.chainID, Nonce: nonce, GasTipCap: b.signer.tip(fee), GasFeeCap: new(big.Int).SetUint64(fee),
		Gas: gas, To: &to, Value: value, Data: data,
	})
	if err != nil {
		return nil, err
	}
	err = b.do(ctx, func(ctx context.Context, c RPC) error { return c.SendTransaction(ctx, tx) })
	if err := sendError(err); err != nil {
		return nil, err
	}
	return tx, nil
}
