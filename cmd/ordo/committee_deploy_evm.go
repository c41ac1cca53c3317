package main

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"path/filepath"
	"sort"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/ordolabs/ordo/internal/chain/evm"
	"github.com/ordolabs/ordo/internal/chain/evm/contracts"
	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/distseq/evmledger"
	"github.com/ordolabs/ordo/internal/distseq/token"
	"github.com/ordolabs/ordo/internal/identity"
	"github.com/ordolabs/ordo/internal/node"
)

// evmCommittee is what `ordo committee deploy` needs of an EVM committee:
// its chain (node1's evm: section) and each member's id and endorsing
// address, derived from its identity key.
type evmCommittee struct {
	url     string
	group   common.Address
	members []contracts.PrivacyGroupMember
}

// evmCommitteeOf reads DIR/node1/node.yaml's evm: section; ok is false
// when the committee is on a devchain.
func evmCommitteeOf(out string) (evmCommittee, bool, error) {
	cfgs, err := filepath.Glob(filepath.Join(out, "node*", "node.yaml"))
	if err != nil || len(cfgs) == 0 {
		return evmCommittee{}, false, fmt.Errorf("no node*/node.yaml under %s: run ordo committee init --out %s first", out, out)
	}
	sort.Strings(cfgs)
	c, err := node.LoadConfig(cfgs[0])
	if err != nil {
		return evmCommittee{}, false, err
	}
	if len(c.EVM.URLs) == 0 {
		return evmCommittee{}, false, nil
	}
	pg, ok := c.EVM.Contracts[evmledger.Contract]
	if !ok {
		return evmCommittee{}, true, fmt.Errorf("%s: no evm.contracts.%s", cfgs[0], evmledger.Contract)
	}
	e := evmCommittee{url: c.EVM.URLs[len(c.EVM.URLs)-1], group: common.HexToAddress(pg.Address)}
	for _, u := range c.EVM.URLs { // HTTP when there is one
		if len(u) > 4 && u[:4] == "http" {
			e.url = u
			break
		}
	}
	keys, _ := filepath.Glob(filepath.Join(out, "node*", "node.key"))
	sort.Strings(keys)
	for _, kp := range keys {
		k, _, err := identity.Load(kp, filepath.Join(filepath.Dir(kp), "node.crt"))
		if err != nil {
			return evmCommittee{}, true, err
		}
		a, err := evmledger.EndorsingAddress(k.Private)
		if err != nil {
			return evmCommittee{}, true, err
		}
		e.members = append(e.members, contracts.PrivacyGroupMember{Id: string(k.ID()), Signer: common.HexToAddress(a)})
	}
	return e, true, nil
}

// deployGroupEVM deploys the group on the committee's PrivacyGroup and
// mints its coins, from keyFile's account (the group's deployer), waiting
// for each receipt.
func deployGroupEVM(ctx context.Context, e evmCommittee, keyFile, group string, threshold, coins int, amount uint64, owner string) error {
	key, err := evm.LoadKey(keyFile, "")
	if err != nil {
		return fmt.Errorf("--key-file: %w", err)
	}
	ec, err := ethclient.DialContext(ctx, e.url)
	if err != nil {
		return fmt.Errorf("dial %s: %w", e.url, err)
	}
	defer ec.Close()
	pg := contracts.NewPrivacyGroup()
	if err := evmSendWait(ctx, ec, key, e.group, pg.PackDeploy(group, e.members, uint8(threshold))); err != nil {
		return fmt.Errorf("deploy: %w", err)
	}
	var all []distseq.StateRef
	for _, m := range e.members {
		all = append(all, token.Mint(group+"-coin-"+m.Id+"-", owner+"@"+m.Id, repeat(amount, coins)...)...)
	}
	for len(all) > 0 {
		n := min(len(all), 64) // PrivacyGroup's MAX_IO
		ps := make([]contracts.PrivacyGroupState, n)
		for i, s := range all[:n] {
			ps[i] = contracts.PrivacyGroupState{Id: s.ID, Owner: s.Owner, Data: string(s.Data)}
		}
		if err := evmSendWait(ctx, ec, key, e.group, pg.PackMint(group, ps)); err != nil {
			return fmt.Errorf("mint: %w", err)
		}
		all = all[n:]
	}
	return nil
}

// evmSendWait sends data to `to` from key at the chain's fees with its gas
// estimate plus a fifth, and waits up to a minute for a successful receipt.
func evmSendWait(ctx context.Context, ec *ethclient.Client, key *ecdsa.PrivateKey, to common.Address, data []byte) error {
	from := crypto.PubkeyToAddress(key.PublicKey)
	id, err := ec.ChainID(ctx)
	if err != nil {
		return err
	}
	nonce, err := ec.PendingNonceAt(ctx, from)
	if err != nil {
		return err
	}
	tip, err := ec.SuggestGasTipCap(ctx)
	if err != nil {
		return err
	}
	head, err := ec.HeaderByNumber(ctx, nil)
	if err != nil {
		return err
	}
	feeCap := new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
	gas, err := ec.EstimateGas(ctx, ethereum.CallMsg{From: from, To: &to, Data: data})
	if err != nil {
		return fmt.Errorf("estimating gas (a revert says why): %w", err)
	}
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(id), &types.DynamicFeeTx{ChainID: id, Nonce: nonce,
		GasTipCap: tip, GasFeeCap: feeCap, Gas: gas + gas/5, To: &to, Data: data})
	if err != nil {
		return err
	}
	if err := ec.SendTransaction(ctx, tx); err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		r, err := ec.TransactionReceipt(wctx, tx.Hash())
		switch {
		case err == nil && r.Status != types.ReceiptStatusSuccessful:
			return fmt.Errorf("transaction %s reverted", tx.Hash().Hex())
		case err == nil:
			return nil
		case !errors.Is(err, ethereum.NotFound):
			return err
		}
		select {
		case <-wctx.Done():
			return fmt.Errorf("no receipt for %s: %w", tx.Hash().Hex(), wctx.Err())
		case <-time.After(200 * time.Millisecond): // polling for the receipt
		}
	}
}
