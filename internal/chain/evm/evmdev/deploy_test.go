package evmdev_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/ordolabs/ordo/internal/chain/evm/contracts"
	"github.com/ordolabs/ordo/internal/chain/evm/evmdev"
)

func TestDeploy(t *testing.T) {
	c := start(t, evmdev.Config{Accounts: 2, BlockTime: 50 * time.Millisecond})
	cl := dial(t, c.WSURL)
	extra := evmdev.DevAddress(50)
	d, err := evmdev.Deploy(t.Context(), cl, evmdev.DeployConfig{
		Key: c.Keys[1], Submitters: []common.Address{extra, c.Accounts[1], extra}, ChainID: evmdev.DefaultChainID,
	})
	if err != nil {
		t.Fatal(err)
	}
	if d.Owner != c.Accounts[1] || d.ChainID != evmdev.DefaultChainID || d.Voting != (common.Address{}) || d.Block == 0 {
		t.Errorf("deployment %+v", d)
	}
	if len(d.Submitters) != 2 || d.Submitters[0] != c.Accounts[1] || d.Submitters[1] != extra {
		t.Errorf("submitters %v, want the owner then %s once", d.Submitters, extra.Hex())
	}
	router := contracts.NewOrdoRouter()
	for _, a := range []common.Address{c.Accounts[1], extra} {
		out, err := cl.CallContract(t.Context(), callMsg(d.Router, router.PackIsSubmitter(a)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := router.UnpackIsSubmitter(out); err != nil || !ok {
			t.Errorf("isSubmitter(%s) = %v, %v", a.Hex(), ok, err)
		}
	}
	if d.Router == c.Router {
		t.Error("the new router has the dev chain's router's address")
	}
}

func TestDeployWaitsWithADeadline(t *testing.T) {
	// A chain that seals no block for an hour: the deployment stays pending.
	c := start(t, evmdev.Config{Accounts: 1, BlockTime: time.Hour})
	cl := dial(t, c.HTTPURL)
	t0 := time.Now()
	_, err := evmdev.Deploy(t.Context(), cl, evmdev.DeployConfig{Key: c.Keys[0], Timeout: 300 * time.Millisecond, PollInterval: 20 * time.Millisecond})
	if !errors.Is(err, evmdev.ErrDeployTimeout) {
		t.Fatalf("Deploy on a chain that mines nothing: %v; want ErrDeployTimeout", err)
	}
	if d := time.Since(t0); d > 10*time.Second {
		t.Errorf("Deploy gave up after %s, its timeout is 300ms", d)
	}
}

func TestDeployRefusesAnotherChain(t *testing.T) {
	c := start(t, evmdev.Config{Accounts: 1, BlockTime: 50 * time.Millisecond})
	_, err := evmdev.Deploy(t.Context(), dial(t, c.HTTPURL), evmdev.DeployConfig{Key: c.Keys[0], ChainID: 1})
	if !errors.Is(err, evmdev.ErrWrongChain) {
		t.Fatalf("Deploy for chain 1 on chain 1337: %v; want ErrWrongChain", err)
	}
}

func TestConfigYAML(t *testing.T) {
	t.Parallel()
	r := common.HexToAddress("0xAbCdEf0000000000000000000000000000000001")
	v := common.HexToAddress("0x00000000000000000000000000000000000000Ff")
	for _, tc := range []struct {
		name    string
		voting  common.Address
		library common.Address
		more    []evmdev.Named
		want    string
	}{
		{"with voting", v, common.Address{}, nil, `evm:
  urls: [ws://127.0.0.1:8546, http://127.0.0.1:8545]
  chainId: 1337
  router: "0xabcdef0000000000000000000000000000000001"
  contracts:
    voting: {address: "0x00000000000000000000000000000000000000ff", abi: Voting}
`},
		{"with library", common.Address{}, v, nil, `evm:
  urls: [ws://127.0.0.1:8546, http://127.0.0.1:8545]
  chainId: 1337
  router: "0xabcdef0000000000000000000000000000000001"
  contracts:
    library: {address: "0x00000000000000000000000000000000000000ff", abi: Library}
`},
		{"with the leader's", common.Address{}, v, evmdev.Deployment{Workflow: r, Registry: v}.LeaderContracts(), `evm:
  urls: [ws://127.0.0.1:8546, http://127.0.0.1:8545]
  chainId: 1337
  router: "0xabcdef0000000000000000000000000000000001"
  contracts:
    library: {address: "0x00000000000000000000000000000000000000ff", abi: Library}
    workflow: {address: "0xabcdef0000000000000000000000000000000001", abi: Workflow}
    registry: {address: "0x00000000000000000000000000000000000000ff", abi: ToolRegistry}
`},
		{"router only", common.Address{}, common.Address{}, nil, `evm:
  urls: [ws://127.0.0.1:8546, http://127.0.0.1:8545]
  chainId: 1337
  router: "0xabcdef0000000000000000000000000000000001"
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := evmdev.ConfigYAML([]string{"ws://127.0.0.1:8546", "http://127.0.0.1:8545"}, 1337, r, tc.voting, tc.library, tc.more...); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// TestDeployReplication: with Replication, Deploy puts NodeRegistry and
// ReplicaSets on chain, the sets trusting the registry and both the
// router, and the config names them nodes and replicasets.
func TestDeployReplication(t *testing.T) {
	c := start(t, evmdev.Config{Accounts: 1, BlockTime: 50 * time.Millisecond})
	cl := dial(t, c.WSURL)
	d, err := evmdev.Deploy(t.Context(), cl, evmdev.DeployConfig{Key: c.Keys[0], Replication: true})
	if err != nil {
		t.Fatal(err)
	}
	if d.Nodes == (common.Address{}) || d.ReplicaSets == (common.Address{}) {
		t.Fatalf("deployment %+v: no replication contracts", d)
	}
	sets := contracts.NewReplicaSets()
	out, err := cl.CallContract(t.Context(), callMsg(d.ReplicaSets, sets.PackRegistry()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if reg, err := sets.UnpackRegistry(out); err != nil || reg != d.Nodes {
		t.Errorf("ReplicaSets' registry %s, %v; want %s", reg.Hex(), err, d.Nodes.Hex())
	}
	out, err = cl.CallContract(t.Context(), callMsg(d.Nodes, contracts.NewNodeRegistry().PackTrustedRouter()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := contracts.NewNodeRegistry().UnpackTrustedRouter(out); err != nil || r != d.Router {
		t.Errorf("NodeRegistry's router %s, %v; want %s", r.Hex(), err, d.Router.Hex())
	}
	y := evmdev.ConfigYAML([]string{"http://x:1"}, d.ChainID, d.Router, common.Address{}, common.Address{}, d.ReplicationContracts()...)
	for _, want := range []string{"  contracts:\n", "    nodes: {address: \"" + evmdev.AddressString(d.Nodes) + "\", abi: NodeRegistry}\n",
		"    replicasets: {address: \"" + evmdev.AddressString(d.ReplicaSets) + "\", abi: ReplicaSets}\n"} {
		if !strings.Contains(y, want) {
			t.Errorf("config\n%s\nlacks %q", y, want)
		}
	}
	if !strings.Contains(c.Config(), "abi: NodeRegistry") || !strings.Contains(c.Config(), "abi: ReplicaSets") {
		t.Errorf("evmdev's config does not name its replication contracts:\n%s", c.Config())
	}
}
