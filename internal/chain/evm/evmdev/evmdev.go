package evmdev

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	gethlog "github.com/ethereum/go-ethereum/log"
	"github.com/ethereum/go-ethereum/node"

	"github.com/ordolabs/ordo/internal/clock"
)

// Start's defaults and limits.
const (
	// DefaultBlockTime is the time between two sealed blocks.
	DefaultBlockTime = time.Second
	// MinBlockTime is the shortest BlockTime Start accepts.
	MinBlockTime = 50 * time.Millisecond
	// DefaultAccounts is how many dev accounts are funded.
	DefaultAccounts = 10
	// MaxAccounts is the most dev accounts Start funds.
	MaxAccounts = 1000
	// DefaultChainID is the chain's id (the simulated backend's own).
	DefaultChainID = 1337
	// DefaultAddr is the JSON-RPC listen address of the library's HTTP and WS
	// servers: loopback, a free port.
	DefaultAddr = "127.0.0.1:0"
	// startPoll and startTimeout pace Start's deployments: each receipt poll
	// that misses seals another block.
	startPoll    = 10 * time.Millisecond
	startTimeout = 30 * time.Second
)

// Modules are the JSON-RPC namespaces served over HTTP and WS.
var Modules = []string{"eth", "net", "web3", "txpool", "debug"}

// DevBalance is each dev account's genesis balance: 10^24 wei (a million
// ether).
var DevBalance = new(big.Int).Exp(big.NewInt(10), big.NewInt(24), nil)

// ErrNotLoopback is returned by Start for a listen address that is not a
// loopback one, unless Config.AllowPublic.
var ErrNotLoopback = errors.New("not a loopback address")

// Config is a dev chain's configuration.
type Config struct {
	// HTTPAddr is the JSON-RPC HTTP listen address (port 0: a free port).
	// Default DefaultAddr.
	HTTPAddr string
	// WSAddr is the JSON-RPC WebSocket listen address (port 0: a free port).
	// When it has HTTPAddr's port (both 0 included), one server serves both.
	// Default DefaultAddr.
	WSAddr string
	// AllowPublic allows listen addresses that are not loopback. Default
	// false: the dev keys are public, so anyone who reaches the chain can
	// spend its funds.
	AllowPublic bool
	// BlockTime is the time between two sealed blocks, at least
	// MinBlockTime. Default DefaultBlockTime.
	BlockTime time.Duration
	// Accounts is how many dev accounts (DevKey(0..Accounts-1)) are funded
	// with DevBalance each, 1 to MaxAccounts. Default DefaultAccounts.
	Accounts int
	// ChainID is the chain's id. Default DefaultChainID.
	ChainID uint64
	// MinTip is the least priority fee per gas, in wei, of a transaction the
	// chain includes; one with a lower tip stays pending. Default 1 wei.
	MinTip *big.Int
	// KeyDir is where the dev key files are written (dev<i>.key, 0600).
	// Default "": a new temporary directory, removed by Close.
	KeyDir string
	// Clock paces the blocks and the deployments' receipt polls. Default
	// clock.Real.
	Clock clock.Clock
	// Logger receives evmdev's logs and, at debug level, go-ethereum's.
	// Default: none.
	Logger *slog.Logger
}

// Chain is a running dev chain.
type Chain struct {
	// HTTPURL is the JSON-RPC HTTP URL (http://host:port).
	HTTPURL string
	// WSURL is the JSON-RPC WebSocket URL (ws://host:port).
	WSURL string
	// ChainID is the chain's id.
	ChainID uint64
	// Keys are the dev accounts' keys, DevKey(i) at i.
	Keys []*ecdsa.PrivateKey
	// Accounts are the dev accounts' addresses.
	Accounts []common.Address
	// KeyFiles are the paths of the dev accounts' raw key files.
	KeyFiles []string
	// Router is OrdoRouter's address: owner Accounts[0], every dev account
	// a submitter.
	Router common.Address
	// Voting is Voting's address (trusting Router).
	Voting common.Address
	// Library is Library's address (trusting Router): the processor's test
	// target.
	Library common.Address
	// Workflow and Registry are the leader's contracts (trusting Router):
	// Accounts[0] is the workflow's admin, and every other dev account
	// holds one leader cap.
	Workflow, Registry common.Address
	// PrivacyGroup is PrivacyGroup's address (trusting Router): the
	// distributed sequencer's base ledger.
	PrivacyGroup common.Address
	// Nodes and ReplicaSets are NodeRegistry's and ReplicaSets' addresses
	// (replicated queues; trusting Router).
	Nodes, ReplicaSets common.Address

	sim     *simulated.Backend
	tempDir string
	log     *slog.Logger
	stop    context.CancelFunc
	done    chan struct{}
	once    sync.Once
	err     error
}

func (c *Config) withDefaults() (Config, error) {
	d := *c
	if d.HTTPAddr == "" {
		d.HTTPAddr = DefaultAddr
	}
	if d.WSAddr == "" {
		d.WSAddr = DefaultAddr
	}
	if d.BlockTime == 0 {
		d.BlockTime = DefaultBlockTime
	}
	if d.Accounts == 0 {
		d.Accounts = DefaultAccounts
	}
	if d.ChainID == 0 {
		d.ChainID = DefaultChainID
	}
	if d.MinTip == nil {
		d.MinTip = big.NewInt(1)
	}
	if d.Clock == nil {
		d.Clock = clock.Real{}
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	switch {
	case d.BlockTime < MinBlockTime:
		return d, fmt.Errorf("block time %s is below the least, %s", d.BlockTime, MinBlockTime)
	case d.Accounts < 1 || d.Accounts > MaxAccounts:
		return d, fmt.Errorf("%d dev accounts: want 1 to %d", d.Accounts, MaxAccounts)
	case d.MinTip.Sign() <= 0:
		return d, fmt.Errorf("minimum tip %s wei: want at least 1 (geth refuses 0)", d.MinTip)
	}
	for _, a := range []struct{ name, addr string }{{"HTTP", d.HTTPAddr}, {"WS", d.WSAddr}} {
		if err := checkListen(a.addr, d.AllowPublic); err != nil {
			return d, fmt.Errorf("%s address: %w", a.name, err)
		}
	}
	return d, nil
}

// checkListen checks addr is host:port with a port, and, unless allowPublic,
// a loopback host (localhost or a loopback IP).
func checkListen(addr string, allowPublic bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q: %w", addr, err)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Errorf("%q: port %q: want 0 to 65535", addr, port)
	}
	if allowPublic {
		return nil
	}
	if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
		return nil
	}
	return fmt.Errorf("%q is %w, and the dev keys are public: anyone who reaches the chain can spend its funds", addr, ErrNotLoopback)
}

// Start starts a dev chain: the simulated backend serving JSON-RPC on
// cfg.HTTPAddr and cfg.WSAddr, its dev accounts funded, OrdoRouter, Voting,
// Library, Workflow and ToolRegistry deployed and mined (a leader cap for
// every dev account but the first), and a block sealed every cfg.BlockTime until Close (or
// until ctx ends: Close must still be called).
func Start(ctx context.Context, cfg Config) (*Chain, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("evmdev: %w", err)
	}
	c := &Chain{ChainID: cfg.ChainID, log: cfg.Logger, done: make(chan struct{})}
	alloc := types.GenesisAlloc{}
	for i := range cfg.Accounts {
		k := DevKey(i)
		c.Keys = append(c.Keys, k)
		a := DevAddress(i)
		c.Accounts = append(c.Accounts, a)
		alloc[a] = types.Account{Balance: new(big.Int).Set(DevBalance)}
	}
	keyDir := cfg.KeyDir
	if keyDir == "" {
		if keyDir, err = os.MkdirTemp("", "ordo-evmdev-keys-"); err != nil {
			return nil, fmt.Errorf("evmdev: %w", err)
		}
		c.tempDir = keyDir
	}
	if c.KeyFiles, err = writeDevKeyFiles(keyDir, c.Keys); err != nil {
		c.removeTemp()
		return nil, fmt.Errorf("evmdev: %w", err)
	}

	eps := &endpoints{}
	c.sim, err = newBackend(alloc, serveOn(cfg, eps, cfg.Logger), forks(cfg.ChainID), simulated.WithMinerMinTip(cfg.MinTip))
	if err != nil {
		c.removeTemp()
		return nil, fmt.Errorf("evmdev: %w", err)
	}
	c.HTTPURL, c.WSURL = eps.urls()
	if c.HTTPURL == "" || c.WSURL == "" {
		_ = c.closeSim()
		return nil, fmt.Errorf("evmdev: the JSON-RPC servers did not report their addresses (HTTP %q, WS %q)", c.HTTPURL, c.WSURL)
	}

	d, err := Deploy(ctx, c.sim.Client(), DeployConfig{Key: c.Keys[0], Submitters: c.Accounts, Voting: true, Library: true,
		Leader: true, LeaderCaps: c.Accounts[1:], Replication: true, PrivacyGroup: true,
		Mine: func() { c.sim.Commit() }, Clock: cfg.Clock, PollInterval: startPoll, Timeout: startTimeout})
	if err != nil {
		_ = c.closeSim()
		return nil, fmt.Errorf("evmdev: %w", err)
	}
	c.Router, c.Voting, c.Library = d.Router, d.Voting, d.Library
	c.Workflow, c.Registry = d.Workflow, d.Registry
	c.PrivacyGroup = d.PrivacyGroup
	c.Nodes, c.ReplicaSets = d.Nodes, d.ReplicaSets
	cfg.Logger.Info("evmdev contracts deployed", "router", AddressString(d.Router), "voting", AddressString(d.Voting),
		"library", AddressString(d.Library), "workflow", AddressString(d.Workflow), "registry", AddressString(d.Registry),
		"nodes", AddressString(d.Nodes), "replicasets", AddressString(d.ReplicaSets),
		"privacygroup", AddressString(d.PrivacyGroup), "block", d.Block)

	runCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	c.stop = stop
	go c.seal(runCtx, cfg.Clock, cfg.BlockTime, ctx.Done())
	return c, nil
}

// seal commits a block every d until ctx ends or parentDone closes.
func (c *Chain) seal(ctx context.Context, clk clock.Clock, d time.Duration, parentDone <-chan struct{}) {
	defer close(c.done)
	for {
		t := clk.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-parentDone:
			t.Stop()
			return
		case <-t.C():
		}
		h := c.sim.Commit()
		c.log.Debug("evmdev block sealed", "hash", h.Hex())
	}
}

// Config returns the node config's `evm:` section for this chain (WS first,
// then HTTP).
func (c *Chain) Config() string {
	return ConfigYAML([]string{c.WSURL, c.HTTPURL}, c.ChainID, c.Router, c.Voting, c.Library, c.Deployment().Extra()...)
}

// Deployment is what evmdev deployed at start.
func (c *Chain) Deployment() Deployment {
	return Deployment{Router: c.Router, Voting: c.Voting, Library: c.Library,
		Workflow: c.Workflow, Registry: c.Registry, Nodes: c.Nodes, ReplicaSets: c.ReplicaSets, PrivacyGroup: c.PrivacyGroup}
}

// Close stops sealing blocks, then the JSON-RPC servers and the chain, and
// removes the key directory when Start made it. It is safe to call more than
// once.
func (c *Chain) Close() error {
	c.once.Do(func() {
		c.stop()
		<-c.done
		c.err = c.closeSim()
	})
	return c.err
}

func (c *Chain) closeSim() error {
	err := c.sim.Close()
	c.removeTemp()
	if err != nil {
		return fmt.Errorf("evmdev: closing the chain: %w", err)
	}
	return nil
}

func (c *Chain) removeTemp() {
	if c.tempDir != "" {
		if err := os.RemoveAll(c.tempDir); err != nil {
			c.log.Warn("evmdev: removing the key directory", "dir", c.tempDir, "err", err)
		}
	}
}

// newBackend is simulated.NewBackend with its panic (a node that does not
// start: a port taken) turned into an error.
func newBackend(alloc types.GenesisAlloc, opts ...func(*node.Config, *ethconfig.Config)) (b *simulated.Backend, err error) {
	defer func() {
		if r := recover(); r != nil {
			b, err = nil, fmt.Errorf("starting the simulated chain: %v", r)
		}
	}()
	return simulated.NewBackend(alloc, opts...), nil
}

// forks pins the chain to the forks Ethereum runs today, through Osaka (the
// simulated backend's default adds the unreleased Amsterdam and Bogota, whose
// state-gas metering defeats the router's out-of-gas guard), with chain id
// id.
func forks(id uint64) func(*node.Config, *ethconfig.Config) {
	return func(_ *node.Config, e *ethconfig.Config) {
		cfg := *e.Genesis.Config
		cfg.AmsterdamTime, cfg.BogotaTime = nil, nil
		cfg.ChainID = new(big.Int).SetUint64(id)
		e.Genesis.Config = &cfg
	}
}

// serveOn makes the node serve JSON-RPC over HTTP and WS on cfg's addresses,
// with a logger that records the addresses the servers listen on (the port
// chosen for port 0) into eps, and hands go-ethereum's records to log at
// debug level (warnings and errors at theirs).
func serveOn(cfg Config, eps *endpoints, log *slog.Logger) func(*node.Config, *ethconfig.Config) {
	return func(n *node.Config, _ *ethconfig.Config) {
		hh, hp, _ := net.SplitHostPort(cfg.HTTPAddr)
		wh, wp, _ := net.SplitHostPort(cfg.WSAddr)
		n.HTTPHost, n.WSHost = hh, wh
		n.HTTPPort, _ = strconv.Atoi(hp)
		n.WSPort, _ = strconv.Atoi(wp)
		n.HTTPModules, n.WSModules = Modules, Modules
		n.HTTPVirtualHosts = []string{"localhost"}
		if cfg.AllowPublic {
			n.HTTPVirtualHosts = []string{"*"}
		}
		n.Logger = gethlog.NewLogger(&gethHandler{next: log.Handler(), eps: eps})
	}
}
