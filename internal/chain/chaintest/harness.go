package chaintest

import (
	"context"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
)

// DevChain is what the suite drives: the chain interface plus devchain's dev
// controls. Both *devchain.Chain (in-process) and *devchain.Client (over HTTP)
// implement it.
type DevChain interface {
	chain.Chain
	chain.HeadSubscriber
	chain.BlockReader
	// Mine produces one block now; ok is false while a stall is in force.
	Mine(ctx context.Context) (hdr chain.BlockHeader, ok bool, err error)
	Faults(ctx context.Context) (devchain.FaultState, error)
	SetFaults(ctx context.Context, u devchain.FaultUpdate) (devchain.FaultState, error)
	Faucet(ctx context.Context, addr chain.Address, amount uint64) (chain.Account, error)
	DevAccounts(ctx context.Context) ([]devchain.DevAccount, error)
}

var _ DevChain = (*devchain.Chain)(nil)

// Harness is one chain under test.
type Harness struct {
	// Chain is the chain under test.
	Chain DevChain
	// Advance moves the chain's virtual clock forward.
	Advance func(d time.Duration)
	// Restart closes the chain and reopens it on the same data directory,
	// returning the new handle (nil when the factory cannot restart). The
	// suite uses the returned handle from then on.
	Restart func() DevChain
}

// Factory builds a fresh chain under test from cfg. The suite builds cfg: its
// Clock is a *clock.Virtual that the chain must read (Advance moves it) and its
// DataDir is a fresh temporary directory. The factory closes what it opened
// with t.Cleanup. The suite calls a factory several times per test when it
// needs several chains (determinism compares two).
type Factory func(t TB, cfg devchain.Config) *Harness

// TB is what a factory receives: the running (sub)test.
type TB = testing.TB
