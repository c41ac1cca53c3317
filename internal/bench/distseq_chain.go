package bench

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/chain/evm/contracts"
	"github.com/ordolabs/ordo/internal/chain/evm/evmdev"
)

// confirmReader is how the processes benchmark watches its chain: the
// head, and the IntentConfirmed events it has not handed over yet.
type confirmReader interface {
	// heads streams new heads' heights (nil when the chain offers none).
	heads(ctx context.Context) <-chan chain.BlockHeader
	head(ctx context.Context) (uint64, error)
	// read calls f for each IntentConfirmed event after the last read.
	read(ctx context.Context, f func(group, txID string, height uint64)) error
}

// devchainConfirms reads a devchain's events after a cursor.
type devchainConfirms struct {
	dc     *devchain.Client
	cursor uint64
}

func (d *devchainConfirms) heads(ctx context.Context) <-chan chain.BlockHeader {
	hs, err := d.dc.SubscribeHeads(ctx)
	if err != nil {
		return nil
	}
	return hs
}

func (d *devchainConfirms) head(ctx context.Context) (uint64, error) {
	h, err := d.dc.Head(ctx)
	return h.Height, err
}

func (d *devchainConfirms) read(ctx context.Context, f func(group, txID string, height uint64)) error {
	for {
		evs, err := d.dc.Events(ctx, d.cursor, 0)
		if err != nil {
			return err
		}
		if len(evs) == 0 {
			return nil
		}
		for _, e := range evs {
			d.cursor = e.Cursor
			if ic, ok, err := devchain.IntentConfirmedOf(e); ok && err == nil {
				f(ic.Group, ic.TxID, e.Height)
			}
		}
	}
}

// evmConfirms reads PrivacyGroup's IntentConfirmed logs over plain
// JSON-RPC, block by block up to the head.
type evmConfirms struct {
	ec   *ethclient.Client
	pg   common.Address
	next uint64 // the first block not read yet
}

var privacyGroupABI = contracts.NewPrivacyGroup()

func (*evmConfirms) heads(context.Context) <-chan chain.BlockHeader { return nil }

func (e *evmConfirms) head(ctx context.Context) (uint64, error) { return e.ec.BlockNumber(ctx) }

func (e *evmConfirms) read(ctx context.Context, f func(group, txID string, height uint64)) error {
	h, err := e.ec.BlockNumber(ctx)
	if err != nil || h < e.next {
		return err
	}
	logs, err := e.ec.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: new(big.Int).SetUint64(e.next), ToBlock: new(big.Int).SetUint64(h),
		Addresses: []common.Address{e.pg}, Topics: [][]common.Hash{{privacyGroupABI.GetABI().Events["IntentConfirmed"].ID}}})
	if err != nil {
		return err
	}
	for _, l := range logs {
		if ev, err := privacyGroupABI.UnpackIntentConfirmedEvent(&l); err == nil && !l.Removed {
			f(ev.Group, ev.TxId, l.BlockNumber)
		}
	}
	e.next = h + 1
	return nil
}

// startEVMDev starts the simulated EVM chain of a processes run: a dev
// account per node and one to deploy, blocks every o.BlockTime.
func startEVMDev(ctx context.Context, o DistseqOptions) (*evmdev.Chain, *ethclient.Client, error) {
	if o.Processes+1 > evmdev.MaxAccounts {
		return nil, nil, fmt.Errorf("bench distseq: the simulated chain funds at most %d accounts: %d processes", evmdev.MaxAccounts, o.Processes)
	}
	dev, err := evmdev.Start(ctx, evmdev.Config{HTTPAddr: "127.0.0.1:0", WSAddr: "127.0.0.1:0", BlockTime: o.BlockTime, Accounts: o.Processes + 1})
	if err != nil {
		return nil, nil, fmt.Errorf("bench distseq: the simulated EVM chain: %w", err)
	}
	ec, err := ethclient.DialContext(ctx, dev.HTTPURL)
	if err != nil {
		_ = dev.Close()
		return nil, nil, fmt.Errorf("bench distseq: %w", err)
	}
	return dev, ec, nil
}
