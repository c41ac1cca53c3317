package processor

import (
	"context"
	"fmt"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/httpjson"
)

// CodeUnknownContract (422): a batch names a contract the chain does not
// know (a message's, or an action's callback confirmation's): refused
// when the batch is added, not at its execution.
const CodeUnknownContract = "unknown_contract"

// checkContracts refuses (CodeUnknownContract) a batch naming a contract
// the node's chain does not know, naming the field. Contracts found known
// are remembered (a chain does not forget one); one the chain could not
// be asked about is a 503 unavailable: the batch is neither taken nor
// refused. Without a chain, nothing is checked.
func (n *Node) checkContracts(ctx context.Context, s BatchSpec) error {
	if n.cfg.Chain == nil {
		return nil
	}
	type named struct{ field, contract string }
	var names []named
	for i, m := range s.Msgs {
		names = append(names, named{fmt.Sprintf("msgs[%d].contract", i), m.Contract})
	}
	if na := s.ActionsConfig.NonAtomic; na != nil {
		for i, a := range na.Actions {
			if cc := a.CallbackConfirmation; cc != nil {
				names = append(names, named{fmt.Sprintf("actionsConfig.nonAtomic.actions[%d].callbackConfirmation.contract", i), cc.Contract})
			}
		}
	}
	for _, c := range names {
		if _, ok := n.contracts.Load(c.contract); ok {
			continue
		}
		known, err := chain.KnowsContract(ctx, n.cfg.Chain, c.contract)
		switch {
		case err != nil:
			return httpjson.Errorf(CodeUnavailable, "%s: the chain could not say whether it knows the contract %s (%v); retry", c.field, httpjson.Excerpt(c.contract), err)
		case !known:
			return httpjson.Errorf(CodeUnknownContract, "%s: the chain knows no contract %s", c.field, httpjson.Excerpt(c.contract))
		}
		n.contracts.Store(c.contract, struct{}{})
	}
	return nil
}
