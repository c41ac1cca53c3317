package chaintest

import (
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
)

// testIdentity: a chain names itself "devchain/<seed>" and its genesis
// block's hash, the same after blocks and a restart (even one whose flags
// name another seed: the block log keeps the genesis); a chain created
// later, or with another seed, has another identity.
func testIdentity(t *testing.T, f Factory) {
	e := newEnv(t, f)
	id := e.identity()
	g, err := e.c().Blocks(e.ctx, 0, 0)
	if err != nil || len(g) != 1 {
		t.Fatalf("genesis block: %v, %d blocks", err, len(g))
	}
	if want := (chain.Identity{ChainID: "devchain/42", Genesis: g[0].Hash}); id != want {
		t.Fatalf("identity %+v, want %+v", id, want)
	}
	e.mine()
	e.mine()
	if got := e.identity(); got != id {
		t.Fatalf("identity after two blocks %+v, want %+v", got, id)
	}
	e.restart()
	if got := e.identity(); got != id {
		t.Fatalf("identity after a restart %+v, want %+v", got, id)
	}

	later := newEnv(t, f, func(c *devchain.Config) { c.Clock.(interface{ Advance(time.Duration) }).Advance(time.Hour) })
	if got := later.identity(); got.ChainID != id.ChainID || got.Genesis == id.Genesis {
		t.Fatalf("a chain created an hour later: identity %+v, want %s with another genesis than %s", got, id.ChainID, id.Genesis)
	}
	other := newEnv(t, f, func(c *devchain.Config) { c.Seed = 7 })
	if got := other.identity(); got.ChainID != "devchain/7" {
		t.Fatalf("seed 7: chain id %q, want devchain/7", got.ChainID)
	}
}

// identity asks the chain under test for its identity.
func (e *env) identity() chain.Identity {
	e.t.Helper()
	id, err := chain.IdentityOf(e.ctx, e.c())
	if err != nil {
		e.t.Fatalf("Identity: %v", err)
	}
	if err := id.Validate(); err != nil {
		e.t.Fatal(err)
	}
	return id
}
