package devchain

import (
	"context"
	"fmt"

	"github.com/ordolabs/ordo/internal/chain"
)

// Faucet credits amount to addr in dev mode.
func (c *Chain) Faucet(ctx context.Context, addr chain.Address, amount uint64) (chain.Account, error) {
	if c.cfg.NoDevMode {
		return chain.Account{}, chain.ErrNotDevMode
	}
	if err := chain.ValidateAddress(addr); err != nil {
		return chain.Account{}, fmt.Errorf("%w: %w", chain.ErrInvalidTx, err)
	}
	if amount == 0 || amount > c.cfg.FaucetMax {
		return chain.Account{}, fmt.Errorf("%w: amount must be 1-%d", chain.ErrInvalidTx, c.cfg.FaucetMax)
	}
	c.mu.Lock()
	if c.log != nil {
		if err := c.log.append(logRecord{Faucet: &faucetRecord{Address: addr, Amount: amount}}); err != nil {
			c.mu.Unlock()
			return chain.Account{}, err
		}
	}
	c.credit(addr, amount)
	c.mu.Unlock()
	return c.Account(ctx, addr)
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
