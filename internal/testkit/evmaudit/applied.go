package evmaudit

import (
	"bytes"
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/ordolabs/ordo/internal/chain/evm/contracts"
)

// AppliedMemos reads every router transaction up to the head and returns
// the memos the router applied (IntentApplied in a successful receipt), in
// the order the chain applied them. problems names a memo applied twice
// and every IntentConflict.
func AppliedMemos(ctx context.Context, ec *ethclient.Client, router common.Address) ([]string, []string, error) {
	rabi := contracts.NewOrdoRouter().GetABI()
	execute := rabi.Methods["execute"]
	appliedID, conflictID := rabi.Events["IntentApplied"].ID, rabi.Events["IntentConflict"].ID
	head, err := ec.BlockNumber(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("evmaudit: head: %w", err)
	}
	var order, problems []string
	seen := map[string]bool{}
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
			memo, _ := args[0].(string)
			r, err := ec.TransactionReceipt(ctx, tx.Hash())
			if err != nil {
				return nil, nil, fmt.Errorf("evmaudit: receipt of %s: %w", tx.Hash().Hex(), err)
			}
			if r.Status != types.ReceiptStatusSuccessful {
				continue
			}
			for _, l := range r.Logs {
				switch {
				case l.Address != router || len(l.Topics) == 0:
				case l.Topics[0] == appliedID:
					if seen[memo] {
						problems = append(problems, fmt.Sprintf("memo %s applied twice (again in block %d)", memo, n))
					}
					seen[memo] = true
					order = append(order, memo)
				case l.Topics[0] == conflictID:
					problems = append(problems, fmt.Sprintf("memo %s: IntentConflict in block %d", memo, n))
				}
			}
		}
	}
	return order, problems, nil
}
