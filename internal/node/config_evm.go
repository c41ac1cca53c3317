package node

import (
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/evm"
	"github.com/ordolabs/ordo/internal/chain/evm/contracts"
)

// EVMConfig points the node at an EVM chain over JSON-RPC instead of a
// devchain (docs/evm.md). It is used when URLs is set; Chain must then be
// empty. `ordo evmdev` and `ordo evm deploy` print it.
type EVMConfig struct {
	// URLs are the chain's JSON-RPC endpoints (http, https, ws, wss), in
	// order of preference: a call fails over to the next when one does not
	// answer, times out or answers 429 (that one is backed off). A ws
	// endpoint also pushes heads. Defaults to none (no EVM chain).
	URLs []string `yaml:"urls"`
	// ChainID is the chain's id, checked against eth_chainId at first
	// contact. Defaults to 0: whatever the chain says (and the store then
	// holds it to that chain).
	ChainID uint64 `yaml:"chainId"`
	// Router is the address of the OrdoRouter intents are applied through
	// (required with URLs).
	Router string `yaml:"router"`
	// Contracts are the contracts intents call, by the lowercase name an
	// intent uses. Defaults to none.
	Contracts map[string]EVMContract `yaml:"contracts"`
	// ReorgDepth is the deepest reorg the node expects: an inclusion
	// ReorgDepth+1 blocks deep is final (DONE), and events are read that
	// deep. Defaults to 2.
	ReorgDepth uint64 `yaml:"reorgDepth"`
	// Finalized takes finality from the chain's finalized tag instead of
	// ReorgDepth. Defaults to false.
	Finalized bool `yaml:"finalized"`
	// TipPercent is an attempt's priority fee as a share of its fee cap
	// (both rise together on a replacement). Defaults to 10.
	TipPercent uint64 `yaml:"tipPercent"`
	// GasMarginPercent multiplies the gas estimate of an attempt (taken
	// on the router's strict path). Defaults to 130.
	GasMarginPercent uint64 `yaml:"gasMarginPercent"`
	// PasswordFile holds the passphrase of the senders' keystore files
	// (Web3 Secret Storage); the environment variable ORDO_EVM_PASSWORD
	// is used when it is empty. Defaults to "".
	PasswordFile string `yaml:"passwordFile"`
	// FaucetKeyFile is a funded key (raw hex or keystore) the node funds
	// its dev senders from, on a development chain (`ordo evmdev` prints
	// one). Defaults to "": dev senders need funding by hand.
	FaucetKeyFile string `yaml:"faucetKeyFile"`
}

// EVMContract is a contract of EVMConfig.Contracts.
type EVMContract struct {
	// Address is the contract's address ("0x" and 40 hex digits).
	// Required.
	Address string `yaml:"address"`
	// ABI is the name of a contract ordo ships (Voting, Library,
	// Workflow, ToolRegistry, …), or the path of a JSON ABI file. Required.
	ABI string `yaml:"abi"`
}

// enabled reports whether the node runs on an EVM chain.
func (c EVMConfig) enabled() bool { return len(c.URLs) > 0 }

var (
	evmAddress  = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)
	evmContract = regexp.MustCompile(`^[a-z0-9_-]{1,64}$`)
)

// validate reports what is wrong with the evm section (bad names the
// field); devchain is the chain field, which must then be empty.
func (c EVMConfig) validate(devchain string, bad func(field, format string, args ...any)) {
	if !c.enabled() {
		if c.Router != "" || len(c.Contracts) > 0 {
			bad("evm.urls", "is empty, but evm.router or evm.contracts is set: give the chain's JSON-RPC URLs")
		}
		return
	}
	if devchain != "" {
		bad("chain", "names a devchain and evm.urls an EVM chain; a node runs on one chain: set one of them")
	}
	for i, u := range c.URLs {
		p, err := url.Parse(u)
		if err != nil || p.Host == "" || !slices.Contains([]string{"http", "https", "ws", "wss"}, p.Scheme) {
			bad(fmt.Sprintf("evm.urls[%d]", i), "%q is not an http(s) or ws(s) URL", u)
		}
	}
	if !evmAddress.MatchString(c.Router) {
		bad("evm.router", "%q is not an address (0x and 40 hex digits); `ordo evm deploy` deploys a router and prints it", c.Router)
	}
	for name, k := range c.Contracts {
		field := "evm.contracts." + name
		if !evmContract.MatchString(name) || name == "multicall" || name == "router" {
			bad(field, "a contract's name is 1-64 characters of [a-z0-9_-], and not multicall or router (ordo's own)")
		}
		if !evmAddress.MatchString(k.Address) {
			bad(field+".address", "%q is not an address (0x and 40 hex digits)", k.Address)
		}
		if strings.TrimSpace(k.ABI) == "" {
			bad(field+".abi", "is required: the name of a contract ordo ships (Voting, Library) or a JSON ABI file")
		}
	}
	if c.TipPercent > 100 {
		bad("evm.tipPercent", "must be at most 100, got %d", c.TipPercent)
	}
	if c.GasMarginPercent != 0 && c.GasMarginPercent < 100 {
		bad("evm.gasMarginPercent", "must be at least 100 (the estimate itself), got %d", c.GasMarginPercent)
	}
	if c.Finalized && c.ReorgDepth != 0 {
		bad("evm.reorgDepth", "is set with evm.finalized; finality comes from one of them")
	}
}

// chainKind names the node's chain for messages.
func (c Config) chainKind() string {
	switch {
	case c.EVM.enabled():
		return "the EVM chain at " + strings.Join(c.EVM.URLs, ", ")
	case c.Chain != "":
		return "the chain at " + c.Chain
	}
	return "the in-process devchain"
}

// The fee defaults on an EVM chain, in wei per gas.
const (
	evmInitialFee = 1_000_000_000     // 1 gwei (raised to the chain's minimum)
	evmMaxFee     = 1_000_000_000_000 // 1000 gwei
)

// setDefaults fills the evm section's defaults, and the fee policy's in
// wei where the operator left them.
func (c *EVMConfig) setDefaults(f *FeeConfig) {
	if c.ReorgDepth == 0 && !c.Finalized {
		c.ReorgDepth = 2
	}
	if c.TipPercent == 0 {
		c.TipPercent = 10
	}
	if c.GasMarginPercent == 0 {
		c.GasMarginPercent = 130
	}
	if f.Initial == 0 {
		f.Initial = evmInitialFee
	}
	if f.MinStep == 0 {
		f.MinStep = 1
	}
	if f.Max == 0 {
		f.Max = max(evmMaxFee, f.Initial)
	}
}

// evmChain builds the EVM backend the evm section describes; it dials the
// chain and checks its id.
func evmChain(ctx context.Context, c EVMConfig, o Options) (*evm.Backend, error) {
	cfg := evm.Config{URLs: c.URLs, ChainID: c.ChainID, Router: common.HexToAddress(c.Router), ReorgDepth: c.ReorgDepth,
		Finalized: c.Finalized, TipPercent: c.TipPercent, GasMarginPercent: c.GasMarginPercent, Clock: o.Clock, Logger: o.Logger,
		Contracts: map[string]evm.Contract{}}
	for name, k := range c.Contracts {
		a, err := contractABI(k.ABI)
		if err != nil {
			return nil, fmt.Errorf("evm.contracts.%s.abi: %w", name, err)
		}
		cfg.Contracts[name] = evm.Contract{Address: common.HexToAddress(k.Address), ABI: a}
	}
	if c.FaucetKeyFile != "" {
		k, err := c.loadKey(c.FaucetKeyFile)
		if err != nil {
			return nil, fmt.Errorf("evm.faucetKeyFile: %w", err)
		}
		cfg.FaucetKey = k
	}
	b, err := evm.New(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Config{EVM: c}.chainKind(), err)
	}
	return b, nil
}

// contractABI is the ABI of a contract ordo ships, by name, or read from
// a JSON ABI file.
func contractABI(s string) (abi.ABI, error) {
	if a, err := evm.BuiltinABI(s); err == nil {
		return a, nil
	}
	f, err := os.Open(s)
	if err != nil {
		return abi.ABI{}, fmt.Errorf("%q is neither a contract ordo ships (%s) nor a readable ABI file: %w", s, strings.Join(contracts.ArtifactNames(), ", "), err)
	}
	defer f.Close()
	a, err := abi.JSON(f)
	if err != nil {
		return abi.ABI{}, fmt.Errorf("ABI file %s: %w", s, err)
	}
	return a, nil
}

// loadKey reads a secp256k1 key file (raw hex, or a keystore file opened
// with the section's passphrase).
func (c EVMConfig) loadKey(path string) (*ecdsa.PrivateKey, error) {
	pass := os.Getenv("ORDO_EVM_PASSWORD")
	if c.PasswordFile != "" {
		b, err := os.ReadFile(c.PasswordFile)
		if err != nil {
			return nil, fmt.Errorf("evm.passwordFile: %w", err)
		}
		pass = strings.TrimRight(string(b), "\r\n")
	}
	return evm.LoadKey(path, pass)
}

// evmDevKeys returns n dev sender secp256k1 keys, creating the missing
// ones and keeping them all in path (a JSON list of hex keys, 0600).
func evmDevKeys(path string, n int) ([]chain.Key, error) {
	var hexKeys []string
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &hexKeys); err != nil {
			return nil, fmt.Errorf("keystore %s: %w", path, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("keystore: %w", err)
	}
	changed := false
	for len(hexKeys) < n {
		k, err := crypto.GenerateKey()
		if err != nil {
			return nil, fmt.Errorf("keystore: %w", err)
		}
		hexKeys = append(hexKeys, hex.EncodeToString(crypto.FromECDSA(k)))
		changed = true
	}
	if changed {
		b, _ := json.MarshalIndent(hexKeys, "", " ")
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, b, 0o600); err != nil {
			return nil, fmt.Errorf("keystore: %w", err)
		}
		if err := os.Rename(tmp, path); err != nil {
			return nil, fmt.Errorf("keystore: %w", err)
		}
	}
	keys := make([]chain.Key, n)
	for i := range n {
		k, err := crypto.HexToECDSA(hexKeys[i])
		if err != nil {
			return nil, fmt.Errorf("keystore %s: entry %d: %w", path, i, err)
		}
		keys[i] = k
	}
	return keys, nil
}
