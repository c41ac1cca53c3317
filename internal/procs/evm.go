package procs

import (
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/ordolabs/ordo/internal/committee"
)

// evmdevArgs are the flags of the `ordo evmdev` an EVM committee runs on:
// one JSON-RPC server for HTTP and WebSocket at addr, a funded dev account
// per node besides account 0 (the router's owner), the key files under
// Dir/chain.
func evmdevArgs(cfg Config, addr string) []string {
	return append([]string{"evmdev", "--http", addr, "--ws", addr, "--block-time", cfg.BlockTime.String(),
		"--accounts", strconv.Itoa(cfg.Nodes + 1), "--data", filepath.Join(cfg.Dir, "chain")}, cfg.ChainArgs...)
}

// startEVMProcess runs the committee's EVM chain as a process on port
// (and, for geth, port+1 for WebSocket): `ordo evmdev` with cfg.EVMDev, or
// `geth --dev` with cfg.Geth, whose contracts it then deploys. It sets
// cfg.EVM to the chain: its evm: section, and Dir/chain/dev<i>.key for
// i = 0 (the deployer) to Nodes (node i-1's sender).
func (c *Committee) startEVMProcess(ctx context.Context, port int) error {
	addr := net.JoinHostPort(committee.DefaultHost, strconv.Itoa(port))
	c.chainURL = "http://" + addr
	if c.cfg.Geth != "" {
		c.chain = NewProcess("chain", c.cfg.Geth, filepath.Join(c.cfg.Dir, "logs", "chain.log"), GethDevArgs(filepath.Join(c.cfg.Dir, "geth"), port, port+1)...)
		c.chain.clock = c.cfg.Clock
	} else {
		c.chain = c.process("chain", evmdevArgs(c.cfg, addr)...)
	}
	if err := c.chain.start(); err != nil {
		return err
	}
	var section string
	if c.cfg.Geth != "" {
		sec, err := c.deployOnGeth(ctx)
		if err != nil {
			return err
		}
		section = sec
	} else if err := c.waitFor(ctx, c.chain, "evmdev's node config", func(context.Context) (bool, string) {
		sec, err := c.evmdevSection()
		section = sec
		return err == nil && sec != "", fmt.Sprint(err)
	}); err != nil {
		return err
	}
	keys := make([]string, c.cfg.Nodes+1)
	for i := range keys {
		keys[i] = filepath.Join(c.cfg.Dir, "chain", fmt.Sprintf("dev%d.key", i))
	}
	c.cfg.EVM = &EVMChain{Section: section, KeyFiles: keys}
	return nil
}

// evmdevSection is the node config's evm: section evmdev printed into its
// log ("" until it has printed all of it: privacygroup is its last line).
func (c *Committee) evmdevSection() (string, error) {
	b, err := os.ReadFile(c.chain.logPath)
	if err != nil {
		return "", err
	}
	s := string(b)
	i := strings.Index(s, "\nevm:\n")
	if i < 0 || !strings.Contains(s[i:], "privacygroup:") {
		return "", nil
	}
	var out []string
	for _, l := range strings.Split(s[i+1:], "\n") {
		if len(out) > 0 && !strings.HasPrefix(l, " ") {
			break
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n") + "\n", nil
}

// GethDevKey is the key of `geth --dev`'s funded dev account: public.
const GethDevKey = "b71c71a67e1177ad4e901695e1b4b9ee17ae16c6668d313eac2f96dbcda3f291"

// GethDevArgs are the flags of `geth --dev` on loopback, its data in
// dataDir: a block a second, HTTP (eth, net, web3, txpool) at httpPort,
// WebSocket (eth, net, web3) at wsPort.
func GethDevArgs(dataDir string, httpPort, wsPort int) []string {
	return []string{"--dev", "--dev.period", "1", "--ipcdisable", "--nodiscover",
		"--http", "--http.addr", "127.0.0.1", "--http.port", strconv.Itoa(httpPort), "--http.api", "eth,net,web3,txpool",
		"--ws", "--ws.addr", "127.0.0.1", "--ws.port", strconv.Itoa(wsPort), "--ws.api", "eth,net,web3",
		"--datadir", dataDir}
}

// deployOnGeth waits for geth, writes and funds a key per node (100
// ether each, Dir/chain/dev<i>.key for node i), deploys the contracts
// with `ordo evm deploy`, each node's account a submitter, and returns
// the evm: section it printed (with the WebSocket endpoint first).
func (c *Committee) deployOnGeth(ctx context.Context) (string, error) {
	var ec *ethclient.Client
	if err := c.waitFor(ctx, c.chain, "geth's JSON-RPC", func(ctx context.Context) (bool, string) {
		cl, err := ethclient.DialContext(ctx, c.chainURL)
		if err == nil {
			if _, err = cl.BlockNumber(ctx); err == nil {
				ec = cl
				return true, ""
			}
			cl.Close()
		}
		return false, fmt.Sprint(err)
	}); err != nil {
		return "", err
	}
	defer ec.Close()
	dev, err := crypto.HexToECDSA(GethDevKey)
	if err != nil {
		return "", fmt.Errorf("procs: %w", err)
	}
	keys := filepath.Join(c.cfg.Dir, "chain")
	if err := os.MkdirAll(keys, 0o700); err != nil {
		return "", fmt.Errorf("procs: %w", err)
	}
	write := func(name string, k *ecdsa.PrivateKey) (string, error) {
		p := filepath.Join(keys, name)
		return p, os.WriteFile(p, []byte(hex.EncodeToString(crypto.FromECDSA(k))+"\n"), 0o600)
	}
	devFile, err := write("dev0.key", dev)
	if err != nil {
		return "", fmt.Errorf("procs: %w", err)
	}
	args := []string{"evm", "deploy", "--url", c.chainURL, "--key-file", devFile, "--voting", "--replication", "--privacygroup"}
	for i := range c.cfg.Nodes {
		k, err := crypto.ToECDSA(crypto.Keccak256([]byte("ordo/procs/geth/" + strconv.Itoa(i+1))))
		if err != nil {
			return "", fmt.Errorf("procs: %w", err)
		}
		if _, err := write(fmt.Sprintf("dev%d.key", i+1), k); err != nil {
			return "", fmt.Errorf("procs: %w", err)
		}
		a := crypto.PubkeyToAddress(k.PublicKey)
		if err := FundOnGeth(ctx, ec, dev, a, new(big.Int).Mul(big.NewInt(1e18), big.NewInt(100))); err != nil {
			return "", err
		}
		args = append(args, "--submitter", strings.ToLower(a.Hex()))
	}
	dctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(dctx, c.cfg.Bin, args...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("procs: ordo evm deploy: %w\n%s", err, out)
	}
	i := strings.Index(string(out), "\nevm:\n")
	if i < 0 {
		return "", fmt.Errorf("procs: ordo evm deploy printed no evm: section:\n%s", out)
	}
	ws := "ws://" + strings.TrimPrefix(c.chainURL, "http://")
	ws = ws[:strings.LastIndex(ws, ":")+1] + strconv.Itoa(c.chainPort()+1)
	return strings.Replace(string(out[i+1:]), "urls: ["+c.chainURL+"]", "urls: ["+ws+", "+c.chainURL+"]", 1), nil
}

// chainPort is the port of chainURL.
func (c *Committee) chainPort() int {
	p, _ := strconv.Atoi(c.chainURL[strings.LastIndex(c.chainURL, ":")+1:])
	return p
}

// GethBinary finds geth: $ORDO_GETH, then GOPATH/bin, then PATH ("" when
// there is none).
func GethBinary() string {
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

// FundOnGeth sends wei from key to to and waits for its receipt (at most
// 30 s).
func FundOnGeth(ctx context.Context, ec *ethclient.Client, key *ecdsa.PrivateKey, to common.Address, wei *big.Int) error {
	from := crypto.PubkeyToAddress(key.PublicKey)
	id, err := ec.ChainID(ctx)
	if err != nil {
		return fmt.Errorf("procs: fund: %w", err)
	}
	nonce, err := ec.PendingNonceAt(ctx, from)
	if err != nil {
		return fmt.Errorf("procs: fund: %w", err)
	}
	tip, err := ec.SuggestGasTipCap(ctx)
	if err != nil {
		return fmt.Errorf("procs: fund: %w", err)
	}
	hd, err := ec.HeaderByNumber(ctx, nil)
	if err != nil {
		return fmt.Errorf("procs: fund: %w", err)
	}
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(id), &types.DynamicFeeTx{ChainID: id, Nonce: nonce, GasTipCap: tip,
		GasFeeCap: new(big.Int).Add(new(big.Int).Mul(hd.BaseFee, big.NewInt(2)), tip), Gas: 21000, To: &to, Value: wei})
	if err != nil {
		return fmt.Errorf("procs: fund: %w", err)
	}
	if err := ec.SendTransaction(ctx, tx); err != nil {
		return fmt.Errorf("procs: fund: %w", err)
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		if r, err := ec.TransactionReceipt(wctx, tx.Hash()); err == nil {
			if r.Status != types.ReceiptStatusSuccessful {
				return fmt.Errorf("procs: funding %s failed", to.Hex())
			}
			return nil
		}
		t := time.NewTimer(100 * time.Millisecond)
		select {
		case <-wctx.Done():
			t.Stop()
			return fmt.Errorf("procs: funding %s: no receipt: %w", to.Hex(), wctx.Err())
		case <-t.C:
		}
	}
}
