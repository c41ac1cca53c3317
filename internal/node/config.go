package node

import (
	"bytes"
	"fmt"
	"os"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/sequencer"
)

// Config is the node's configuration file (YAML). Flags override it.
type Config struct {
	// Listen is the HTTP API address. Defaults to 127.0.0.1:7070.
	Listen string `yaml:"listen"`
	// Data is the data directory (store, keystore, in-process chain).
	// Defaults to ./ordo-data.
	Data string `yaml:"data"`
	// Chain is a remote devchain's URL; empty runs a devchain in-process,
	// served under the node's address. Defaults to "".
	Chain string `yaml:"chain"`
	// DevSenders creates this many funded sender accounts in dev mode (keys
	// kept in Data/keys.json, funded by the devchain faucet). Defaults to 8
	// when no senders are configured, else 0.
	DevSenders int `yaml:"devSenders"`
	// Senders are senders with a key file (hex ed25519 seed) or a remote
	// worker URL that holds the key.
	Senders []SenderFile `yaml:"senders"`
	// AllowedTypes are the transaction types intake accepts. Defaults to the
	// seed's five types.
	AllowedTypes []string `yaml:"allowedTypes"`
	// RetryDelay is the delay before a retry. Defaults to 5s.
	RetryDelay Duration `yaml:"retryDelay"`
	// MaxRetries before FAILED. Defaults to 5.
	MaxRetries int `yaml:"maxRetries"`
	// Types overrides retry delay and max retries per type.
	Types map[string]TypeConfig `yaml:"types"`
	// Fees sets attempt fees.
	Fees FeeConfig `yaml:"fees"`
	// InclusionTimeoutBlocks is how many blocks an attempt may wait before it
	// is retried. Defaults to 5.
	InclusionTimeoutBlocks uint64 `yaml:"inclusionTimeoutBlocks"`
	// Confirmations is how many blocks must hold a transaction before it is
	// DONE (its own block counts). Defaults to 1; a chain that reorgs up to
	// depth d needs d+1.
	Confirmations uint64 `yaml:"confirmations"`
	// WorkerTimeout bounds a remote worker call. Defaults to 10s.
	WorkerTimeout Duration `yaml:"workerTimeout"`
	// Devchain configures the in-process devchain.
	Devchain DevchainConfig `yaml:"devchain"`
}

// SenderFile is a configured sender.
type SenderFile struct {
	// KeyFile holds the hex of a 32-byte ed25519 seed.
	KeyFile string `yaml:"keyFile"`
	// Worker is a remote worker URL; Address is then required.
	Worker string `yaml:"worker"`
	// Address is the worker's account address.
	Address string `yaml:"address"`
}

// TypeConfig overrides retries for one type.
type TypeConfig struct {
	// MaxRetries defaults to the node's MaxRetries.
	MaxRetries int `yaml:"maxRetries"`
	// RetryDelay defaults to the node's RetryDelay.
	RetryDelay Duration `yaml:"retryDelay"`
}

// FeeConfig sets attempt fees.
type FeeConfig struct {
	// Initial is the first attempt's fee (raised to the chain's minimum).
	// Defaults to 1000.
	Initial uint64 `yaml:"initial"`
	// BumpPercent is the rise per retry. Defaults to 10.
	BumpPercent uint64 `yaml:"bumpPercent"`
	// MinStep is the smallest rise per retry. Defaults to 100.
	MinStep uint64 `yaml:"minStep"`
	// Max caps every fee. Defaults to 1000000.
	Max uint64 `yaml:"max"`
}

// DevchainConfig configures the in-process devchain.
type DevchainConfig struct {
	// BlockTime defaults to 1s.
	BlockTime Duration `yaml:"blockTime"`
	// Seed defaults to 1.
	Seed uint64 `yaml:"seed"`
	// MaxBlockTxs defaults to 1000.
	MaxBlockTxs int `yaml:"maxBlockTxs"`
	// Faults are the fault knobs at start (see GET /v1/faults).
	Faults FaultConfig `yaml:"faults"`
}

// FaultConfig are the devchain's fault knobs at start. All default to off.
type FaultConfig struct {
	RejectProb float64 `yaml:"rejectProb"`
	DropProb   float64 `yaml:"dropProb"`
	RevertProb float64 `yaml:"revertProb"`
	ReorgEvery uint64  `yaml:"reorgEvery"`
	ReorgDepth uint64  `yaml:"reorgDepth"`
}

// Duration is a time.Duration written as "5s" in YAML.
type Duration time.Duration

// UnmarshalYAML parses a duration string.
func (d *Duration) UnmarshalYAML(v *yaml.Node) error {
	p, err := time.ParseDuration(v.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", v.Line, err)
	}
	*d = Duration(p)
	return nil
}

// LoadConfig reads a YAML config file; unknown fields are errors.
func LoadConfig(path string) (Config, error) {
	var c Config
	b, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("config: %w", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		return c, fmt.Errorf("config %s: %w", path, err)
	}
	return c, nil
}

// SetDefaults fills every unset field with its default.
func (c *Config) SetDefaults() {
	if c.Listen == "" {
		c.Listen = "127.0.0.1:7070"
	}
	if c.Data == "" {
		c.Data = "ordo-data"
	}
	if c.DevSenders == 0 && len(c.Senders) == 0 {
		c.DevSenders = 8
	}
	if len(c.AllowedTypes) == 0 {
		c.AllowedTypes = sequencer.BuiltinTypes()
	}
	if c.RetryDelay == 0 {
		c.RetryDelay = Duration(5 * time.Second)
	}
	if c.MaxRetries == 0 {
		c.MaxRetries = 5
	}
	if c.InclusionTimeoutBlocks == 0 {
		c.InclusionTimeoutBlocks = 5
	}
	if c.Confirmations == 0 {
		c.Confirmations = 1
	}
	if c.WorkerTimeout == 0 {
		c.WorkerTimeout = Duration(10 * time.Second)
	}
	if c.Devchain.BlockTime == 0 {
		c.Devchain.BlockTime = Duration(time.Second)
	}
}

func (f FaultConfig) update() devchain.FaultUpdate {
	u := devchain.FaultUpdate{RejectProb: &f.RejectProb, DropProb: &f.DropProb, RevertProb: &f.RevertProb, ReorgEvery: &f.ReorgEvery}
	if f.ReorgDepth > 0 {
		u.ReorgDepth = &f.ReorgDepth
	}
	return u
}

// Set parses a duration string (for flags).
func (d *Duration) Set(s string) error {
	p, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(p)
	return nil
}
