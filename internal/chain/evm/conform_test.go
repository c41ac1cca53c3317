package evm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/chaintest"
)

// evmConformer is the backend on a simulated chain under the shared
// conformance suite: node1 and node2 (the router's submitters) send,
// Voting's create_claim_voting_account creates, a vote on a missing
// account fails, a fork under the head reorgs.
func evmConformer(t *testing.T) *chaintest.Conformer {
	h := newHarness(t)
	return &chaintest.Conformer{
		Chain:   h.b,
		Senders: [2]chain.Key{h.node1, h.node2},
		Mine:    func(chaintest.TB) { h.mine() },
		Reorg: func(t chaintest.TB) {
			t.Helper()
			head, err := h.sim.Client().HeaderByNumber(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := h.sim.Fork(head.ParentHash); err != nil {
				t.Fatal(err)
			}
			h.commit(2) // the fork overtakes and re-includes the transactions
		},
		Create: func(name string) chaintest.ConformCall {
			return chaintest.ConformCall{Contract: "voting", Method: "create_claim_voting_account",
				Args: json.RawMessage(fmt.Sprintf(`{"account":%q,"title":"t"}`, name))}
		},
		CreatedEvent: "ClaimVotingAccountCreated",
		Fail: func() chaintest.ConformCall {
			return chaintest.ConformCall{Contract: "voting", Method: "send_claim_vote",
				Args: json.RawMessage(`{"account":"missing","voter":"v","vote":true}`)}
		},
		Exists: func(ctx context.Context, name string) (bool, error) {
			_, err := h.b.Call(ctx, "voting", "claim", json.RawMessage(fmt.Sprintf(`{"account":%q}`, name)))
			if errors.Is(err, chain.ErrNotFound) {
				return false, nil
			}
			return err == nil, err
		},
	}
}

// TestConformance runs the behaviours shared with devchain
// (chaintest.RunConformance) on the simulated chain.
func TestConformance(t *testing.T) {
	t.Parallel()
	chaintest.RunConformance(t, evmConformer)
}
