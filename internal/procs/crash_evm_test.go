package procs_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/ordolabs/ordo/internal/chain/evm/contracts"
	"github.com/ordolabs/ordo/internal/chain/evm/evmdev"
	"github.com/ordolabs/ordo/internal/procs"
	"github.com/ordolabs/ordo/internal/testkit"
)

// TestCrashCoordinatorOnEVM is TestCrashCoordinator on an EVM chain: an
// evmdev chain started in this process (loopback JSON-RPC), 4 ordo serve
// processes set up by `ordo committee init --evm-config` and `ordo
// committee deploy --key-file`, endorsing with secp256k1 keys the
// PrivacyGroup contract checks. The audit reads the chain over plain
// JSON-RPC (go-ethereum's ethclient and PrivacyGroup's binding), not
// through ordo's backend.
func TestCrashCoordinatorOnEVM(t *testing.T) {
	testkit.NeedLong(t, "a committee and an EVM chain as processes, the coordinator killed -9")
	dev, err := evmdev.Start(t.Context(), evmdev.Config{HTTPAddr: "127.0.0.1:0", WSAddr: "127.0.0.1:0", BlockTime: 200 * time.Millisecond, Accounts: 5})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dev.Close() })
	c := startCommittee(t, procs.Config{Nodes: 4, BlockTime: 200 * time.Millisecond, Coins: 100, RangeSize: 50, EVM: procs.EVMDev(dev)})
	ec, err := ethclient.DialContext(t.Context(), dev.HTTPURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ec.Close)
	// One sender's confirms through the router, each estimated first, land
	// at about 7 a second here (devchain's coordinator: many more), so the
	// load is a quarter of devchain's and the backlog gets longer to settle.
	crashCoordinator(t, c, evmAudit{ec: ec, pg: dev.PrivacyGroup}, 250*time.Millisecond, 3*time.Minute)
}

// evmAudit reads PrivacyGroup over plain JSON-RPC.
type evmAudit struct {
	ec *ethclient.Client
	pg common.Address
}

var pgABI = contracts.NewPrivacyGroup()

// confirmed reads every IntentConfirmed log of the contract (eth_getLogs),
// decoded by its binding.
func (a evmAudit) confirmed(ctx context.Context, group string) (onChain, error) {
	out := onChain{confirmed: map[string]int{}, spentBy: map[string][]string{}, creates: map[string][]string{}}
	logs, err := a.ec.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: big.NewInt(0), Addresses: []common.Address{a.pg},
		Topics: [][]common.Hash{{pgABI.GetABI().Events["IntentConfirmed"].ID}}})
	if err != nil {
		return out, fmt.Errorf("eth_getLogs: %w", err)
	}
	for _, l := range logs {
		if l.Removed {
			continue
		}
		e, err := pgABI.UnpackIntentConfirmedEvent(&l)
		if err != nil {
			return out, err
		}
		if e.Group != group {
			continue
		}
		out.confirmed[e.TxId]++
		out.creates[e.TxId] = e.Creates
		for _, s := range e.Spends {
			out.spentBy[s] = append(out.spentBy[s], e.TxId)
		}
	}
	return out, nil
}

// intent calls intentOf (eth_call): a NotFound revert is not confirmed.
func (a evmAudit) intent(ctx context.Context, group, txID string) (bool, error) {
	_, err := a.ec.CallContract(ctx, ethereum.CallMsg{To: &a.pg, Data: pgABI.PackIntentOf(group, txID)}, nil)
	if err == nil {
		return true, nil
	}
	var de interface{ ErrorData() any }
	if errors.As(err, &de) {
		if s, ok := de.ErrorData().(string); ok {
			if v, uerr := pgABI.UnpackError(common.FromHex(s)); uerr == nil {
				if _, nf := v.(*contracts.PrivacyGroupNotFound); nf {
					return false, nil
				}
			}
		}
	}
	return false, fmt.Errorf("intentOf %s: %w", txID, err)
}
