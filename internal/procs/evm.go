package procs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// evmdevArgs are the flags of the `ordo evmdev` an EVM committee runs on:
// one JSON-RPC server for HTTP and WebSocket at addr, a funded dev account
// per node besides account 0 (the router's owner), the key files under
// Dir/chain.
func evmdevArgs(cfg Config, addr string) []string {
	return append([]string{"evmdev", "--http", addr, "--ws", addr, "--block-time", cfg.BlockTime.String(),
		"--accounts", strconv.Itoa(cfg.Nodes + 1), "--data", filepath.Join(cfg.Dir, "chain")}, cfg.ChainArgs...)
}

// evmSection is the node config's evm: section evmdev printed into its log
// ("" until it has).
func (c *Committee) evmSection() (string, error) {
	b, err := os.ReadFile(c.chain.logPath)
	if err != nil {
		return "", err
	}
	s := string(b)
	i := strings.Index(s, "\nevm:\n")
	if i < 0 || !strings.Contains(s[i:], "replicasets:") {
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

// configChain matches the devchain lines `ordo committee init` writes.
var configChain = regexp.MustCompile(`(?m)^(chain|devSenders):.*\n`)

// useEVM rewrites each node's config for the EVM chain: no devchain and
// no dev senders, evmdev's evm: section, and dev account i+1's key file as
// node i's only sender (so that no two nodes share an account).
func (c *Committee) useEVM() error {
	sec, err := c.evmSection()
	if err != nil || sec == "" {
		return errors.Join(errors.New("procs: evmdev printed no evm: section"), err)
	}
	for i, m := range c.members {
		b, err := os.ReadFile(m.Config)
		if err != nil {
			return fmt.Errorf("procs: %w", err)
		}
		key := filepath.Join(c.cfg.Dir, "chain", fmt.Sprintf("dev%d.key", i+1))
		cfg := configChain.ReplaceAllString(string(b), "") + sec + "senders:\n  - keyFile: " + key + "\n"
		if err := os.WriteFile(m.Config, []byte(cfg), 0o600); err != nil {
			return fmt.Errorf("procs: %w", err)
		}
	}
	return nil
}
