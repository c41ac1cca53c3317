package node

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
)

// The node's senders: their keys (in the scheme of the node's chain) and
// the dev senders' keystore, funding and authorization.

// senders loads configured senders (checked by Config.Validate) and the dev
// senders' keystore, creating and funding dev senders as needed.
func (n *Node) senders(ctx context.Context) ([]sequencer.SenderConfig, map[string]chain.Key, error) {
	keys := map[string]chain.Key{}
	var out []sequencer.SenderConfig
	for _, s := range n.Config.Senders {
		if s.Worker != "" {
			out = append(out, sequencer.SenderConfig{ID: chain.Address(s.Address), Worker: s.Worker,
				Remote: dispatch.NewRemoteWorker(s.Worker, time.Duration(n.Config.WorkerTimeout))})
			continue
		}
		k, err := n.readKey(s.KeyFile)
		if err != nil {
			return nil, nil, err
		}
		a, err := chain.SignerOf(n.Chain).Address(k)
		if err != nil {
			return nil, nil, fmt.Errorf("key file %s: %w", s.KeyFile, err)
		}
		keys[string(a)] = k
		out = append(out, sequencer.SenderConfig{ID: a, Key: k})
	}
	if n.Config.DevSenders > 0 {
		dev, err := n.devKeys(n.Config.DevSenders)
		if err != nil {
			return nil, nil, err
		}
		for _, k := range dev {
			a, err := chain.SignerOf(n.Chain).Address(k)
			if err != nil {
				return nil, nil, err
			}
			keys[string(a)] = k
			out = append(out, sequencer.SenderConfig{ID: a, Key: k})
			n.devAddrs = append(n.devAddrs, a)
		}
		if n.gate.fund == nil { // else startup funds them once the chain answers
			if err := n.fundDevSenders(ctx); err != nil {
				return nil, nil, err
			}
		}
	}
	return out, keys, nil
}

// errFundRefused marks a refusal of the dev senders' funding by a chain
// that answered (no faucet): trying again cannot help.
var errFundRefused = errors.New("dev senders cannot be funded")

// fundDevSenders funds each dev sender from the chain's faucet when it runs
// low; a chain without one (or a devchain with --no-dev-mode, which
// answers not_dev_mode) refuses the start (errFundRefused), unless every
// dev sender is funded already.
func (n *Node) fundDevSenders(ctx context.Context) error {
	f := faucetOf(n.Chain)
	for _, a := range n.devAddrs {
		acct, err := n.Chain.Account(ctx, a)
		if err != nil {
			return fmt.Errorf("dev sender %s: %w", a, err)
		}
		low, amount := uint64(1e13), uint64(1e14)
		if n.Config.EVM.enabled() { // wei: 1 and 0.1 ether
			low, amount = 1e17, 1e18
		}
		if acct.Balance >= low {
			continue
		}
		if f == nil {
			return fmt.Errorf("%w: %w", errFundRefused, n.noFaucet("has none"))
		}
		if _, err := f.Faucet(ctx, a, amount); err != nil {
			if errors.Is(err, chain.ErrNotDevMode) {
				return fmt.Errorf("%w: %w", errFundRefused, n.noFaucet("answered the faucet not_dev_mode (a devchain started with --no-dev-mode)"))
			}
			return fmt.Errorf("fund dev sender %s from %s: %w", a, chainDescription(n.Config.Chain), err)
		}
	}
	if az, ok := n.Chain.(submitterAuthorizer); ok {
		for _, a := range n.devAddrs {
			if err := az.AuthorizeSubmitter(ctx, a); err != nil {
				return fmt.Errorf("%w: dev sender %s: the router must let it submit, and evm.faucetKeyFile's key cannot authorize it (it must own the router, as ordo evmdev's dev account 0 does): %w", errFundRefused, a, err)
			}
		}
	}
	return nil
}

// readKey reads a sender's key file in the scheme of the node's chain: a
// secp256k1 key (raw hex or a keystore file) on an EVM chain, the hex of
// an ed25519 seed on devchain.
func (n *Node) readKey(path string) (chain.Key, error) {
	if n.Config.EVM.enabled() {
		return n.Config.EVM.loadKey(path)
	}
	k, err := chain.ReadSeedFile(path)
	if err != nil {
		return nil, err
	}
	return k, nil
}

// devKeys returns the node's n dev sender keys in its chain's scheme,
// creating the missing ones (data/keys.json: ed25519 seeds;
// data/keys-secp256k1.json on an EVM chain).
func (n *Node) devKeys(count int) ([]chain.Key, error) {
	if n.Config.EVM.enabled() {
		return evmDevKeys(filepath.Join(n.Config.Data, "keys-secp256k1.json"), count)
	}
	ks, err := devKeys(filepath.Join(n.Config.Data, "keys.json"), count)
	if err != nil {
		return nil, err
	}
	out := make([]chain.Key, len(ks))
	for i, k := range ks {
		out[i] = k
	}
	return out, nil
}

// devKeys returns n dev sender keys, creating the missing ones and keeping
// them all in path.
func devKeys(path string, n int) ([]ed25519.PrivateKey, error) {
	var seeds []string
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &seeds); err != nil {
			return nil, fmt.Errorf("keystore %s: %w", path, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("keystore: %w", err)
	}
	changed := false
	for len(seeds) < n {
		s := make([]byte, ed25519.SeedSize)
		rand.Read(s)
		seeds = append(seeds, hex.EncodeToString(s))
		changed = true
	}
	if changed {
		b, _ := json.MarshalIndent(seeds, "", " ")
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, b, 0o600); err != nil {
			return nil, fmt.Errorf("keystore: %w", err)
		}
		if err := os.Rename(tmp, path); err != nil {
			return nil, fmt.Errorf("keystore: %w", err)
		}
	}
	keys := make([]ed25519.PrivateKey, n)
	for i := range n {
		seed, err := hex.DecodeString(seeds[i])
		if err != nil || len(seed) != ed25519.SeedSize {
			return nil, fmt.Errorf("keystore %s: entry %d is not a seed", path, i)
		}
		keys[i] = ed25519.NewKeyFromSeed(seed)
	}
	return keys, nil
}
