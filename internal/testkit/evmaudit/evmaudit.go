package evmaudit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/ordolabs/ordo/internal/chain/evm/contracts"
)

// LibraryOutcomes reads every router transaction up to the head and counts
// their outcomes (applied, failed, reverted, duplicate, conflict) by the
// Library calls they hold (keyed "act m", "actConfirmed m"). A reverted
// transaction (receipt status 0) is a failure the router's events do not
// show: the out-of-gas guard, when the estimate saw a failing call that
// succeeded at inclusion. problems names a memo applied twice and every
// IntentConflict.
func LibraryOutcomes(ctx context.Context, ec *ethclient.Client, router, library common.Address) (map[string]map[string]int, []string, error) {
	rabi, labi := contracts.NewOrdoRouter().GetABI(), contracts.NewLibrary().GetABI()
	execute := rabi.Methods["execute"]
	events := map[common.Hash]string{}
	for name, kind := range map[string]string{"IntentApplied": "applied", "IntentFailed": "failed", "IntentDuplicate": "duplicate", "IntentConflict": "conflict"} {
		events[rabi.Events[name].ID] = kind
	}
	head, err := ec.BlockNumber(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("evmaudit: head: %w", err)
	}
	out := map[string]map[string]int{}
	applied := map[string]int{}
	var problems []string
	for n := uint64(1); n <= head; n++ {
		b, err := ec.BlockByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			return nil, nil, fmt.Errorf("evmaudit: block %d: %w", n, err)
		}
		for _, tx := range b.Transactions() {
			if tx.To() == nil || *tx.To() != router || len(tx.Data()) < 4 || !bytes.Equal(tx.Data()[:4], execute.ID) {
				continue
			}
			args, err := execute.Inputs.Unpack(tx.Data()[4:])
			if err != nil {
				return nil, nil, fmt.Errorf("evmaudit: %s: %w", tx.Hash().Hex(), err)
			}
			var calls []struct {
				Target common.Address `json:"target"`
				Data   []byte         `json:"data"`
			}
			raw, err := json.Marshal(args[1])
			if err == nil {
				err = json.Unmarshal(raw, &calls)
			}
			if err != nil {
				return nil, nil, fmt.Errorf("evmaudit: decoding the calls of %s: %w", tx.Hash().Hex(), err)
			}
			r, err := ec.TransactionReceipt(ctx, tx.Hash())
			if err != nil {
				return nil, nil, fmt.Errorf("evmaudit: receipt of %s: %w", tx.Hash().Hex(), err)
			}
			kind := "reverted"
			for _, l := range r.Logs {
				if k, ok := events[l.Topics[0]]; ok && l.Address == router && r.Status == types.ReceiptStatusSuccessful {
					kind = k
				}
			}
			memo, _ := args[0].(string)
			switch kind {
			case "applied":
				if applied[memo]++; applied[memo] > 1 {
					problems = append(problems, fmt.Sprintf("memo %s applied twice", memo))
				}
			case "conflict":
				problems = append(problems, fmt.Sprintf("memo %s: IntentConflict in block %d", memo, n))
			}
			for _, c := range calls {
				m, err := labi.MethodById(c.Data)
				if c.Target != library || err != nil {
					continue
				}
				v, err := m.Inputs.Unpack(c.Data[4:])
				if err != nil {
					return nil, nil, fmt.Errorf("evmaudit: a library call of %s: %w", tx.Hash().Hex(), err)
				}
				key := m.Name + " " + v[0].(string)
				if out[key] == nil {
					out[key] = map[string]int{}
				}
				out[key][kind]++
			}
		}
	}
	return out, problems, nil
}
