package devchain

import (
	"context"
	"fmt"

	"github.com/ordolabs/ordo/internal/chain"
)

// ErrFaucetLimit is the error of a faucet call over one of its caps: an
// amount over Config.FaucetMax, or one that would take what the faucet has
// credited the account over Config.FaucetAccountMax. Such an error also
// wraps chain.ErrInvalidTx. The HTTP API answers it 422 faucet_limit; the
// client returns it as the in-process chain does.
var ErrFaucetLimit = &chain.Error{Code: CodeFaucetLimit, Msg: "faucet limit exceeded"}

// faucetLimitError is an ErrFaucetLimit with what was over which cap.
type faucetLimitError struct{ detail string }

func (e *faucetLimitError) Error() string { return ErrFaucetLimit.Msg + ": " + e.detail }

// Unwrap returns ErrFaucetLimit first, so that its code is the one the
// HTTP API answers.
func (e *faucetLimitError) Unwrap() []error { return []error{ErrFaucetLimit, chain.ErrInvalidTx} }

// Faucet credits amount to addr in dev mode. The amount must be 1 to
// Config.FaucetMax, and what the faucet has credited addr in all, this call
// included, at most Config.FaucetAccountMax; over either cap it is refused
// with an error wrapping ErrFaucetLimit (and chain.ErrInvalidTx).
func (c *Chain) Faucet(ctx context.Context, addr chain.Address, amount uint64) (chain.Account, error) {
	if c.cfg.NoDevMode {
		return chain.Account{}, chain.ErrNotDevMode
	}
	if err := chain.ValidateAddress(addr); err != nil {
		return chain.Account{}, fmt.Errorf("%w: %w", chain.ErrInvalidTx, err)
	}
	if amount == 0 {
		return chain.Account{}, fmt.Errorf("%w: amount must be at least 1", chain.ErrInvalidTx)
	}
	if amount > c.cfg.FaucetMax {
		return chain.Account{}, &faucetLimitError{fmt.Sprintf("amount %d is over the per-call cap of %d", amount, c.cfg.FaucetMax)}
	}
	c.mu.Lock()
	given := c.faucetGiven[addr]
	if room := c.cfg.FaucetAccountMax - min(given, c.cfg.FaucetAccountMax); amount > room {
		c.mu.Unlock()
		return chain.Account{}, &faucetLimitError{fmt.Sprintf("the faucet has credited %s %d of its per-account cap of %d; %d more is over it", addr, given, c.cfg.FaucetAccountMax, amount)}
	}
	if c.log != nil {
		if err := c.log.append(logRecord{Faucet: &faucetRecord{Address: addr, Amount: amount}}); err != nil {
			c.mu.Unlock()
			return chain.Account{}, err
		}
	}
	c.faucetCredit(addr, amount)
	c.mu.Unlock()
	return c.Account(ctx, addr)
}

// faucetCredit credits a faucet grant and counts it against the account's
// cap.
func (c *Chain) faucetCredit(addr chain.Address, amount uint64) {
	c.credit(addr, amount)
	if g := c.faucetGiven[addr] + amount; g >= amount {
		c.faucetGiven[addr] = g
	} else {
		c.faucetGiven[addr] = ^uint64(0)
	}
}

// credit adds amount to addr's balance, saturating at the largest balance.
func (c *Chain) credit(addr chain.Address, amount uint64) {
	ac := c.acct(addr)
	if ac.balance+amount < ac.balance {
		ac.balance = ^uint64(0)
	} else {
		ac.balance += amount
	}
}
