package procs

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/chain/evm/evmdev"
	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/committee"
	"github.com/ordolabs/ordo/internal/identity"
	"github.com/ordolabs/ordo/internal/testkit/ports"
)

// Defaults of Config.
const (
	DefaultNodes        = 4
	DefaultBlockTime    = 200 * time.Millisecond
	DefaultGroup        = "g"
	DefaultCoins        = 100
	DefaultAmount       = 1000
	DefaultReadyTimeout = 60 * time.Second
	DefaultStopGrace    = 10 * time.Second
)

// ErrInvalid is returned (wrapped) for a Config Start cannot honour.
var ErrInvalid = errors.New("procs: invalid config")

// Config is the committee Start runs. Zero fields take their defaults.
type Config struct {
	// Bin is the ordo binary (Build makes one). Required.
	Bin string
	// Dir holds the committee's files (Dir/committee), the chain's data
	// (Dir/chain) and every log (Dir/logs). Required; created if absent.
	Dir string
	// Nodes is the committee's size. Defaults to 4.
	Nodes int
	// BlockTime is the devchain's block time. Defaults to 200ms.
	BlockTime time.Duration
	// Group is the privacy group deployed. Defaults to "g".
	Group string
	// Coins and Amount are the coins minted to the group and each one's
	// amount. Default to 100 and 1000.
	Coins  int
	Amount uint64
	// RangeSize is the nodes' blocks per coordinator range (`ordo
	// committee init --range-size`). Defaults to 0: the node's default.
	RangeSize uint64
	// PollEvery is how often the nodes' indexers read the chain (`ordo
	// committee init --poll-every`). Defaults to 0: the node's default.
	PollEvery time.Duration
	// Replication turns on the nodes' replication of their queues (`ordo
	// committee init --replication`), and AckAfter, UnhealthyAfter,
	// MonitorEvery and MappingEvery tune it (--ack-after,
	// --unhealthy-after, --monitor-every, --mapping-every). Default to
	// off and 0: the node's defaults.
	Replication                                bool
	AckAfter                                   int
	UnhealthyAfter, MonitorEvery, MappingEvery time.Duration
	// ChainArgs are more flags for `ordo devchain` (faults, seed).
	// Defaults to none.
	ChainArgs []string
	// EVM, when set, is a running EVM chain (EVMDev of an evmdev the
	// caller started, or a geth) the committee runs on instead of a
	// devchain process: the nodes' configs carry its evm: section (its
	// PrivacyGroup), node i sends from key file i+1, and key file 0
	// deploys the group. Defaults to nil.
	EVM *EVMChain
	// EVMDev runs `ordo evmdev` as the committee's chain process (evm.go)
	// and sets EVM to it. Defaults to false.
	EVMDev bool
	// Geth is a geth binary run as `geth --dev` for the committee's chain
	// (evm.go): a funded key per node, the contracts deployed by `ordo evm
	// deploy --voting --replication --privacygroup` from geth's dev
	// account; EVM is set to it. Defaults to "": no geth.
	Geth string
	// ReadyTimeout bounds each wait for a process to be ready. Defaults
	// to 60s.
	ReadyTimeout time.Duration
	// StopGrace is how long Stop waits after SIGTERM before SIGKILL.
	// Defaults to 10s.
	StopGrace time.Duration
	// Clock times the processes' log markers, the grace after SIGTERM and
	// the polls for readiness. Defaults to the wall clock.
	Clock clock.Clock
}

func (c *Config) setDefaults() error {
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	if c.Nodes == 0 {
		c.Nodes = DefaultNodes
	}
	if c.BlockTime == 0 {
		c.BlockTime = DefaultBlockTime
	}
	if c.Group == "" {
		c.Group = DefaultGroup
	}
	if c.Coins == 0 {
		c.Coins = DefaultCoins
	}
	if c.Amount == 0 {
		c.Amount = DefaultAmount
	}
	if c.ReadyTimeout == 0 {
		c.ReadyTimeout = DefaultReadyTimeout
	}
	if c.StopGrace == 0 {
		c.StopGrace = DefaultStopGrace
	}
	switch {
	case c.Bin == "":
		return fmt.Errorf("%w: no ordo binary (Config.Bin)", ErrInvalid)
	case c.Dir == "":
		return fmt.Errorf("%w: no directory (Config.Dir)", ErrInvalid)
	case c.Nodes < 1 || c.Nodes > committee.MaxNodes:
		return fmt.Errorf("%w: %d nodes (1 to %d)", ErrInvalid, c.Nodes, committee.MaxNodes)
	}
	return nil
}

// EVMChain is a running EVM chain a committee runs on.
type EVMChain struct {
	// Section is the node config's evm: section; it names PrivacyGroup
	// as evm.contracts.privacygroup.
	Section string
	// KeyFiles are funded keys: the first deploys the group, the next
	// Nodes are the nodes' senders (submitters of the section's router).
	KeyFiles []string
}

// EVMDev is the EVMChain of an evmdev chain: its section and dev keys.
func EVMDev(c *evmdev.Chain) *EVMChain { return &EVMChain{Section: c.Config(), KeyFiles: c.KeyFiles} }

// Member is one node of the committee, as `ordo committee init` wrote it.
type Member struct {
	// Index is the node's number, from 0 (its directory is node<Index+1>).
	Index int
	// ID is its node id; Fingerprint its certificate's.
	ID, Fingerprint string
	// API is its API's base URL (http://host:port); GRPC its gRPC address.
	API, GRPC string
	// Dir is its directory; Config, Key, Cert its files; Data its data
	// directory.
	Dir, Config, Key, Cert, Data string
	// Token is its API bearer token.
	Token string
}

// Committee is a running devchain and its committee of ordo nodes.
type Committee struct {
	cfg      Config
	chainURL string
	chain    *Process
	nodes    []*Process
	members  []Member
	hc       *http.Client
	api      *http.Client // Request's: no timeout but its context's
}

// Start runs a devchain, writes a committee of cfg.Nodes with `ordo
// committee init`, deploys cfg.Group with `ordo committee deploy`, starts
// every `ordo serve --config` and waits until each is ready and has
// indexed the group. On error everything started is stopped.
func Start(ctx context.Context, cfg Config) (*Committee, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("procs: %w", err)
	}
	cfg.Dir = dir
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
		return nil, fmt.Errorf("procs: %w", err)
	}
	base, err := FreePorts(2*cfg.Nodes + 2) // the nodes' gRPC and API, the chain's (geth: HTTP, then WS)
	if err != nil {
		return nil, err
	}
	c := &Committee{cfg: cfg, hc: &http.Client{Timeout: 10 * time.Second}, api: &http.Client{}}
	ok := false
	defer func() {
		if !ok {
			c.Stop(context.WithoutCancel(ctx))
		}
	}()
	chainArgs, deployArgs, err := c.startChain(ctx, base)
	if err != nil {
		return nil, err
	}
	out := filepath.Join(dir, "committee")
	initArgs := append([]string{"committee", "init", "--nodes", strconv.Itoa(cfg.Nodes), "--out", out,
		"--base-port", strconv.Itoa(base), "--api-base-port", strconv.Itoa(base + cfg.Nodes)}, chainArgs...)
	if cfg.RangeSize > 0 {
		initArgs = append(initArgs, "--range-size", strconv.FormatUint(cfg.RangeSize, 10))
	}
	if cfg.PollEvery > 0 {
		initArgs = append(initArgs, "--poll-every", cfg.PollEvery.String())
	}
	initArgs = append(initArgs, replicationArgs(cfg)...)
	if err := c.run(ctx, "init", initArgs...); err != nil {
		return nil, err
	}
	if c.members, err = LoadMembers(out); err != nil {
		return nil, err
	}
	if len(c.members) != cfg.Nodes {
		return nil, fmt.Errorf("procs: %s holds %d nodes, want %d", out, len(c.members), cfg.Nodes)
	}
	if err := c.run(ctx, "deploy", append([]string{"committee", "deploy", "--out", out, "--group", cfg.Group,
		"--coins", strconv.Itoa(cfg.Coins), "--amount", strconv.FormatUint(cfg.Amount, 10)}, deployArgs...)...); err != nil {
		return nil, err
	}
	for i, m := range c.members {
		c.nodes = append(c.nodes, c.process("node"+strconv.Itoa(i+1), "serve", "--config", m.Config))
	}
	for i := range c.nodes {
		if err := c.nodes[i].start(); err != nil {
			return nil, err
		}
	}
	for i := range c.nodes {
		if err := c.waitReady(ctx, i); err != nil {
			return nil, err
		}
	}
	ok = true
	return c, nil
}

// startChain starts the devchain process (or, with cfg.EVMDev or
// cfg.Geth, that EVM chain's process: evm.go) or, with cfg.EVM, writes
// that chain's evm: section, and returns the chain's flags for `ordo
// committee init` and for `ordo committee deploy`.
func (c *Committee) startChain(ctx context.Context, base int) (initArgs, deployArgs []string, err error) {
	if c.cfg.EVMDev || c.cfg.Geth != "" {
		if err := c.startEVMProcess(ctx, base+2*c.cfg.Nodes); err != nil {
			return nil, nil, err
		}
	}
	cfg := c.cfg
	if cfg.EVM != nil {
		if len(cfg.EVM.KeyFiles) < cfg.Nodes+1 {
			return nil, nil, fmt.Errorf("%w: the EVM chain has %d key files, the committee needs %d", ErrInvalid, len(cfg.EVM.KeyFiles), cfg.Nodes+1)
		}
		section := filepath.Join(cfg.Dir, "evm.yaml")
		if err := os.WriteFile(section, []byte(cfg.EVM.Section), 0o600); err != nil {
			return nil, nil, fmt.Errorf("procs: %w", err)
		}
		return []string{"--evm-config", section, "--sender-keys", strings.Join(cfg.EVM.KeyFiles[1:cfg.Nodes+1], ",")},
			[]string{"--key-file", cfg.EVM.KeyFiles[0]}, nil
	}
	chainAddr := net.JoinHostPort(committee.DefaultHost, strconv.Itoa(base+2*cfg.Nodes))
	c.chainURL = "http://" + chainAddr
	args := append([]string{"devchain", "--listen", chainAddr, "--data", filepath.Join(cfg.Dir, "chain"),
		"--block-time", cfg.BlockTime.String()}, cfg.ChainArgs...)
	c.chain = c.process("chain", args...)
	if err := c.chain.start(); err != nil {
		return nil, nil, err
	}
	dc := devchain.NewClient(c.chainURL, nil)
	if err := c.waitFor(ctx, c.chain, "the devchain's head", func(ctx context.Context) (bool, string) {
		_, err := dc.Head(ctx)
		return err == nil, fmt.Sprint(err)
	}); err != nil {
		return nil, nil, err
	}
	return []string{"--chain", c.chainURL}, []string{"--chain", c.chainURL}, nil
}

// replicationArgs are the `ordo committee init` flags of cfg's
// replication.
func replicationArgs(cfg Config) []string {
	if !cfg.Replication {
		return nil
	}
	args := []string{"--replication"}
	if cfg.AckAfter > 0 {
		args = append(args, "--ack-after", strconv.Itoa(cfg.AckAfter))
	}
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{{"--unhealthy-after", cfg.UnhealthyAfter}, {"--monitor-every", cfg.MonitorEvery}, {"--mapping-every", cfg.MappingEvery}} {
		if d.v > 0 {
			args = append(args, d.flag, d.v.String())
		}
	}
	return args
}

// LoadMembers reads the members `ordo committee init` wrote into dir,
// in order (node1 first).
func LoadMembers(dir string) ([]Member, error) {
	var ms []Member
	for i := 0; ; i++ {
		nd := filepath.Join(dir, "node"+strconv.Itoa(i+1))
		if _, err := os.Stat(nd); errors.Is(err, os.ErrNotExist) {
			return ms, nil
		}
		m := Member{Index: i, Dir: nd, Config: filepath.Join(nd, committee.ConfigFile), Key: filepath.Join(nd, committee.KeyFile),
			Cert: filepath.Join(nd, committee.CertFile), Data: filepath.Join(nd, committee.DataDir)}
		k, cert, err := identity.Load(m.Key, m.Cert)
		if err != nil {
			return nil, fmt.Errorf("procs: node%d: %w", i+1, err)
		}
		m.ID, m.Fingerprint = string(k.ID()), identity.FingerprintDER(cert.Certificate[0])
		tok, err := os.ReadFile(filepath.Join(nd, committee.TokenFile))
		if err != nil {
			return nil, fmt.Errorf("procs: node%d: %w", i+1, err)
		}
		m.Token = strings.TrimSpace(string(tok))
		api, grpc, err := listens(m.Config)
		if err != nil {
			return nil, fmt.Errorf("procs: node%d: %w", i+1, err)
		}
		m.API, m.GRPC = "http://"+api, grpc
		ms = append(ms, m)
	}
}

// run runs a one-shot ordo command, its output in logs/<name>.log.
func (c *Committee) run(ctx context.Context, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, c.cfg.Bin, args...)
	b, err := cmd.CombinedOutput()
	log := filepath.Join(c.cfg.Dir, "logs", name+".log")
	_ = os.WriteFile(log, b, 0o644)
	if err != nil {
		return fmt.Errorf("procs: ordo %s: %w\n%s", strings.Join(args, " "), err, b)
	}
	return nil
}

// FreePorts returns the first of n consecutive loopback ports that were
// all free a moment ago, below the kernel's ephemeral port range (see
// internal/testkit/ports): a port from that range may be taken as the
// source port of any outgoing connection before the process bound to it
// starts.
func FreePorts(n int) (int, error) {
	base, err := ports.Consecutive(n)
	if err != nil {
		return 0, fmt.Errorf("procs: %w", err)
	}
	return base, nil
}

// process is one of the committee's processes, logging to Dir/logs/<name>.log
// on the committee's clock.
func (c *Committee) process(name string, args ...string) *Process {
	p := NewProcess(name, c.cfg.Bin, filepath.Join(c.cfg.Dir, "logs", name+".log"), args...)
	p.clock = c.cfg.Clock
	return p
}

// waitFor polls cond every 50ms until it holds, p exits, ctx ends or the
// ready timeout passes; the error says what was awaited, the last answer
// and the tail of p's log.
func (c *Committee) waitFor(ctx context.Context, p *Process, what string, cond func(context.Context) (bool, string)) error {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.ReadyTimeout)
	defer cancel()
	exited := p.done()
	for {
		ok, last := cond(ctx)
		if ok {
			return nil
		}
		tick := c.cfg.Clock.NewTimer(50 * time.Millisecond)
		select {
		case <-exited:
			tick.Stop()
			return p.withTail(fmt.Errorf("%w: %s exited waiting for %s (last: %s)", ErrNotRunning, p.name, what, last))
		case <-ctx.Done():
			tick.Stop()
			return p.withTail(fmt.Errorf("procs: %s: waiting for %s: %w (last: %s)", p.name, what, ctx.Err(), last))
		case <-tick.C():
		}
	}
}

// waitReady waits for node i's /readyz and for its distributed sequencer
// to name a coordinator for the group.
func (c *Committee) waitReady(ctx context.Context, i int) error {
	p := c.nodes[i]
	if err := c.waitFor(ctx, p, "/readyz", func(ctx context.Context) (bool, string) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.members[i].API+"/readyz", nil)
		resp, err := c.hc.Do(req)
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, resp.Status
	}); err != nil {
		return err
	}
	return c.waitFor(ctx, p, "the group "+c.cfg.Group+" indexed", func(ctx context.Context) (bool, string) {
		pg, err := c.Peers(ctx, i)
		if err != nil {
			return false, err.Error()
		}
		return pg.Coordinators[c.cfg.Group] != "", fmt.Sprintf("coordinators %v", pg.Coordinators)
	})
}
