package node

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
	"github.com/ordolabs/ordo/internal/testkit/evmaudit"
)

// TestReplicationFailoverOnEVM is TestReplicationFailover on an EVM chain
// (evmdev over loopback JSON-RPC): the nodes find each other in the
// NodeRegistry, each entry trusted for its key's signature; the queue's
// set lives in ReplicaSets, moved to a new primary from a member's account
// when the old one is stopped for good and its data deleted; the adopter
// asks the router's records which intents were applied. Audited over plain
// JSON-RPC: every acknowledged intent applied by the router exactly once,
// in the order taken, and no memo applied twice.
func TestReplicationFailoverOnEVM(t *testing.T) {
	if testing.Short() {
		t.Skip("a three-node failover on an EVM chain")
	}
	h := newCommittee(t, committeeConfig{Nodes: 3, Registry: true, Replication: replicationConfig(), EVM: true})
	replicationFailover(t, h, "evm-failover", func(k int) (string, string) {
		if k == 0 {
			return dispatch.CallType, `{"contract":"voting","method":"create_claim_voting_account","args":{"account":"evm-failover","title":"failover"}}`
		}
		return dispatch.CallType, fmt.Sprintf(`{"contract":"voting","method":"send_claim_vote","args":{"account":"evm-failover","voter":"voter-%d","vote":true}}`, k)
	}, h.auditEVM)
}

// auditEVM reads the router's transactions over plain JSON-RPC: each uid
// applied exactly once, the uids in the order given, no memo twice.
func (h *committee) auditEVM(uids []string) {
	h.t.Helper()
	ec, err := ethclient.DialContext(h.ctx, h.dev.HTTPURL)
	if err != nil {
		h.t.Fatal(err)
	}
	defer ec.Close()
	applied, problems, err := evmaudit.AppliedMemos(h.ctx, ec, h.dev.Router)
	if err != nil {
		h.t.Fatal(err)
	}
	for _, p := range problems {
		h.t.Error(p)
	}
	var got []string
	for _, m := range applied {
		if slices.Contains(uids, m) {
			got = append(got, m)
		}
	}
	if !slices.Equal(got, uids) {
		h.t.Errorf("the router applied the acknowledged intents as\n%q\nwant each once, in the order taken:\n%q", got, uids)
	}
	h.t.Logf("audit over JSON-RPC: %d intents, each applied once by the router, in order (%d router applications in all)", len(uids), len(applied))
}
