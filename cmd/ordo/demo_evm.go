package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ordolabs/ordo/internal/chain/evm/evmdev"
	"github.com/ordolabs/ordo/internal/node"
	"github.com/ordolabs/ordo/internal/sequencer"
)

// startDemoEVM starts the demo's in-process simulated EVM chain (its
// JSON-RPC on loopback, as `ordo evmdev`) and points cfg at it: its dev
// accounts 1..senders are the node's senders (accounts the router lets
// submit), the Voting contract is "voting".
func startDemoEVM(ctx context.Context, cfg *node.Config, senders int, blockTime time.Duration) (*evmdev.Chain, error) {
	dev, err := evmdev.Start(ctx, evmdev.Config{HTTPAddr: "127.0.0.1:0", WSAddr: "127.0.0.1:0", BlockTime: blockTime, Accounts: senders + 1})
	if err != nil {
		return nil, fmt.Errorf("the demo's EVM chain: %w", err)
	}
	cfg.UseEVMDev(dev, senders)
	return dev, nil
}

// votingCalls is the seed's claim voting as calls of the Voting contract:
// per claim, a queue with its CREATE_CLAIM_VOTING_ACCOUNT
// (create_claim_voting_account) and its SEND_CLAIM_VOTEs (send_claim_vote).
func votingCalls(claims, votes int) []sequencer.Intake {
	var out []sequencer.Intake
	add := func(q, method string, args map[string]any) {
		b, _ := json.Marshal(map[string]any{"contract": "voting", "method": method, "args": args})
		out = append(out, sequencer.Intake{Queue: q, Type: "call", Data: b})
	}
	for c := range claims {
		q := fmt.Sprintf("claim-%03d", c)
		add(q, "create_claim_voting_account", map[string]any{"account": q, "title": fmt.Sprintf("claim %d", c)})
		for v := range votes {
			add(q, "send_claim_vote", map[string]any{"account": q, "voter": fmt.Sprintf("voter-%d", v), "vote": v%3 != 0})
		}
	}
	return out
}
