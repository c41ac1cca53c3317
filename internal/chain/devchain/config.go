package devchain

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/ordolabs/ordo/internal/clock"
)

// Config configures a devchain. The zero value of each field means its
// default.
type Config struct {
	// Seed drives every random choice (fault rolls, dev account keys).
	// Defaults to 1.
	Seed uint64
	// BlockTime is the interval between blocks when Run drives the chain.
	// Defaults to 1s.
	BlockTime time.Duration
	// MaxBlockTxs is the most transactions one block includes. Defaults to 1000.
	MaxBlockTxs int
	// MinFee is the base minimum fee; a transaction under it is rejected at
	// submit. Defaults to 1000.
	MinFee uint64
	// DevAccounts is how many funded dev accounts the chain holds keys for.
	// Defaults to 16.
	DevAccounts int
	// DevBalance is each dev account's starting balance. Defaults to 1e15.
	DevBalance uint64
	// FaucetMax is the per-call cap: the most one faucet call may grant; a
	// call over it is refused (ErrFaucetLimit, HTTP 422 faucet_limit).
	// Defaults to 1e15 (10^15, a dev account's starting balance and the
	// bench's funding per account; the node's --dev-senders top-up is 1e14).
	FaucetMax uint64
	// FaucetAccountMax is the per-account cap: the most the faucet credits
	// one account in all, over the chain's life (a restart replays the
	// credits); a call that would go over it is refused (ErrFaucetLimit,
	// HTTP 422 faucet_limit). Defaults to 1e16 (10^16: ten calls at the
	// per-call cap, a hundred --dev-senders top-ups).
	FaucetAccountMax uint64
	// NoDevMode turns off the faucet and signing for dev accounts. Defaults to
	// false (dev mode on).
	NoDevMode bool
	// MaxMempool is the most transactions the mempool holds. Defaults to 1,000,000.
	MaxMempool int
	// MaxNonceGap is how far ahead of an account's nonce a transaction may be.
	// Defaults to 1024.
	MaxNonceGap uint64
	// DataDir, when set, makes the chain durable: its block log lives there
	// and a restart replays it. Defaults to "" (in memory).
	DataDir string
	// Faults are the fault knobs in force at start.
	Faults FaultUpdate
	// FinalityDepth is the reorg depth the chain declares on its heads
	// (chain.BlockHeader.ReorgDepth), at least the periodic reorg depth
	// while periodic reorgs are on. A one-shot reorg deeper than it is how a
	// test makes the anomaly of a reorg deeper than declared. Defaults to 0.
	FinalityDepth uint64
	// Clock is the injected clock. Defaults to the wall clock.
	Clock clock.Clock
	// Logger gets what the chain reports on its own (a torn log tail
	// truncated at start, say). Defaults to slog.Default().
	Logger *slog.Logger
	// Contracts are registered in addition to the built-in zkapp,
	// library, registry and workflow (one of the same name replaces a
	// built-in). The name
	// "multicall" is reserved: the built-in multicall is always registered.
	Contracts []Contract
}

func (c *Config) setDefaults() {
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.BlockTime <= 0 {
		c.BlockTime = time.Second
	}
	if c.MaxBlockTxs <= 0 {
		c.MaxBlockTxs = 1000
	}
	if c.MinFee == 0 {
		c.MinFee = 1000
	}
	if c.DevAccounts <= 0 {
		c.DevAccounts = 16
	}
	if c.DevBalance == 0 {
		c.DevBalance = 1e15
	}
	if c.FaucetMax == 0 {
		c.FaucetMax = 1e15
	}
	if c.FaucetAccountMax == 0 {
		c.FaucetAccountMax = 1e16
	}
	if c.MaxMempool <= 0 {
		c.MaxMempool = 1_000_000
	}
	if c.MaxNonceGap == 0 {
		c.MaxNonceGap = 1024
	}
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
}

// Duration is a time.Duration written in JSON as a Go duration string ("5s").
type Duration time.Duration

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads a duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration must be a string like \"5s\": %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}
