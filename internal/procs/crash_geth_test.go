package procs_test

import (
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/ordolabs/ordo/internal/node"
	"github.com/ordolabs/ordo/internal/procs"
	"github.com/ordolabs/ordo/internal/testkit"
)

// TestCrashCoordinatorOnGeth is TestCrashCoordinatorOnEVM on a real
// `geth --dev` (a block a second) the committee runs as its chain
// process (procs.Config.Geth): the nodes' senders are funded from geth's
// dev account, which deploys the contracts with `ordo evm deploy` and the
// group with `ordo committee deploy`.
func TestCrashCoordinatorOnGeth(t *testing.T) {
	testkit.NeedLong(t, "a committee and geth --dev as processes, the coordinator killed -9")
	geth := procs.GethBinary()
	if geth == "" {
		t.Skip("SKIPPED: no geth binary ($ORDO_GETH, GOPATH/bin/geth or PATH): `go install github.com/ethereum/go-ethereum/cmd/geth@v1.17.10`; this test covers a committee on a real go-ethereum node")
	}
	c := startCommittee(t, procs.Config{Nodes: 4, BlockTime: time.Second, Coins: 100, RangeSize: 20, Geth: geth})
	ncfg, err := node.LoadConfig(c.Member(0).Config)
	if err != nil {
		t.Fatal(err)
	}
	ec, err := ethclient.DialContext(t.Context(), c.ChainURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ec.Close)
	pg := common.HexToAddress(ncfg.EVM.Contracts["privacygroup"].Address)
	crashCoordinator(t, c, evmAudit{ec: ec, pg: pg}, 250*time.Millisecond, 3*time.Minute)
}
