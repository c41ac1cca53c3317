package procs_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/ordolabs/ordo/internal/chain/evm"
	"github.com/ordolabs/ordo/internal/procs"
	"github.com/ordolabs/ordo/internal/testkit"
)

// gethDevKey is geth --dev's fixed, public dev account key
// (cmd/utils/flags.go).
const gethDevKey = "b71c71a67e1177ad4e901695e1b4b9ee17ae16c6668d313eac2f96dbcda3f291"

// TestCrashCoordinatorOnGeth is TestCrashCoordinatorOnEVM on a real
// `geth --dev` (a block a second): the nodes' senders are funded from
// geth's dev account, which deploys the router and PrivacyGroup with
// `ordo evm deploy --privacygroup` and the group.
func TestCrashCoordinatorOnGeth(t *testing.T) {
	testkit.NeedLong(t, "a committee and an EVM chain as processes, the coordinator killed -9")
	geth := gethBinary()
	if geth == "" {
		t.Skip("SKIPPED: no geth binary ($ORDO_GETH, GOPATH/bin/geth or PATH): `go install github.com/ethereum/go-ethereum/cmd/geth@v1.17.10`; this test covers a committee on a real go-ethereum node")
	}
	ctx := t.Context()
	dir := t.TempDir()
	port, err := procs.FreePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	cmd := exec.CommandContext(ctx, geth, "--dev", "--dev.period", "1", "--ipcdisable", "--nodiscover",
		"--http", "--http.addr", "127.0.0.1", "--http.port", fmt.Sprint(port), "--http.api", "eth,net,web3,txpool",
		"--datadir", filepath.Join(dir, "geth"))
	logf, err := os.Create(filepath.Join(dir, "geth.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = logf.Close()
	})
	var ec *ethclient.Client
	waitUntil(t, 60*time.Second, "geth's JSON-RPC", func() bool {
		c, err := ethclient.DialContext(ctx, url)
		if err != nil {
			return false
		}
		if _, err := c.BlockNumber(ctx); err != nil {
			c.Close()
			return false
		}
		ec = c
		return true
	})
	t.Cleanup(ec.Close)

	dev, _ := crypto.HexToECDSA(gethDevKey)
	keys := []string{writeKey(t, dir, "deployer.key", gethDevKey)}
	var subs []string
	for i := range 4 {
		k := evm.DevKey(i + 1)
		keys = append(keys, writeKey(t, dir, fmt.Sprintf("sender-%d.key", i+1), hex.EncodeToString(crypto.FromECDSA(k))))
		a := crypto.PubkeyToAddress(k.PublicKey)
		subs = append(subs, "--submitter", strings.ToLower(a.Hex()))
		fundGeth(ctx, t, ec, dev, a)
	}
	out, err := exec.CommandContext(ctx, ordoBin(t), append([]string{"evm", "deploy", "--url", url, "--key-file", keys[0], "--privacygroup"}, subs...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("ordo evm deploy: %v\n%s", err, out)
	}
	section := string(out[strings.Index(string(out), "evm:\n"):])
	pg := regexp.MustCompile(`privacygroup: \{address: "(0x[0-9a-f]{40})"`).FindStringSubmatch(section)
	if pg == nil {
		t.Fatalf("no privacygroup in\n%s", out)
	}
	c := startCommittee(t, procs.Config{Nodes: 4, BlockTime: time.Second, Coins: 100, RangeSize: 20,
		EVM: &procs.EVMChain{Section: section, KeyFiles: keys}})
	crashCoordinator(t, c, evmAudit{ec: ec, pg: common.HexToAddress(pg[1])}, 250*time.Millisecond, 3*time.Minute)
}

func writeKey(t *testing.T, dir, name, hexKey string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(hexKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// fundGeth sends 100 ether from key to `to` and waits for the receipt.
func fundGeth(ctx context.Context, t *testing.T, ec *ethclient.Client, key *ecdsa.PrivateKey, to common.Address) {
	t.Helper()
	from := crypto.PubkeyToAddress(key.PublicKey)
	id, err := ec.ChainID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	nonce, err := ec.PendingNonceAt(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	tip, err := ec.SuggestGasTipCap(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hd, err := ec.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	wei := new(big.Int).Mul(big.NewInt(1e18), big.NewInt(100))
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(id), &types.DynamicFeeTx{ChainID: id, Nonce: nonce, GasTipCap: tip,
		GasFeeCap: new(big.Int).Add(new(big.Int).Mul(hd.BaseFee, big.NewInt(2)), tip), Gas: 21000, To: &to, Value: wei})
	if err != nil {
		t.Fatal(err)
	}
	if err := ec.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 60*time.Second, "the funding's receipt", func() bool {
		r, err := ec.TransactionReceipt(ctx, tx.Hash())
		if err != nil && !errors.Is(err, ethereum.NotFound) && !strings.Contains(err.Error(), "indexing") {
			t.Fatal(err)
		}
		return err == nil && r.Status == types.ReceiptStatusSuccessful
	})
}

// gethBinary finds geth: $ORDO_GETH, then GOPATH/bin, then PATH.
func gethBinary() string {
	if p := os.Getenv("ORDO_GETH"); p != "" {
		return p
	}
	if gp, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		p := filepath.Join(strings.TrimSpace(string(gp)), "bin", "geth")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	p, _ := exec.LookPath("geth")
	return p
}
