package evmaudit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/ordolabs/ordo/internal/chain/evm/contracts"
)

// Submit is one submitResult of the workflow found in a block: sent
// through the router (Memo set) or directly.
type Submit struct {
	Height uint64
	// From is the transaction's sender: the router's submitter, the
	// workflow's caller.
	From common.Address
	// OK is the result's ok argument.
	OK bool
	// Success says the call took effect: the router applied the intent, or
	// the direct transaction succeeded.
	Success bool
	// Reason is a failure's Error(string) text (already_reported, …),
	// "reverted" for a failed receipt, or the router's outcome (duplicate,
	// conflict).
	Reason string
	Memo   string
}

// WorkflowTxs reads every block up to the head: requests counts, by walk,
// the successful request transactions sent to workflow directly or
// through the router; submits lists every submitResult by walk with its
// outcome. problems names a memo applied twice and every IntentConflict.
func WorkflowTxs(ctx context.Context, ec *ethclient.Client, router, workflow common.Address) (requests map[string]int, submits map[string][]Submit, problems []string, err error) {
	rabi, wabi := contracts.NewOrdoRouter().GetABI(), contracts.NewWorkflow().GetABI()
	execute := rabi.Methods["execute"]
	events := map[common.Hash]string{}
	for name, kind := range map[string]string{"IntentApplied": "applied", "IntentFailed": "failed", "IntentDuplicate": "duplicate", "IntentConflict": "conflict"} {
		events[rabi.Events[name].ID] = kind
	}
	id, err := ec.ChainID(ctx)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("evmaudit: chain id: %w", err)
	}
	signer := types.LatestSignerForChainID(id)
	head, err := ec.BlockNumber(ctx)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("evmaudit: head: %w", err)
	}
	requests, submits = map[string]int{}, map[string][]Submit{}
	applied := map[string]int{}
	// one records a workflow call: its method, args, sender and outcome.
	one := func(data []byte, s Submit) error {
		m, err := wabi.MethodById(data)
		if err != nil {
			return nil // not a workflow method
		}
		v, err := m.Inputs.Unpack(data[4:])
		if err != nil {
			return fmt.Errorf("a workflow call in block %d: %w", s.Height, err)
		}
		walk, _ := v[0].(string)
		switch m.Name {
		case "request":
			if s.Success {
				requests[walk]++
			}
		case "submitResult":
			s.OK, _ = v[1].(bool)
			submits[walk] = append(submits[walk], s)
		}
		return nil
	}
	for n := uint64(1); n <= head; n++ {
		b, err := ec.BlockByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			return nil, nil, nil, fmt.Errorf("evmaudit: block %d: %w", n, err)
		}
		for _, tx := range b.Transactions() {
			to := tx.To()
			if to == nil || (*to != router && *to != workflow) || len(tx.Data()) < 4 {
				continue
			}
			from, err := types.Sender(signer, tx)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("evmaudit: sender of %s: %w", tx.Hash().Hex(), err)
			}
			r, err := ec.TransactionReceipt(ctx, tx.Hash())
			if err != nil {
				return nil, nil, nil, fmt.Errorf("evmaudit: receipt of %s: %w", tx.Hash().Hex(), err)
			}
			s := Submit{Height: n, From: from, Success: r.Status == types.ReceiptStatusSuccessful}
			if !s.Success {
				s.Reason = "reverted"
			}
			if *to == workflow {
				if err := one(tx.Data(), s); err != nil {
					return nil, nil, nil, fmt.Errorf("evmaudit: %w", err)
				}
				continue
			}
			if !bytes.Equal(tx.Data()[:4], execute.ID) {
				continue
			}
			memo, calls, err := executeCalls(execute, tx)
			if err != nil {
				return nil, nil, nil, err
			}
			s.Memo, s.Success = memo, false
			for _, l := range r.Logs {
				kind, ok := events[l.Topics[0]]
				if !ok || l.Address != router || r.Status != types.ReceiptStatusSuccessful {
					continue
				}
				switch kind {
				case "applied":
					s.Success, s.Reason = true, ""
					if applied[memo]++; applied[memo] > 1 {
						problems = append(problems, fmt.Sprintf("memo %s applied twice", memo))
					}
				case "failed":
					s.Reason = "failed"
					if e, err := contracts.NewOrdoRouter().UnpackIntentFailedEvent(l); err == nil {
						if why, err := abi.UnpackRevert(e.Reason); err == nil {
							s.Reason = why
						}
					}
				case "conflict":
					s.Reason = kind
					problems = append(problems, fmt.Sprintf("memo %s: IntentConflict in block %d", memo, n))
				default:
					s.Reason = kind
				}
			}
			for _, c := range calls {
				if c.Target == workflow {
					if err := one(c.Data, s); err != nil {
						return nil, nil, nil, fmt.Errorf("evmaudit: %w", err)
					}
				}
			}
		}
	}
	return requests, submits, problems, nil
}

// executeCalls decodes router.execute(memo, calls).
func executeCalls(execute abi.Method, tx *types.Transaction) (string, []contracts.OrdoRouterCall, error) {
	args, err := execute.Inputs.Unpack(tx.Data()[4:])
	if err != nil {
		return "", nil, fmt.Errorf("evmaudit: %s: %w", tx.Hash().Hex(), err)
	}
	var calls []contracts.OrdoRouterCall
	raw, err := json.Marshal(args[1])
	if err == nil {
		err = json.Unmarshal(raw, &calls)
	}
	if err != nil {
		return "", nil, fmt.Errorf("evmaudit: decoding the calls of %s: %w", tx.Hash().Hex(), err)
	}
	memo, _ := args[0].(string)
	return memo, calls, nil
}
