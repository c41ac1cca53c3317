package procs_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/ordolabs/ordo/internal/chain/evm/contracts"
	"github.com/ordolabs/ordo/internal/node"
	"github.com/ordolabs/ordo/internal/procs"
	"github.com/ordolabs/ordo/internal/smm"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit/evmaudit"
)

// TestReplicationFailoverEVMProcs is TestReplicationFailoverProcs on `ordo
// evmdev`: three `ordo serve` whose configs take evmdev's evm: section
// (NodeRegistry, ReplicaSets), 30 intents round-robin, the primary killed
// -9 and its data deleted, 30 more at the survivors. Read over plain
// JSON-RPC, not through ordo: every node registered, the queue's set on
// ReplicaSets moved to a survivor, every acknowledged intent applied by
// the router exactly once, in the order acknowledged. Every acknowledged
// intent is DONE at the new primary and the survivors end at one head.
func TestReplicationFailoverEVMProcs(t *testing.T) {
	cfg := replConfig()
	cfg.EVMDev = true
	replicationFailoverEVM(t, cfg)
}

// TestReplicationFailoverGethProcs is the same on a real `geth --dev` (a
// block a second), the contracts deployed by `ordo evm deploy`.
func TestReplicationFailoverGethProcs(t *testing.T) {
	geth := procs.GethBinary()
	if geth == "" {
		t.Skip("SKIPPED: no geth binary ($ORDO_GETH, GOPATH/bin/geth or PATH); " +
			"`go install github.com/ethereum/go-ethereum/cmd/geth@v1.17.10` builds one: this test covers replicated queues on a real go-ethereum node")
	}
	cfg := replConfig()
	cfg.Geth, cfg.BlockTime = geth, time.Second
	replicationFailoverEVM(t, cfg)
}

func replicationFailoverEVM(t *testing.T, cfg procs.Config) {
	c := startCommittee(t, cfg)
	ctx := t.Context()
	ncfg, err := node.LoadConfig(c.Member(0).Config)
	if err != nil {
		t.Fatal(err)
	}
	router := common.HexToAddress(ncfg.EVM.Router)
	regAddr, setsAddr := common.HexToAddress(ncfg.EVM.Contracts["nodes"].Address), common.HexToAddress(ncfg.EVM.Contracts["replicasets"].Address)
	ec, err := ethclient.DialContext(ctx, c.ChainURL())
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	reg, sets := contracts.NewNodeRegistry(), contracts.NewReplicaSets()

	var full time.Time
	waitUntil(t, 60*time.Second, "every node in the NodeRegistry", func() bool {
		out, err := ec.CallContract(ctx, ethereum.CallMsg{To: &regAddr, Data: reg.PackCount()}, nil)
		if err != nil {
			return false
		}
		n, err := reg.UnpackCount(out)
		full = time.Now()
		return err == nil && n.Int64() == int64(c.Nodes())
	})
	waitUntil(t, 30*time.Second, "every node's registry read after that", func() bool {
		for i := range c.Nodes() {
			var st smm.Status
			if _, err := c.Request(ctx, i, http.MethodGet, "/v1/smm", nil, &st); err != nil || !st.MappingReadAt.After(full) {
				return false
			}
		}
		return true
	})
	chainSet := func() (contracts.ReplicaSetsReplicaSet, bool) {
		out, err := ec.CallContract(ctx, ethereum.CallMsg{To: &setsAddr, Data: sets.PackSet(replQueue)}, nil)
		if err != nil {
			return contracts.ReplicaSetsReplicaSet{}, false
		}
		s, err := sets.UnpackSet(out)
		return s, err == nil
	}
	nodeID := func(id [20]byte) string { return fmt.Sprintf("n%x", id) }

	in := &intake{c: c, byStatus: map[int]int{}, calls: true}
	const before, after = 30, 30
	for k := range before {
		in.submit(t, k%3, k)
	}
	st := synced(t, c, 0)
	primary := c.Index(st.Primary)
	t.Logf("set v%d: primary node%d, every member at clock %d", st.Version, primary+1, st.Members[0].Clock)
	if s, ok := chainSet(); !ok || nodeID(s.Primary) != st.Primary || s.Version != st.Version {
		t.Fatalf("ReplicaSets holds %+v (found %t), the nodes v%d primary %s", s, ok, st.Version, st.Primary)
	}
	killed := time.Now()
	if err := c.Kill(primary); err != nil {
		t.Fatal(err)
	}
	if err := c.RemoveData(primary); err != nil {
		t.Fatal(err)
	}
	survivors := []int{(primary + 1) % 3, (primary + 2) % 3}
	for k := before; k < before+after; k++ {
		in.submit(t, survivors[k%2], k)
	}
	var next contracts.ReplicaSetsReplicaSet
	waitUntil(t, 60*time.Second, "a new primary on ReplicaSets", func() bool {
		s, ok := chainSet()
		next = s
		return ok && s.Version > st.Version && nodeID(s.Primary) != st.Primary
	})
	np := c.Index(nodeID(next.Primary))
	if np < 0 || np == primary {
		t.Fatalf("new set %+v: primary is not a survivor", next)
	}
	t.Logf("set v%d on chain: primary node%d, updated by %s at block %d, %.1fs after the kill", next.Version, np+1, nodeID(next.UpdatedBy), next.Height, time.Since(killed).Seconds())

	// One intent of the queue is in flight at a time: each waits for its
	// block (a second on geth).
	waitUntil(t, max(60*time.Second, time.Duration(len(in.acked))*4*cfg.BlockTime), "every acknowledged intent DONE at the new primary", func() bool {
		for _, uid := range in.acked {
			var got struct {
				Transaction store.Transaction `json:"transaction"`
			}
			if _, err := c.Request(ctx, np, http.MethodGet, "/v1/transactions/"+uid, nil, &got); err != nil || got.Transaction.State != store.Done {
				return false
			}
		}
		return true
	})
	if len(in.acked) != before+after {
		t.Errorf("%d intents acknowledged, %d sent", len(in.acked), before+after)
	}
	applied, problems, err := evmaudit.AppliedMemos(ctx, ec, router)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	var got []string
	for _, m := range applied {
		if slices.Contains(in.acked, m) {
			got = append(got, m)
		}
	}
	if !slices.Equal(got, in.acked) {
		t.Errorf("the router applied the acknowledged intents as\n%s\nwant each once, in the order acknowledged:\n%s", strings.Join(got, " "), strings.Join(in.acked, " "))
	}
	t.Logf("audit over JSON-RPC: %d intents, each applied once by the router, in the order acknowledged (%d router applications in all)", len(in.acked), len(applied))

	var heads [2]smm.MemberStatus
	waitUntil(t, 30*time.Second, "the survivors at one head", func() bool {
		for j, i := range survivors {
			s, ok := queueStatus(context.WithoutCancel(ctx), c, i)
			if !ok {
				return false
			}
			if heads[j], ok = self(s, c.NodeID(i)); !ok {
				return false
			}
		}
		return heads[0].Clock == heads[1].Clock && heads[0].Hash == heads[1].Hash
	})
	t.Logf("acknowledged %d (%d before the kill, %d after), retries %d, answers %v; survivors at clock %d",
		len(in.acked), before, after, in.retries, in.byStatus, heads[0].Clock)
}
